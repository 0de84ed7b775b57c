#!/usr/bin/env bash
# Re-measures the best configuration of each tuning database side by side. The machine's speed
# drifts by tens of percent within minutes, so bests found at different times are not compared
# as stored: each is run again with `mmtune run`, alternating between them, ROUNDS times, and
# compared by the median over the rounds (whole routine GFLOPS).
#
#   bench/compare_bests.sh N DB...       e.g. bench/compare_bests.sh 2048 default.db long.db
#
# Environment: DEVICE (default pthread), PRECISION (32), ROUNDS (5), SESSION (the fastest of this
# session's measurements of each database, e.g. 1 for the tune that created it; default: the
# database's stored best). The CPU must be idle.
# Prints one line per database: its best as stored, the median re-measured, its share of the
# fastest median.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mmtune=${MMTUNE_BUILD_DIR:-$root/build}/tuner/mmtune
device=${DEVICE:-pthread}
precision=${PRECISION:-32}
rounds=${ROUNDS:-5}
session=${SESSION:+AND session_id = $SESSION}
n=$1
shift
export POCL_DEVICES=${POCL_DEVICES:-"pthread basic"}

declare -a kernels configs stored samples
for db in "$@"; do
  # The stored best (what a tune leaves a user), or with SESSION that session's fastest.
  if [ -z "$session" ]; then
    row=$(sqlite3 -separator '|' "$db" "SELECT kernel, config, gflops FROM best
      WHERE m = $n AND n = $n AND k = $n AND precision = $precision
        AND layout = 'row' AND trans_a = 0 AND trans_b = 0 ORDER BY gflops DESC LIMIT 1")
  else
    row=$(sqlite3 -separator '|' "$db" "SELECT kernel, config, gflops FROM measurements
      WHERE status = 'Ok' AND m = $n AND n = $n AND k = $n AND precision = $precision
        AND layout = 'row' AND trans_a = 0 AND trans_b = 0 $session
      ORDER BY gflops DESC LIMIT 1")
  fi
  [ -n "$row" ] || { echo "compare_bests.sh: no Ok measurement of n = $n in $db" >&2; exit 2; }
  IFS='|' read -r kernel config gflops <<<"$row"
  kernels+=("$kernel") configs+=("$config") stored+=("$gflops") samples+=("")
done
dbs=("$@")
for ((r = 0; r < rounds; r++)); do
  for i in "${!configs[@]}"; do
    out=$("$mmtune" -q run --device "$device" --n "$n" --precision "$precision" \
      --kernel "${kernels[$i]}" --config "${configs[$i]}" 2>&1) || true
    g=$(sed -n 's/.* = \([0-9.]*\) GFLOPS; kernel .*/\1/p' <<<"$out")
    # A failed run is shown as such and left out of the median, not counted as 0 GFLOPS.
    [ -n "$g" ] || echo "compare_bests.sh: round $((r + 1)) of ${dbs[i]} failed: $(tail -1 <<<"$out")" >&2
    samples[i]="${samples[i]} ${g:-failed}"
  done
done
median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END {
  if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
declare -a medians
top=0 status=0
for i in "${!configs[@]}"; do
  medians[i]=$(median <<<"${samples[i]}")
  [ -n "${medians[i]}" ] || { medians[i]=0 status=1; }
  top=$(awk -v a="${medians[i]}" -v b="$top" 'BEGIN { print (a > b ? a : b) }')
done
for i in "${!configs[@]}"; do
  printf '%s: %s [%s] stored %.1f GFLOPS; re-measured median %.1f (rounds:%s) = %.2f of the fastest\n' \
    "${dbs[i]}" "${kernels[i]}" "${configs[i]}" "${stored[i]}" "${medians[i]}" "${samples[i]}" \
    "$(awk -v a="${medians[i]}" -v b="$top" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
exit $status  # 1: every run of some database failed
