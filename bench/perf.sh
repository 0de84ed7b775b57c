#!/usr/bin/env bash
# Performance against the host's BLAS and CLBlast, side by side, in one command:
#
#   bench/perf.sh
#
# On one device (default: PoCL's pthread device, the host CPU), in fp32 and fp64: measures the
# FMA peak (`mmtune roofline`), tunes every square size and every skinny shape with the default
# tune (`mmtune tune`, its time limit TIME_LIMIT), then runs `mmtune bench` on all of them in one
# process (tuned whole routine, the tiled default, the FMA peak kernel, CLBlast with its own
# parameters, the host BLAS)
# and writes results/perf/: the bench tables as printed, and README.md with the ratios (tuned /
# OpenBLAS, tuned / CLBlast, tuned / FMA peak), the machine's CPU model, the date and the commit.
# The README's "Performance" table (between its perf:begin and perf:end marks) is regenerated from
# the same figures. The CPU must otherwise be idle; with the defaults about 1 h 40 min on 2 cores.
#
# Environment: DEVICE (pthread), TIME_LIMIT (8m: the default tune's; e.g. 2m for a quicker run,
# which the README then states), SIZES ("512 1024 2048 4096"), SHAPES ("8x4096x4096 4096x4096x64
# 4096x1x4096 1000x700x333"), BATCHED ("64x64x64x1000": MxNxKxBATCH, strided-batched GEMMs, the
# host BLAS looping over the items, CLBlast's GemmStridedBatched), FP64_SIZES ("512 1024 2048"),
# OUT (results/perf), PERF_DB (the working database, default results/.work/perf.db; resumed if it
# exists), PERF_KEEP_CORETYPE (1: keep a preset OPENBLAS_CORETYPE), FIRST_TEN_ROUNDS (5: rounds
# of bench/first_ten.py, each tune's leader after 10 evaluations against its final best).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Paths relative to the repository: the stored sessions and the printed tables name them.
cd "$root"
mmtune=${MMTUNE_BUILD_DIR:-build}/tuner/mmtune
device=${DEVICE:-pthread}
limit=${TIME_LIMIT:-8m}
read -r -a sizes <<<"${SIZES:-512 1024 2048 4096}"
read -r -a shapes <<<"${SHAPES:-8x4096x4096 4096x4096x64 4096x1x4096 1000x700x333}"
read -r -a fp64_sizes <<<"${FP64_SIZES:-512 1024 2048}"
read -r -a batched <<<"${BATCHED:-64x64x64x1000}"
out=${OUT:-results/perf}
db=${PERF_DB:-results/.work/perf.db}
export POCL_DEVICES=${POCL_DEVICES:-"pthread basic"}
# OpenBLAS 0.3.21 runs generic SSE3 kernels on CPU models it does not know (about a fifth of the
# speed): name the widest core the CPU's features allow. A preset core narrower than that (an
# environment that exports Haswell on an AVX-512 machine) would halve the baseline, so it is
# replaced, saying so; PERF_KEEP_CORETYPE=1 keeps whatever the caller set.
widest=""
if grep -qw avx512f /proc/cpuinfo; then
  widest=SkylakeX
elif grep -qw avx2 /proc/cpuinfo; then
  widest=Haswell
fi
if [ -n "$widest" ] && [ "${PERF_KEEP_CORETYPE:-0}" != 1 ] &&
  [ "${OPENBLAS_CORETYPE:-}" != "$widest" ]; then
  [ -z "${OPENBLAS_CORETYPE:-}" ] ||
    echo "perf.sh: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE replaced by $widest, the widest core this CPU runs (PERF_KEEP_CORETYPE=1 keeps it)" >&2
  export OPENBLAS_CORETYPE=$widest
fi
[ -x "$mmtune" ] || "$root/scripts/dev.sh" build
mkdir -p "$out" "$(dirname "$db")"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src kernels tuner || commit="$commit (with local changes)"
log=$out/commands.txt
: >"$log"
run() {  # logs and runs one mmtune command
  echo "mmtune $*" >>"$log"
  echo "+ mmtune $*" >&2
  "$mmtune" "$@"
}
shape_args() {  # MxNxK -> --m M --n N --k K
  local m n k
  IFS=x read -r m n k <<<"$1"
  echo "--m $m --n $n --k $k"
}

for prec in 32 64; do
  if [ "$prec" = 32 ]; then list=("${sizes[@]}"); else list=("${fp64_sizes[@]}"); fi
  run roofline --device "$device" --precision "$prec" --db "$db" --json >"$out/roofline-fp$prec.json"
  for n in "${list[@]}"; do
    run tune --device "$device" --precision "$prec" --n "$n" --time-limit "$limit" --db "$db" \
      --json -q >"$out/tune-fp$prec-$n.json"
  done
  if [ "$prec" = 32 ]; then
    for s in "${shapes[@]}"; do
      read -r -a dims <<<"$(shape_args "$s")"
      run tune --device "$device" --precision 32 "${dims[@]}" --time-limit "$limit" --db "$db" \
        --json -q >"$out/tune-fp32-$s.json"
    done
    for s in "${batched[@]}"; do
      read -r -a dims <<<"$(shape_args "${s%x*}")"
      run tune --device "$device" --precision 32 "${dims[@]}" --batch "${s##*x}" \
        --time-limit "$limit" --db "$db" --json -q >"$out/tune-fp32-batch-$s.json"
    done
  fi
