print("benchmarks: see README")
