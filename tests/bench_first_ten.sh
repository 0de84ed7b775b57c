#!/usr/bin/env bash
# bench/first_ten.py on a real tune: a small tune on PoCL's pthread device, then the script's
# side-by-side re-measurement of the leader after 10 evaluations and the final best.
# Usage: bench_first_ten.sh MMTUNE SOURCE_DIR
set -euo pipefail
mmtune=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/t.db
"$mmtune" -q tune --device pthread --n 96 --budget 24 --time-limit none --db "$db" >/dev/null
python3 "$source_dir/bench/first_ten.py" --db "$db" --sessions 1 --rounds 2 --mmtune "$mmtune" \
  --device pthread --out "$work/ft.json" 2>/dev/null
python3 - "$db" "$work/ft.json" <<'EOF'
import json, sqlite3, sys
db, ft = sys.argv[1:]
con = sqlite3.connect(db)
[e] = json.load(open(ft))
assert e["session_id"] == 1 and e["problem"] == {"m": 96, "n": 96, "k": 96, "precision": 32,
                                                 "batch": 1}, e
# The leader after 10: the fastest of the session's first 10 evaluations (the baselines aside).
first = con.execute("SELECT kernel, config, status, gflops FROM measurements WHERE session_id = 1 "
                    "AND kernel NOT IN ('naive', 'classic') ORDER BY id LIMIT 10").fetchall()
ok = [r for r in first if r[2] == "Ok"]
lead = max(ok, key=lambda r: r[3])
assert (e["early"]["kernel"], e["early"]["config"]) == lead[:2], (e["early"], lead)
# The final best: what the tune stored as its best.
best = con.execute("SELECT kernel, config FROM best WHERE m = 96 AND n = 96 AND k = 96 "
                   "ORDER BY gflops DESC LIMIT 1").fetchone()
assert (e["best"]["kernel"], e["best"]["config"]) == best, (e["best"], best)
if tuple(lead[:2]) == best:
    assert e["rounds"] == 0 and e["ratio"] == 1.0, e
else:
    # Both ran in every round, and the ratio is the ratio of the medians of what they ran at.
    f = e["figures"]
    assert e["rounds"] == 2 and len(f["early"]) == 2 and len(f["best"]) == 2, e
    assert all(0 < g < 1e5 for g in f["early"] + f["best"]), f
    med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:][:2]) / 2
    assert abs(e["ratio"] - med(f["early"]) / med(f["best"])) < 1e-9, e
print("first_ten ok:", e["ratio"])
EOF
