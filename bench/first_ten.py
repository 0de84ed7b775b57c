#!/usr/bin/env python3
"""How good each tune was after 10 evaluations, re-measured side by side (issue #21, goal 2).

A tune's "best of its first 10 evaluations / best" as the search measured it compares one figure
against the highest of a few hundred noisy ones, which is inflated by the noise alone (the best
of many draws). This script takes, per tune session of DB, the configuration that led after 10
evaluations and the session's final best, and runs both with `mmtune run`, alternating, ROUNDS
times each on the same problem: the ratio of their medians says how close the warm start came.

  bench/first_ten.py --db results/.work/perf.db --sessions 1,2,3 --out first-ten.json

Called by bench/perf.sh after its benches; the CPU must be idle. Writes a JSON list, one object
per session: its problem, both configurations, the figures of every round, the medians and the
ratio (1.0 without a run when the leader after 10 is the final best).
"""
import argparse
import json
import sqlite3
import statistics
import subprocess
import sys


def leaders(con, session):
    """(kernel, config) leading after 10 evaluations and at the end, by the search's figures."""
    rows = con.execute(
        "SELECT kernel, config, gflops FROM measurements WHERE session_id = ? AND status = 'Ok' "
        "AND gflops > 0 AND kernel NOT IN ('naive', 'classic') ORDER BY id", (session,)).fetchall()
    # Evaluations are counted over every measured row (failures too), as the tune counts them.
    first = con.execute(
        "SELECT id FROM measurements WHERE session_id = ? AND kernel NOT IN ('naive', 'classic') "
        "ORDER BY id LIMIT 1 OFFSET 9", (session,)).fetchone()
    if not rows:
        return None, None
    cut = first[0] if first else None
    early_rows = con.execute(
        "SELECT kernel, config, gflops FROM measurements WHERE session_id = ? AND status = 'Ok' "
        "AND gflops > 0 AND kernel NOT IN ('naive', 'classic') AND (? IS NULL OR id <= ?) "
        "ORDER BY gflops DESC LIMIT 1", (session, cut, cut)).fetchone()
    # The final best: what the tune left in the best table for its problem (its confirmation).
    s = con.execute("SELECT device_id, m, n, k, precision, layout, trans_a, trans_b, batch "
                    "FROM sessions WHERE id = ?", (session,)).fetchone()
    best = con.execute(
        "SELECT kernel, config FROM best WHERE device_id = ? AND m = ? AND n = ? AND k = ? AND "
        "precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? AND batch = ? "
        "ORDER BY gflops DESC LIMIT 1", s).fetchone()
    if best is None:  # no best stored: the session's fastest measurement
        best = max(rows, key=lambda r: r[2])[:2]
    return (early_rows[0], early_rows[1]) if early_rows else None, tuple(best)


def problem_args(con, session):
    m, n, k, precision, layout, ta, tb, batch = con.execute(
        "SELECT m, n, k, precision, layout, trans_a, trans_b, batch FROM sessions WHERE id = ?",
        (session,)).fetchone()
    args = ["--m", str(m), "--n", str(n), "--k", str(k), "--precision", str(precision),
            "--layout", layout]
    if ta:
        args.append("--trans-a")
    if tb:
        args.append("--trans-b")
    if batch != 1:
        args += ["--batch", str(batch)]
    return args, {"m": m, "n": n, "k": k, "precision": precision, "batch": batch}


def run(mmtune, device, problem, kernel, config):
    """Whole-routine GFLOPS of one `mmtune run`, or None when it did not run Ok."""
    out = subprocess.run([mmtune, "-q", "run", "--device", device, *problem, "--kernel", kernel,
                          "--config", config, "--json"], capture_output=True, text=True)
    try:
        m = json.loads(out.stdout)["measurement"]
    except (ValueError, KeyError):
        return None
    return m["gflops"] if m.get("status") == "Ok" else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--sessions", required=True, help="comma-separated session ids")
    ap.add_argument("--out", required=True)
    ap.add_argument("--mmtune", default="build/tuner/mmtune")
    ap.add_argument("--device", default="pthread")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    results = []
    for session in (int(s) for s in a.sessions.split(",") if s):
        early, best = leaders(con, session)
        if early is None:
            continue
        args, problem = problem_args(con, session)
        entry = {"session_id": session, "problem": problem, "early": {"kernel": early[0],
                 "config": early[1]}, "best": {"kernel": best[0], "config": best[1]}}
        if early == best:
            entry.update(ratio=1.0, rounds=0)
        else:
            figures = {"early": [], "best": []}
            for r in range(a.rounds):  # alternate, first one then the other, then swapped
                order = ("early", "best") if r % 2 == 0 else ("best", "early")
                for which in order:
                    g = run(a.mmtune, a.device, args, *(early if which == "early" else best))
                    if g is not None:
                        figures[which].append(g)
            entry.update(rounds=a.rounds, figures=figures)
            if figures["early"] and figures["best"]:
                me, mb = statistics.median(figures["early"]), statistics.median(figures["best"])
                entry.update(early_median=me, best_median=mb, ratio=me / mb)
            else:
                entry["ratio"] = None
                print(f"first_ten.py: session {session}: a configuration did not run",
                      file=sys.stderr)
        results.append(entry)
        print(f"session {session} {problem}: {entry['ratio']}", file=sys.stderr)
    with open(a.out, "w") as fh:
        json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
