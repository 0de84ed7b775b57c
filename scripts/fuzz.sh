#!/usr/bin/env bash
# Builds the libFuzzer targets (MMTUNE_FUZZ=ON: clang, ASan + UBSan) in build-fuzz/ and runs each
# for its share of the time on a scratch copy of its seed corpus (tests/fuzz/corpus/<target>).
#
#   scripts/fuzz.sh [seconds]     total fuzzing time, split across the targets (default 60)
#
# A failure stops the run with the target's exit code; libFuzzer names the crashing input
# (crash-*, saved in build-fuzz/fuzz-out/). Environment: MMTUNE_FUZZ_BUILD_DIR, JOBS.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MMTUNE_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${JOBS:-$(nproc)}
seconds=${1:-60}
targets=(import config spec)

command -v clang++ >/dev/null || { echo "scripts/fuzz.sh: clang++ is needed for libFuzzer" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DMMTUNE_FUZZ=ON -DMMTUNE_BUILD_TESTS=OFF >&2
cmake --build "$build" --parallel "$jobs" --target fuzz_import fuzz_config fuzz_spec >&2

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
share=$(( seconds / ${#targets[@]} ))
[ "$share" -lt 1 ] && share=1
out=$build/fuzz-out
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus-$t"
  echo "fuzz_$t: ${share} s" >&2
  (cd "$out" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$share" -timeout=10 -max_len=65536 \
    -print_final_stats=1 "$out/corpus-$t" "$root/tests/fuzz/corpus/$t")
done
echo "scripts/fuzz.sh: no failure in ${seconds} s" >&2
