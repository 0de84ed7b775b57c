#!/usr/bin/env bash
# The replay benchmark (issue #18): every search strategy replayed on real GPU landscapes
# (Kernel Tuner cache files in tests/data/gpu-landscapes, one measured run each), without a
# device:
#
#   bench/replay_benchmark.sh            # 100 seeds, all strategies, every landscape
#
# Per landscape and strategy: the mean fraction of the optimum (best time / best time found)
# after 25, 50, 100, 200 and 400 evaluations, and the median evaluations to come within 5 % of
# the best, next to random sampling's expectation (N+1)/(k+1). Writes OUT_DIR (default
# results/replay/): one JSON file per landscape and README.md with the tables and the means over
# the GEMM landscapes, one SVG chart of the curves per landscape, and `mmtune report` of the
# replays (saved with `simulate --save`) in OUT_DIR/report. The suite's gate
# (ReplayBenchmark.*) runs the default strategy with a few seeds. Pure arithmetic: about half an hour on the 2-core reference machine at 100 seeds.
#
# A second part, the warm start (`simulate --told`): each run first told a random 20 % or 50 % of
# the recorded results outside 5 % of the best, the median further evaluations to come within
# 5 % (budget 1000): how predictable a landscape's best is from the rest. Writes OUT_DIR/told.md
# and told-NAME.jsonl. About a quarter of an hour at 20 seeds.
#
# A third part, the landscapes' shape (`simulate --landscape`): points within 5 %, local minima,
# and from how many points steepest descent ends within 5 %. Writes OUT_DIR/shape.md and
# shape-NAME.json; seconds.
#
# Environment: SEEDS (default 100), STRATEGIES (a strategy, or all: the default), LANDSCAPES
# (default tests/data/gpu-landscapes, copied from the shared data), MMTUNE_BUILD_DIR (default
# build/), PARTS (default "curves told shape"), TOLD_SEEDS (default 20).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mmtune=${MMTUNE_BUILD_DIR:-$root/build}/tuner/mmtune
landscapes=${LANDSCAPES:-$root/tests/data/gpu-landscapes}
out=${OUT_DIR:-$root/results/replay}
seeds=${SEEDS:-100}
strategies=${STRATEGIES:-all}
parts=${PARTS:-curves told shape}
told_seeds=${TOLD_SEEDS:-20}
told_strategies=$strategies
[ "$told_strategies" = all ] && told_strategies="model genetic annealing random"
[ -x "$mmtune" ] || { echo "build mmtune first (scripts/dev.sh build)" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/landscapes.db

# The Xgemm landscapes were measured at 4096^2 (the shared README); the others name no size.
for f in "$landscapes"/*.json; do
  "$mmtune" import "$f" --db "$db" --n 4096 >/dev/null
done

# name | device | kernel | problem options
cases=(
  "GEMM_A100|A100-PCIE|tiled|--n 4096 --layout col --trans-b"
  "GEMM_V100|V100|tiled|--n 4096 --layout col --trans-b"
  "GEMM_MI50|gfx906|tiled|--n 4096 --layout col --trans-b"
  "convolution_A100|A100-PCIE|kt:convolution_kernel|--n 4096"
  "pnpoly_A100|x86_64|kt:cn_pnpoly_host|--n 4096"
)
if [[ " $parts " == *" curves "* ]]; then
  for c in "${cases[@]}"; do
    IFS='|' read -r name device kernel problem <<<"$c"
    # shellcheck disable=SC2086  # the problem options are words
    "$mmtune" simulate --db "$db" --device "$device" --kernel "$kernel" $problem \
      --strategy "$strategies" --seeds "$seeds" --budget 400 --curve --save --json \
      --svg "$out/$name.svg" >"$out/$name.json"
    echo "$name done" >&2
  done

  python3 "$root/bench/replay_tables.py" curves "$out" "$seeds"
  echo "wrote $out/README.md" >&2
  # From inside the scratch directory: the report names its database as given (no machine path).
  out_abs=$(cd "$out" && pwd)
  (cd "$work" && "$mmtune" report --db landscapes.db --out "$out_abs/report" >/dev/null)
  # The landscapes themselves are the shared files: their 40,000 measurements as CSV only repeat them.
  rm -f "$out/report/measurements.csv"
  echo "wrote $out/report/report.md" >&2
fi

if [[ " $parts " == *" told "* ]]; then
  for c in "${cases[@]}"; do
    IFS='|' read -r name device kernel problem <<<"$c"
    for share in 0.2 0.5; do
      for s in $told_strategies; do
        # shellcheck disable=SC2086  # the problem options are words
        "$mmtune" simulate --db "$db" --device "$device" --kernel "$kernel" $problem \
          --strategy "$s" --seeds "$told_seeds" --budget 1000 --told "$share" --json |
          python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; r["share"]=float(sys.argv[1]); print(json.dumps(r))' "$share"
      done
    done >"$out/told-$name.jsonl"
    echo "$name told done" >&2
  done
  python3 "$root/bench/replay_tables.py" told "$out" "$told_seeds"
  echo "wrote $out/told.md" >&2
fi

if [[ " $parts " == *" shape "* ]]; then
  for c in "${cases[@]}"; do
    IFS='|' read -r name device kernel problem <<<"$c"
    # shellcheck disable=SC2086  # the problem options are words
    "$mmtune" simulate --db "$db" --device "$device" --kernel "$kernel" $problem --landscape \
      --json >"$out/shape-$name.json"
  done
  python3 "$root/bench/replay_tables.py" shape "$out" -
  echo "wrote $out/shape.md" >&2
fi
