#!/usr/bin/env bash
# How fast the search gets there, measured on this machine (issue 7's tuning-efficiency targets):
#
#   bench/tuning_efficiency.sh
#
# 1. The default tune, `mmtune tune --device D --n N` with the default strategy, budget and time
#    limit, into a fresh database: its best, the seconds until it first came within 90 % and
#    100 % of that best, and its time split (building, running, the tuner's own overhead).
# 2. With LONG_FACTOR > 0, a search with LONG_FACTOR times the budget and time limit (another
#    seed, its own database long.db; LONG_FACTOR=0 keeps an earlier long.db): the default tune's
#    best as a share of the long search's best, as stored and re-measured side by side.
# 3. A uniform random sample of SIM_BUDGET configurations at n = SIM_N, then `mmtune simulate`
#    over it (20 seeds per strategy): evaluations each strategy needs to come within 5 % of the
#    best of the sample.
#
# Environment: DEVICE (default pthread), N (2048), LONG_FACTOR (10; 0 skips step 2, which takes
# LONG_FACTOR x 8 minutes), SIM_N (512), SIM_BUDGET (300; 0 skips step 3), OUT (default
# results/efficiency). The CPU must otherwise be idle.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Relative to the repository: the sessions stored in the committed databases name their --db.
cd "$root"
out=${OUT:-results/efficiency}
mmtune=${MMTUNE_BUILD_DIR:-$root/build}/tuner/mmtune
device=${DEVICE:-pthread}
n=${N:-2048}
factor=${LONG_FACTOR:-10}
sim_n=${SIM_N:-512}
sim_budget=${SIM_BUDGET:-300}
export POCL_DEVICES=${POCL_DEVICES:-"pthread basic"}
"$root/scripts/dev.sh" build
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# Over a database's first session: its best GFLOPS, and the seconds from its start to the first
# measurement at or above a share of a given best (a share of the session's own best by default).
best_of() {
  sqlite3 "$1" "SELECT max(gflops) FROM measurements WHERE status = 'Ok' AND session_id = 1"
}
seconds_to() {  # db share [best]
  local best=${3:-"(SELECT max(gflops) FROM measurements WHERE status = 'Ok' AND session_id = 1)"}
  sqlite3 "$1" "SELECT CASE WHEN t IS NULL THEN 'never' ELSE printf('%.0f', t) END FROM (
    SELECT min((julianday(m.measured_at) - julianday(s.started_at)) * 86400) AS t
    FROM measurements m JOIN sessions s ON s.id = m.session_id
    WHERE s.id = 1 AND m.status = 'Ok' AND m.gflops >= $2 * $best)"
}
gf() { awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }

say "mmtune tuning efficiency, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$root" rev-parse --short HEAD)"
say "device $device, fp32, n = $n"
rm -f "$out/default.db"
"$mmtune" tune --device "$device" --n "$n" --no-baselines --seed 1 --db "$out/default.db" |
  tee "$out/default.txt"
best=$(best_of "$out/default.db")
say "default tune: best $(gf "$best") GFLOPS (whole routine); within 90 % after $(seconds_to "$out/default.db" 0.9) s, best after $(seconds_to "$out/default.db" 1.0) s"
say "  $(grep '^Time:' "$out/default.txt")"

if [ "$factor" -gt 0 ]; then
  rm -f "$out/long.db"
  "$mmtune" tune --device "$device" --n "$n" --no-baselines --seed 2 --db "$out/long.db" \
    --budget $((160 * factor)) --time-limit $((8 * factor))m | tee "$out/long.txt"
fi
if [ -f "$out/long.db" ]; then  # this run's, or kept from an earlier one (LONG_FACTOR=0)
  long=$(best_of "$out/long.db")
  say "long tune ($(sqlite3 "$out/long.db" "SELECT printf('budget %d, time limit %d min', budget, time_limit_s / 60) FROM sessions WHERE id = 1")): best $(gf "$long") GFLOPS as stored; default / long as stored = $(awk -v a="$best" -v b="$long" 'BEGIN { printf "%.2f", a / b }')"
  # The machine's speed drifts between the two tunes: their bests re-measured side by side.
  say "both bests re-measured side by side (bench/compare_bests.sh, ${ROUNDS:-5} alternating rounds):"
  SESSION=1 "$root/bench/compare_bests.sh" "$n" "$out/default.db" "$out/long.db" | tee -a "$summary"
fi

# The same command again on the tuned database, twice: the first repeat spends whatever budget
# the time limit left unspent, the second finds nothing left to measure.
for run in 1 2; do
  start=$(date +%s%N)
  "$mmtune" tune --device "$device" --n "$n" --no-baselines --seed 1 --db "$out/default.db" \
    >"$out/repeat-$run.txt"
  say "repeated default tune $run: $(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }') s; $(grep '^Evaluations:' "$out/repeat-$run.txt")"
done

if [ "$sim_budget" -gt 0 ]; then
  rm -f "$out/sample.db"
  "$mmtune" tune --device "$device" --n "$sim_n" --no-baselines --kernel tiled --strategy random \
    --budget "$sim_budget" --time-limit none --seed 3 --db "$out/sample.db" >"$out/sample.txt"
  say "simulate over a random sample of $sim_budget tiled configurations at n = $sim_n:"
  "$mmtune" simulate --db "$out/sample.db" --device "$device" --n "$sim_n" --seeds 20 \
    --budget "$sim_budget" |
    tee -a "$summary"
fi
echo "bench/tuning_efficiency.sh: summary in $summary" >&2
