#!/usr/bin/env bash
# Regenerates results/ from scratch on this machine, in one command:
#
#   bench/make_results.sh
#
# For both PoCL devices (POCL_DEVICES="pthread basic") and Mesa rusticl's llvmpipe
# (RUSTICL_ENABLE=llvmpipe), fp32 and fp64 where the device has it, n = 256, 512, 1024, 2048:
# tunes with a per-size time limit, measures the device's roofs, runs the side-by-side benchmark
# (tuned, default, naive, classic, CLBlast with its own and with tuned parameters, host BLAS),
# then writes the JSON export, the report and results/README.md (commands, date, versions).
# About an hour and a half on the 2-core reference machine; the CPU must otherwise be idle.
#
# Environment: RESULTS_DIR (default results/), RESULTS_DB (default results/.work/results.db;
# an existing database is resumed: what it holds is not measured again), DEVICES (default
# "pthread basic llvmpipe"), CLBLAST_TUNED (clblast tuner JSON files for the "clblast-tuned"
# subject; default: results/clblast/*.json, copied from ../shared/data/clblast when absent; a
# device's own results/clblast-<device>/*.json, from bench/tune_clblast.sh on that device, take
# precedence for it), SIZES, SMALL_SIZES, LIMIT_PERCENT (of each tune's time limit). For a quick
# trial: SIZES="64 128" LIMIT_PERCENT=20 RESULTS_DIR=/tmp/r bench/make_results.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${RESULTS_DIR:-$root/results}
db=${RESULTS_DB:-$out/.work/results.db}
build=${MMTUNE_BUILD_DIR:-$root/build}
mmtune=$build/tuner/mmtune
export POCL_DEVICES="pthread basic" RUSTICL_ENABLE=llvmpipe
# OpenBLAS 0.3.21 picks its kernels by CPU model and runs generic SSE3 ones ("Prescott", about
# a fifth of the speed) on models it does not know, such as this machine's. The host-BLAS roof
# must be the real one, so name the core from the CPU's features unless the caller did.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  if grep -qw avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=Haswell
  fi
fi
commit=$(git -C "$root" rev-parse --short HEAD)
git -C "$root" diff --quiet HEAD -- src kernels tuner || commit="$commit (with local changes)"

"$root/scripts/dev.sh" build
mkdir -p "$out" "$(dirname "$db")" "$out/clblast"
log=$out/.work/commands.log
# BENCH_ONLY=1 measures the benchmarks again on the tuned database of an earlier run (its tune
# and roofline commands stay in the log).
if [ "${BENCH_ONLY:-0}" = 1 ]; then
  sed -i -E '/^mmtune (bench|export|report) /d' "$log"
else
  : >"$log"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$out/.work/started"
fi

run() {  # logs and runs one mmtune command
  echo "mmtune $*" | sed "s|$db|\$DB|g; s|$root/||g" >>"$log"
  echo "+ mmtune $*" >&2
  "$mmtune" "$@"
}

# CLBlast's tuned parameters for the "clblast-tuned" bench subject.
if ! compgen -G "$out/clblast/*.json" >/dev/null && [ -d "$root/../shared/data/clblast" ]; then
  cp "$root"/../shared/data/clblast/clblast_xgemm_*.json "$out/clblast/"
