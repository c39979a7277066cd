#!/usr/bin/env bash
# What keeping a recognizer loaded saves: times the PyPI PocketSphinx adapter on the same audio files decoded
# one process per utterance (`decode`, how every external decode ran before `serve:`) and through one served
# process (`serve`, one JSON request a line), and prints the median of several runs of each, per utterance.
#
#     scripts/bench-served.sh [--runs 3] [--artifact DIR] FILE.wav...
#
# With --artifact both forms decode with that prepared artifact (the customized decode); without, the stock
# model. Run it alone: a decode that shares the cores runs several times slower.
set -euo pipefail
adapter="$(cd "$(dirname "$0")" && pwd)/recognizers/pocketsphinx-pypi.py"
runs=3
artifact=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --artifact) artifact=(--artifact "$2"); shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--runs N] [--artifact DIR] FILE.wav..." >&2; exit 2; }
files=("$@")
requests=$(mktemp)
trap 'rm -f "$requests"' EXIT
for file in "${files[@]}"; do printf '{"audio": "%s", "key": "%s"}\n' "$file" "$(basename "$file")"; done > "$requests"

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

per_process=()
served=()
for _ in $(seq "$runs"); do
    start=$(now)
    for file in "${files[@]}"; do "$adapter" decode "$file" "${artifact[@]}" > /dev/null; done
    per_process+=("$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')")
    start=$(now)
    "$adapter" serve "${artifact[@]}" < "$requests" > /dev/null
    served+=("$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')")
done
a=$(printf '%s\n' "${per_process[@]}" | median)
b=$(printf '%s\n' "${served[@]}" | median)
n=${#files[@]}
printf '%d utterances, median of %d runs%s\n' "$n" "$runs" "${artifact:+ (customized)}"
awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN {
    printf "one process per utterance  %8.2f s  %6.3f s per utterance\n", a, a / n
    printf "one served process         %8.2f s  %6.3f s per utterance\n", b, b / n
    printf "saved                      %8.2f s  %6.1f%%\n", a - b, 100 * (a - b) / a
}'
