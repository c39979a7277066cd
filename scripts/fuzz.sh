#!/usr/bin/env bash
# Fuzzes every parser of a user's file with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 60 seconds, every target, two at a time)
#
# Builds `gambit-fuzz` with the fuzzer and address sanitizers into .build-fuzz, then runs each target
# (Fuzz/FuzzTargets/FuzzTarget.swift) for SECONDS from its seed corpus in Fuzz/Seeds/TARGET plus what
# earlier runs kept in Fuzz/.corpus/TARGET. Prints, per target: executions, executions per second,
# coverage at the start and the end, inputs added, and findings. A finding (a crash, a sanitizer report,
# a leak, an input taking more than 5 seconds or 2 GB) leaves the input under Fuzz/Findings/TARGET/ and
# makes the script exit 1. Replay one without the sanitizers: swift run gambit-fuzz TARGET FILE.
# FUZZ_JOBS sets how many targets run at once (default 2). FUZZ_BUILD=debug builds without the optimizer:
# 2.4 times quicker to build (96 s against 229 s on 2 cores) and with assertions on, at half the executions
# per second, which suits a short pass (CI's); the default, release, suits a long one.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
[ $# -gt 0 ] && shift
case "$seconds" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;; esac
jobs="${FUZZ_JOBS:-2}"
configuration="${FUZZ_BUILD:-release}"
case "$configuration" in debug | release) ;; *) echo "error: FUZZ_BUILD is debug or release, not $configuration" >&2; exit 2 ;; esac

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for folder in Fuzz/Seeds/*/; do targets+=("$(basename "$folder")"); done
fi
for target in "${targets[@]}"; do
    [ -d "Fuzz/Seeds/$target" ] || { echo "error: no seed corpus Fuzz/Seeds/$target (unknown target?)" >&2; exit 2; }
done

scripts/install-deps.sh
# SwiftPM's --sanitize flags reach the frontend as two options of which only the last counts, so the
# combined -sanitize=fuzzer,address is passed as well; --sanitize fuzzer still tells SwiftPM that
# libFuzzer supplies main. lld keeps the coverage sections that gold drops.
swift build -c "$configuration" --scratch-path .build-fuzz --product gambit-fuzz \
    --sanitize fuzzer --sanitize address \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld 2>&1 |
    grep -v "warning: Cannot export local symbol" | tail -n 3
binary=".build-fuzz/$configuration/gambit-fuzz"

logs=Fuzz/.logs
mkdir -p "$logs"

fuzz_one() {
    local target="$1"
    local corpus="Fuzz/.corpus/$target" findings="Fuzz/Findings/$target"
    mkdir -p "$corpus" "$findings"
    # The Swift runtime's own crash handler would take the signal before libFuzzer writes the input.
    # set -e would end this function at a finding's non-zero exit, before its status is written.
    local status=0
    GAMBIT_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no \
        LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0" \
        "$binary" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/" "$corpus" "Fuzz/Seeds/$target" >"$logs/$target.log" 2>&1 || status=$?
    echo "$status" >"$logs/$target.status"
}

echo "Fuzzing ${#targets[@]} targets for ${seconds} s each, ${jobs} at a time (logs in $logs/)"
running=0
for target in "${targets[@]}"; do
    rm -f "$logs/$target.status"
    fuzz_one "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

stat() { grep -m1 "^stat::$1:" "$2" | awk '{print $2}'; }
cov() { grep -E "^#[0-9]+[[:space:]]+$1" "$2" | grep -o "cov: [0-9]*" | tail -n 1 | awk '{print $2}'; }

printf '\n%-18s %12s %9s %15s %7s  %s\n' target executions "exec/s" coverage added findings
failed=0
for target in "${targets[@]}"; do
    log="$logs/$target.log"
    status="$(cat "$logs/$target.status" 2>/dev/null || echo "?")"
    executions="$(stat number_of_executed_units "$log")"
    rate="$(stat average_exec_per_sec "$log")"
    added="$(stat new_units_added "$log")"
    start="$(cov INITED "$log")"
    end="$(cov DONE "$log")"
    finding="$(grep -m1 -o "Test unit written to .*" "$log" | sed 's/Test unit written to //' || true)"
    if [ "$status" = 0 ] && [ -z "$finding" ]; then
        result="none"
    else
        failed=1
        result="${finding:-exit status $status, see $log}"
    fi
    printf '%-18s %12s %9s %15s %7s  %s\n' "$target" "${executions:-?}" "${rate:-?}" \
        "${start:-?} → ${end:-${start:-?}}" "${added:-?}" "$result"
done

if [ "$failed" -ne 0 ]; then
    echo
    echo "Findings above: each input is kept where its line says, the full report is in $logs/TARGET.log."
    echo "Fix the parser, then keep the input in Fuzz/Regressions/TARGET/ (the tests replay it) with a test of what it must now do."
    exit 1
fi
