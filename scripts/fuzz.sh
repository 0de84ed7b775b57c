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
mkdir -p "$build"
echo "scripts/fuzz.sh: building the fuzzers (log in $build/build.log)" >&2
if ! { CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
         -DMMTUNE_FUZZ=ON -DMMTUNE_BUILD_TESTS=OFF &&
       cmake --build "$build" --parallel "$jobs" --target fuzz_import fuzz_config fuzz_spec; } \
     >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log" >&2
  exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Stack traces with names: Debian's llvm has llvm-symbolizer; clang alone has a versioned one.
symbolizer=$(command -v llvm-symbolizer || ls /usr/bin/llvm-symbolizer-* 2>/dev/null | head -n 1 || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer
share=$(( seconds / ${#targets[@]} ))
[ "$share" -lt 1 ] && share=1
out=$build/fuzz-out
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus-$t"
  # libFuzzer reports every new input: its output goes to a log, one line here unless it fails.
  log=$out/fuzz_$t.log
  if ! (cd "$out" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$share" -timeout=10 \
      -max_len=65536 -print_final_stats=1 "$out/corpus-$t" "$root/tests/fuzz/corpus/$t") \
      >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "scripts/fuzz.sh: fuzz_$t failed; its whole output is in $log" >&2
    exit 1
  fi
  runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz_$t: ${share} s, ${runs} inputs, no failure" >&2
done
echo "scripts/fuzz.sh: no failure in ${seconds} s" >&2