fi
clblast_tuned=()
for f in ${CLBLAST_TUNED:-$out/clblast/*.json}; do [ -f "$f" ] && clblast_tuned+=("$f"); done

read -r -a sizes <<<"${SIZES:-256 512 1024 2048}"
# Small and odd shapes, tuned and benchmarked on the main device in fp32 only.
read -r -a small <<<"${SMALL_SIZES-64 100 128 500}"
# Seconds of search per size: the multi-threaded device gets more, fp64 and the one-thread
# "basic" device less, so that everything fits in about an hour.
limit() {  # device precision n
  local base
  case "$3" in 64 | 100 | 128) base=20 ;; 256) base=45 ;; 500 | 512) base=60 ;; 1024) base=120 ;;
    *) base=180 ;; esac
  [ "$1" = pthread ] && [ "$2" = 32 ] && base=$((base * 3 / 2))
  echo "$((base * ${LIMIT_PERCENT:-100} / 100))s"
}

read -r -a devices <<<"${DEVICES:-pthread basic llvmpipe}"
for dev in "${devices[@]}"; do
  for prec in 32 64; do
    # fp64 only where the device has it (llvmpipe has none).
    if [ "$prec" = 64 ] && ! "$mmtune" run --device "$dev" --precision 64 --n 8 >/dev/null 2>&1; then
      continue
    fi
    all=("${sizes[@]}")
    [ "$dev" = pthread ] && [ "$prec" = 32 ] && all=("${small[@]}" "${sizes[@]}")
    for n in "${all[@]}"; do
      [ "${BENCH_ONLY:-0}" = 1 ] && continue
      run tune --device "$dev" --precision "$prec" --n "$n" --time-limit "$(limit "$dev" "$prec" "$n")" \
        --no-baselines --db "$db" >"$out/.work/tune-$dev-fp$prec-$n.txt"
    done
    [ "${BENCH_ONLY:-0}" = 1 ] ||
      run roofline --device "$dev" --precision "$prec" --db "$db" >"$out/.work/roofline-$dev-fp$prec.txt"
    # CLBlast's tuned parameters: the device's own tuner files (results/clblast-<device>/, from
    # bench/tune_clblast.sh on it) where present, else the shared ones.
    clb=()
    files=("${clblast_tuned[@]}")
    compgen -G "$out/clblast-$dev/*.json" >/dev/null && files=("$out/clblast-$dev"/*.json)
    [ "$prec" = 32 ] && [ ${#files[@]} -gt 0 ] && clb=(--clblast-tuned "${files[@]}")
    list=$(printf '%s\n' "${all[@]}" | sort -n | paste -sd,)
    run bench --device "$dev" --precision "$prec" --n "$list" "${clb[@]}" \
      --db "$db" | tee "$out/bench-$dev-fp$prec.txt"
  done
done
finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)
started=$(cat "$out/.work/started")

run export --format json --db "$db" --out "$out/mmtune-results.json"
rm -rf "$out/report"
run report --db "$db" --out "$out/report"

# results/README.md: how these files were made.
devices_json=$("$mmtune" devices --json)
{
  echo "# Results"
  echo
  echo "Measured on this project's reference machine (2 cores, AVX-512, no GPU) with two OpenCL"
  echo "implementations of its CPU (PoCL's two devices, Mesa rusticl's llvmpipe), from $started"
  echo "to $finished (UTC), by one command:"
  echo
  echo '```'
  echo "bench/make_results.sh"
  echo '```'
  echo
  echo "- [report/report.html](report/report.html) (also [report/report.md](report/report.md)):"
  echo "  per-device and cross-device charts, rooflines, best configurations, tuning cost."
  echo "- [mmtune-results.json](mmtune-results.json): every device, session, measurement and"
  echo "  best (\`mmtune import\` reads it back)."
  echo "- \`bench-<device>-fp<bits>.txt\`: the side-by-side benchmark tables, as printed."
  echo "- \`clblast/\`: the clblast_tuner_xgemm files whose best parameters the"
  echo "  \"clblast-tuned\" rows load (clblast::OverrideParameters)."
  echo
  echo "Made by their own scripts, each directory with a README of how:"
  echo
  echo "- \`replay/\`: the search strategies replayed on real GPU landscapes (bench/replay_benchmark.sh:"
  echo "  README.md, the curves; told.md, the warm start) and on mmtune's PoCL landscapes (pocl.md)."
  echo "- \`perf/\` (bench/perf.sh): tuned GEMM against OpenBLAS and CLBlast."
  echo "- \`efficiency/\` (bench/tuning_efficiency.sh): tuning cost and the packed routine."
  echo "- \`spec/\` (bench/spec_examples.sh): the spec examples, best against default."
  echo "- \`clblast-fresh/\`, \`clblast-llvmpipe/\` (bench/tune_clblast.sh): CLBlast's own tuner runs."
  echo
  echo "The machine's speed drifts: compare rows of one table (measured side by side in one"
  echo "run), not numbers from different runs. Tuning time per size was limited (see below), so"
  echo "the tuned figures are what mmtune finds within that time, not the best the space holds."
  echo
  echo "## Commands (in order; \$DB is the working database, not committed)"
  echo
  echo '```'
  cat "$log"
  echo '```'
  echo
  echo "## Versions"
  echo
  echo "- $("$mmtune" --version 2>&1 | head -1), commit $commit"
  echo "- environment: POCL_DEVICES=\"$POCL_DEVICES\", RUSTICL_ENABLE=$RUSTICL_ENABLE, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"
  echo "- $(grep -m1 -o '"platform_version": *"[^"]*"' <<<"$devices_json" | sed 's/.*: *"//; s/"$//')"
  for p in pocl-opencl-icd mesa-opencl-icd libclblast1 libopenblas0-pthread libopenblas0 g++; do
    v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
    [ -n "$v" ] && echo "- $p $v"
  done
  echo "- $(uname -srm); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
} >"$out/README.md"
# Paths of this machine become repository-relative in every committed text (the bench tables'
# "Stored in" lines, the report's header, the sessions' command lines).
grep -rlF "$root/" "$out" --include='*.txt' --include='*.md' --include='*.csv' --include='*.html' \
  --include='*.json' --exclude-dir=.work | while read -r f; do sed -i "s|$root/||g" "$f"; done
echo "results written to $out" >&2