done

# Both benches after every tune, so that their rows are measured minutes apart at most.
square=$(IFS=,; echo "${sizes[*]}")
skinny=$(IFS=,; echo "${shapes[*]}")
run bench --device "$device" --precision 32 --n "$square" --shape "$skinny" --no-baselines \
  --db "$db" --json >"$out/bench-fp32.json"
square64=$(IFS=,; echo "${fp64_sizes[*]}")
run bench --device "$device" --precision 64 --n "$square64" --no-baselines --db "$db" \
  --json >"$out/bench-fp64.json"
echo "[]" >"$out/bench-batched.json"
for s in "${batched[@]}"; do  # one bench per batch (--batch applies to every shape of a run)
  run bench --device "$device" --precision 32 --shape "${s%x*}" --batch "${s##*x}" \
    --no-baselines --db "$db" --json >"$out/bench-batch-$s.json"
  python3 -c 'import json, sys; a, b = sys.argv[1:]; json.dump(json.load(open(a)) + json.load(open(b)), open(a, "w"), indent=1)' \
    "$out/bench-batched.json" "$out/bench-batch-$s.json"
  rm "$out/bench-batch-$s.json"
done
# The warm start re-measured: each tune's leader after 10 evaluations against its final best,
# side by side (a figure against the highest of hundreds is inflated by noise alone).
sessions=$(python3 -c 'import json, sys; print(",".join(str(json.load(open(f))["session_id"]) for f in sys.argv[1:]))' "$out"/tune-*.json)
python3 "$root/bench/first_ten.py" --db "$db" --sessions "$sessions" --mmtune "$mmtune" \
  --device "$device" --rounds "${FIRST_TEN_ROUNDS:-5}" --out "$out/first-ten.json"
finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cpu=$(lscpu | sed -n 's/^Model name: *//p')
# Virtual machines often hide the model ("AMD EPYC"): family and model tell generations apart.
cpu="$cpu (CPU family $(lscpu | sed -n 's/^CPU family: *//p'), model $(lscpu | sed -n 's/^Model: *//p'))"

python3 - "$out" "$started" "$finished" "$commit" "$cpu" "$(nproc)" "$limit" \
  "${OPENBLAS_CORETYPE:-unset}" "$db" <<'EOF'
import json, os, sqlite3, sys
out, started, finished, commit, cpu, cores, limit, coretype, db = sys.argv[1:]

def table(prec, rows_file):
    rows = json.load(open(os.path.join(out, rows_file)))
    peak = json.load(open(os.path.join(out, f"roofline-fp{prec}.json")))["peak_gflops"]
    by_shape = {}
    for r in rows:
        shape = (r["m"], r["n"], r["k"], r.get("batch", 1))
        by_shape.setdefault(shape, {})[r["subject"]] = r
    lines = [f"| shape (fp{prec}) | tuned GFLOPS | host BLAS | tuned / BLAS | CLBlast | tuned / CLBlast | FMA peak | % of FMA peak | tuned parameters |",
             "|---|---|---|---|---|---|---|---|---|"]
    def g(r):
        return r["gflops"] if r and r["status"] == "Ok" else None
    def f(x, fmt="{:.1f}"):
        return fmt.format(x) if x is not None else "-"
    for (m, n, k, batch), s in by_shape.items():
        name = str(n) if m == n == k else f"{m}x{n}x{k}"
        if batch != 1:
            name = f"{batch} x {m}x{n}x{k} (batched)"
        t, b, c = g(s.get("tuned")), g(s.get("host-blas")), g(s.get("clblast"))
        # The peak kernel timed in the same rounds as the GEMMs (the roofline's where missing).
        p = g(s.get("fma-peak"))
        # Tuned against a subject: the bench's ratio paired by round (vs_tuned, the subject over
        # tuned, exactly reciprocal), where the drift between rounds drops out.
        # (JSON from before the pairing: the ratio of the medians.)
        def over(subject):
            r = s.get(subject)
            if not t or not g(r):
                return None
            return 1 / r["vs_tuned"] if r.get("vs_tuned") else t / g(r)
        share = (over("fma-peak") or t / peak) * 100 if t else None
        note = s["tuned"]["note"].split(";")[0] if "tuned" in s else ""
        lines.append(f"| {name} | {f(t)} | {f(b)} | {f(over('host-blas'), '{:.2f}')} | {f(c)} | "
                     f"{f(over('clblast'), '{:.1f}')} | {f(p or peak, '{:.0f}')} | "
                     f"{f(share, '{:.0f}')} | {note} |")
    return lines, peak

