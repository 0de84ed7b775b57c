#!/usr/bin/env bash
# Runs CLBlast's own GEMM tuner (clblast_tuner_xgemm from the Debian package clblast-utils) on a
# PoCL device (or another implementation's: PLATFORM=rusticl) and keeps its JSON files, which `mmtune bench --clblast-tuned FILE...` and
# bench/make_results.sh (CLBLAST_TUNED) load into CLBlast with clblast::OverrideParameters. It
# also records the tuner's wall time, the figure mmtune's own search time is compared against.
#
#   bench/tune_clblast.sh [OUT_DIR]          default OUT_DIR: results/clblast-fresh
#
# Environment: N (m = n = k, default 1024), PRECISION (32 or 64, default 32), PLATFORM (a part of
# the platform's name, default pocl; rusticl for Mesa's llvmpipe, with RUSTICL_ENABLE=llvmpipe
# set here), DEVICE (index in that platform, default 0), FRACTION (CLBlast's -fraction: the share of its large space that
# the random stages sample; default CLBlast's own). The tuner always measures its fixed set of
# 578 configurations first, so even a small FRACTION takes long: at n = 1024 on the 2-core
# reference machine it measured 300 of them in 20 minutes (results/clblast-fresh/README.txt), so
# the whole run takes well over an hour there.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/results/clblast-fresh}
n=${N:-1024}
precision=${PRECISION:-32}
tuner=$(command -v clblast_tuner_xgemm || true)
if [ -z "$tuner" ]; then
  echo "bench/tune_clblast.sh: clblast_tuner_xgemm not found; install the Debian package clblast-utils" >&2
  exit 2
fi
export POCL_DEVICES=${POCL_DEVICES:-"pthread basic"}
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
# The platform's index among the installed OpenCL platforms.
want=${PLATFORM:-pocl}
[ "$want" = pocl ] && want='pocl\|portable'
platform=0
if command -v clinfo >/dev/null; then
  platform=$(clinfo -l 2>/dev/null | grep '^Platform' | grep -n -i -m1 "$want" |
    cut -d: -f1 || true)
  platform=$(( ${platform:-1} - 1 ))
fi
args=(-platform "$platform" -device "${DEVICE:-0}" -precision "$precision" -m "$n" -n "$n" -k "$n")
[ -n "${FRACTION:-}" ] && args+=(-fraction "$FRACTION")

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "+ $tuner ${args[*]}" >&2
start=$(date +%s)
# The tuner writes clblast_xgemm_<variant>_<precision>.json into its working directory.
(cd "$work" && "$tuner" "${args[@]}") >"$out/tuner-output.txt" 2>&1 || {
  echo "bench/tune_clblast.sh: the CLBlast tuner failed; see $out/tuner-output.txt" >&2
  exit 1
}
seconds=$(( $(date +%s) - start ))
cp "$work"/clblast_xgemm_*_"$precision".json "$out/"
{
  echo "command: clblast_tuner_xgemm ${args[*]}"
  echo "wall time: ${seconds} s"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "platform: $want (index $platform), device ${DEVICE:-0}; POCL_DEVICES: $POCL_DEVICES, RUSTICL_ENABLE: $RUSTICL_ENABLE"
  grep -h -o '"best_parameters": "[^"]*"\|"best_time": "[^"]*"\|"kernel_family": "[^"]*"' \
    "$out"/clblast_xgemm_*_"$precision".json
} >"$out/README.txt"
echo "bench/tune_clblast.sh: ${seconds} s; files in $out (summary: $out/README.txt)" >&2
