#!/usr/bin/env bash
# `hugetune run` with a fixed count (`--repetitions 5`, the method before the adaptive rule)
# against the default adaptive rule, alternated on one machine (root; each run puts the pools
# back), RUNS of each: the median wall time of each and their ratio, the share of runs giving
# each method's modal decision, the spread of the confidence over the runs, and how many samples
# each point got and why measuring stopped. The issue's goals are printed beside the figures. A
# measurement: prints, asserts nothing; exits 77 when it cannot run here.
#     usage: tests/bench/run_adaptive.sh HUGETUNE [RUNS, default 10]
set -eu
bin=$1
runs=${2:-10}
if [[ $(id -u) -ne 0 || ! -d /sys/kernel/mm/hugepages ]]; then
    echo "run_adaptive: needs root and hugetlb; skipped"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
one_run() {
    local method=$1 i=$2 start end
    local args=()
    [[ $method == fixed ]] && args=(--repetitions 5)
    start=$(date +%s.%N)
    "$bin" run "${args[@]}" --report "$work/$method-$i.json" >/dev/null 2>"$work/err" ||
        { cat "$work/err" >&2; echo "$method run $i failed" >&2; exit 1; }
    end=$(date +%s.%N)
    python3 -c "print($end - $start)" >"$work/$method-$i.wall"
}
echo "load before: $(cut -d" " -f1-3 /proc/loadavg)"
echo "runs: $runs of each, alternated (odd runs fixed first, even runs adaptive first)"
for ((i = 1; i <= runs; i++)); do
    if ((i % 2)); then one_run fixed "$i"; one_run adaptive "$i"
    else one_run adaptive "$i"; one_run fixed "$i"; fi
done
echo "huge pages after the runs: $(cat /proc/sys/vm/nr_hugepages); load after: $(cut -d" " -f1-3 /proc/loadavg)"
python3 - "$work" "$runs" <<'PY'
import collections, json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
summary = {}
for method, label in (("fixed", "--repetitions 5"), ("adaptive", "adaptive (default)")):
    walls, decisions, confidences, stops, counts = [], [], [], collections.Counter(), []
    for i in range(1, runs + 1):
        walls.append(float(open(f"{work}/{method}-{i}.wall").read()))
        r = json.load(open(f"{work}/{method}-{i}.json"))
        rec = r["recommendation"]
        decisions.append(f'{rec["decision"]} {rec["hugepage_alloc_threads"]}')
        if rec.get("confidence") is not None:
            confidences.append(rec["confidence"])
        sampling = r["sweep"].get("sampling", {})
        stops[sampling.get("stopped", "-")] += 1
        counts.append(sum(len(p["samples_seconds"]) for p in r["sweep"]["points"]) +
                      sum(len(p["samples_seconds"]) for p in r["sweep"].get("hvo_pass", {}).get("points", [])))
    modal, modal_runs = collections.Counter(decisions).most_common(1)[0]
    spread = max(confidences) - min(confidences) if confidences else None
    summary[method] = (statistics.median(walls), modal_runs / runs, spread)
    print(f"\n{label}")
    print(f"  wall time: median {statistics.median(walls):.2f} s, "
          f"{min(walls):.2f}..{max(walls):.2f} s; each: " + " ".join(f"{w:.2f}" for w in walls))
    print(f"  decisions: " + ", ".join(f"{d} x{n}" for d, n in collections.Counter(decisions).most_common()) +
          f"; modal '{modal}' in {modal_runs} of {runs} ({modal_runs / runs:.0%})")
    print(f"  confidence: " + (" ".join(f"{c:.0%}" for c in confidences) +
          f"; {min(confidences):.0%}..{max(confidences):.0%} (spread {spread * 100:.0f} points), "
          f"{runs - len(confidences)} decided by rule" if confidences else "none (every run decided by rule)"))
    print(f"  timed samples per run: " + " ".join(str(c) for c in counts) +
          "; stopped: " + ", ".join(f"{k} x{n}" for k, n in stops.most_common()))
fw, fs, fsp = summary["fixed"]
aw, ash, asp = summary["adaptive"]
print("\nadaptive against --repetitions 5 (the issue's goals in brackets)")
print(f"  median wall time: {aw:.2f} s against {fw:.2f} s, ratio {aw / fw:.2f} [at most 0.50]")
print(f"  share of runs giving the modal decision: {ash:.0%} against {fs:.0%} [no lower]")
if asp is not None and fsp is not None:
    print(f"  spread of confidence: {asp * 100:.0f} points against {fsp * 100:.0f} [no wider]")
else:
    print("  spread of confidence: not comparable (a method had every run decided by rule)")
PY