# What each tune cost and how early it was good: the shares of its time spent building kernels
# and timing the naive and classic baselines, and its best within the first 10 evaluations (the
# warm start: library default, the device's bests at other shapes) against its best overall,
# both as the search measured them.
def tunes():
    lines = ["| tune | evaluations | total s | building | baselines | best of first 10 / best | same, configurations at their best figure | re-measured side by side |",
             "|---|---|---|---|---|---|---|---|"]
    con = sqlite3.connect(db)
    side = {e["session_id"]: e for e in json.load(open(os.path.join(out, "first-ten.json")))}

    def remeasured(session):
        e = side.get(session)
        if not e or e.get("ratio") is None:
            return "-"
        if not e["rounds"]:
            return "1.00 (the same configuration)"
        return f"{e['ratio']:.2f} ({e['early_median']:.0f} / {e['best_median']:.0f} GFLOPS)"

    def found(session):
        # A configuration measured again later (the drift reference, the finalists) may be
        # faster then: compare configurations, each at its highest figure in the tune.
        rows = con.execute("SELECT kernel, config, status, gflops FROM measurements WHERE "
                           "session_id = ? AND kernel NOT IN ('naive', 'classic') ORDER BY id",
                           (session,)).fetchall()
        top = {}
        for kernel, config, status, gflops in rows:
            if status == "Ok" and gflops:
                top[(kernel, config)] = max(top.get((kernel, config), 0), gflops)
        early = [top.get((k, c), 0) for k, c, _, _ in rows[:10]]
        return max(early) / max(top.values()) if top and early else None
    names = sorted((f for f in os.listdir(out) if f.startswith("tune-") and f.endswith(".json")),
                   key=lambda f: os.path.getmtime(os.path.join(out, f)))
    for name in names:
        j = json.load(open(os.path.join(out, name)))
        sec, curve = j["seconds"], j["best_gflops_by_evaluation"]
        early = max(curve[:10]) / max(curve) if curve and max(curve) > 0 else None
        label = name[len("tune-"):-len(".json")].replace("-", " ", 1)
        lines.append(f"| {label} | {j['evaluations']} | {sec['total']:.0f} | "
                     f"{100 * sec['build'] / sec['total']:.0f} % | "
                     f"{100 * sec['baselines'] / sec['total']:.0f} % | "
                     + (f"{early:.2f}" if early is not None else "-") + " | "
                     + (lambda x: f"{x:.2f}" if x is not None else "-")(found(j["session_id"]))
                     + f" | {remeasured(j['session_id'])} |")
    return lines

fp32, peak32 = table(32, "bench-fp32.json")
fp64, peak64 = table(64, "bench-fp64.json")
batch32, _ = table(32, "bench-batched.json")
section = [
    f"Measured by `bench/perf.sh` on {cpu} ({cores} cores), PoCL pthread device, {started} to "
    f"{finished} UTC, commit {commit}; each shape tuned by the default tune with time limit "
    f"{limit}, then all benchmarked side by side in one `mmtune bench` run (whole routine, wall "
    f"clock per call, median; ratios and the share of the peak: the median over the bench's rounds of "
    f"each round's ratio, so that the machine's drift between rounds drops out (CLBlast, timed apart: "
    f"the ratio of the medians); host BLAS: OpenBLAS through CBLAS on the same cores, "
    f"OPENBLAS_CORETYPE={coretype}, since OpenBLAS 0.3.21 runs generic kernels on CPU models it "
    "does not know). FMA peak: the multiply-add kernel of `mmtune roofline` timed by the bench "
    "in the same rounds as the GEMMs of the row (`fma-peak` rows; `mmtune roofline` alone, before "
    f"the tunes: {peak32:.0f} GFLOPS fp32, {peak64:.0f} fp64). The machine's "
    "speed drifts by up to a third within minutes: compare within a row. Batched rows: one call "
    "of `batch` GEMMs (strided-batched), the host BLAS one call per item, CLBlast "
    "`GemmStridedBatched`.",
    "",
] + fp32 + [""] + fp64 + [""] + batch32
tuning = tunes()
with open(os.path.join(out, "README.md"), "w") as fh:
    fh.write("# Performance against OpenBLAS and CLBlast\n\n" + "\n".join(section) + "\n\n"
             "## The tunes\n\nIn the order they ran (each later one starts from the bests "
             "stored before it):\n\n" + "\n".join(tuning) + "\n\n"
             "Files: `bench-fp32.json`, `bench-fp64.json`, `bench-batched.json` (every row, as `mmtune bench --json` "
             "printed it), `tune-*.json` (each tune's summary), `roofline-fp*.json`, "
             "`first-ten.json` (each tune's leader after 10 evaluations and its final best, re-measured "
             "side by side by `bench/first_ten.py`: the last column above), "
             "`commands.txt` (the commands, in order).\n")
readme = "README.md"
text = open(readme).read()
begin, end = "<!-- perf:begin (bench/perf.sh) -->", "<!-- perf:end -->"
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    open(readme, "w").write(head + begin + "\n" + "\n".join(section) + "\n" + end + tail)
EOF
echo "wrote $out/README.md and the README's performance table" >&2
