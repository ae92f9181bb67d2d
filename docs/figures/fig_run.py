"""Figures of hugetune's own runs on the 2-CPU development machine: the summary `run` prints,
reruns side by side (tests/bench/run_repeat.sh), `verify --log` of a large log and the sweep
benchmark (tests/bench/results/)."""
import re

from core import median, show

M = "docs/measurements/"
SUMMARY = M + "run-summary-final-2026-12-03.txt"
REPEAT = M + "run-repeat-2026-12-05.txt"
VERIFY_LOG = M + "verify-log-2026-12-03.txt"
BENCH_SWEEP = "tests/bench/results/bench_sweep-2026-12-03.txt"


def summary_block(r):
    """The console summary as `run` printed it, up to the report's own line, as a code block."""
    lines = r.file(SUMMARY).body.split("\n")
    end = next(i for i, line in enumerate(lines) if line.startswith("report written to "))
    lines = lines[:end]
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join("    " + line if line else "" for line in lines)


def repeat_rows(r, path):
    """run_repeat.sh's table: row name -> the cells of each run."""
    rows = {}
    for line in r.file(path).body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) > 1 and cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


def repeat_block(r, path):
    """The reruns' table as the README shows it: the pool once, above the table."""
    rows = repeat_rows(r, path)
    runs = len(rows["recommendation"])
    out = ["| | " + " | ".join(f"run {i}" for i in range(1, runs + 1)) + " |",
           "| --- |" + " --- |" * runs]
    for name, cells in rows.items():
        if name == "predicted boot allocation":
            name, cells = "predicted boot allocation, 1 TiB", [c.split(" for ")[0] for c in cells]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def seconds_of(cell):
    return float(re.match(r"([\d.]+) s", cell).group(1))


def register(r):
    r.add("run.summary", SUMMARY, lambda: summary_block(r), block=True)
    machine = lambda: r.file(REPEAT).header["machine"]  # noqa: E731
    r.add("run_repeat.machine_cpus", REPEAT, lambda: re.match(r"(\d+) CPUs ", machine()).group(1))
    r.add("run_repeat.machine_gib", REPEAT, lambda: re.search(r", (\d+) GiB,", machine()).group(1))

    wall = lambda: r.file(VERIFY_LOG).grab(r"(\d+):(\d\d\.\d+) wall", (1, 2))  # noqa: E731
    r.add("verify_log.seconds", VERIFY_LOG, lambda: show(int(wall()[0]) * 60 + float(wall()[1]), 2))
    r.grab("verify_log.peak_mb", VERIFY_LOG, r"wall, (\d+) MB peak")
    r.grab("verify_log.log_mb", VERIFY_LOG, r"verify --log of (\d+) MB")
    r.grab("verify_log.boots", VERIFY_LOG, r"verify --log of \d+ MB \((\d+) boots\)")

    for t in (1, 2):
        r.grab(f"bench_sweep.placement_ratio_t{t}", BENCH_SWEEP, rf"N = {t}: .*time ratio boot/node-local ([\d.]+)")
    r.grab("bench_sweep.zero_gib_s_t2", BENCH_SWEEP, r"harness median [\d.]+ ms \(([\d.]+) GiB/s\)")
    r.number("bench_sweep.zero_gib_s_per_thread", BENCH_SWEEP,
             lambda: float(r.value("bench_sweep.zero_gib_s_t2")) / 2, 1)

    register_repeat(r)
    register_more(r)
    register_adaptive(r)


def register_repeat(r):
    for key, path in (("run_repeat", REPEAT), ("run_repeat_1203", M + "run-repeat-2026-12-03.txt"),
                      ("run_repeat_10", M + "run-repeat-10-2026-12-03.txt")):
        register_repeat_file(r, key, path)
    load = lambda: [float(x) for x in r.file(REPEAT).grab_all(r"^load (?:before|after): ([\d.]+) ")]  # noqa: E731
    r.number("run_repeat.load_min", REPEAT, lambda: min(load()), 1)
    r.number("run_repeat.load_max", REPEAT, lambda: max(load()), 1)


def register_repeat_file(r, key, path):
    """run_repeat.sh's table of one stored run: the table itself and what the prose says of it."""
    rows = lambda: repeat_rows(r, path)  # noqa: E731
    r.add(f"{key}.table", path, lambda: repeat_block(r, path), block=True, optional=key != "run_repeat")
    r.add(f"{key}.runs", path, lambda: str(len(rows()["recommendation"])), optional=True)
    predicted = lambda: [seconds_of(c) for c in rows()["predicted boot allocation"]]  # noqa: E731
    r.number(f"{key}.predicted_min_s", path, lambda: min(predicted()), 2, optional=True)
    r.number(f"{key}.predicted_max_s", path, lambda: max(predicted()), 2, optional=True)
    r.number(f"{key}.predicted_spread_pct", path,
             lambda: (max(predicted()) - min(predicted())) / 2 / median(predicted()) * 100, optional=True)
    r.add(f"{key}.same_recommendation", path,
          lambda: str(max(rows()["recommendation"].count(c) for c in rows()["recommendation"])), optional=True)
    r.add(f"{key}.by_rule", path, lambda: str(rows()["confidence"].count("by rule")), optional=True)
    confidences = lambda: [int(c.rstrip("%")) for c in rows()["confidence"] if c.endswith("%")]  # noqa: E731
    r.add(f"{key}.confidence_min_pct", path, lambda: str(min(confidences())), optional=True)
    r.add(f"{key}.confidence_max_pct", path, lambda: str(max(confidences())), optional=True)
    for phase in ("alloc", "zero"):
        cells = lambda phase=phase: rows()[f"fitted optimum of the {phase} phase"]  # noqa: E731
        r.add(f"{key}.{phase}_amdahl", path, lambda cells=cells: str(sum(c.startswith("none") for c in cells())), optional=True)
        optima = lambda cells=cells: [float(c.split()[0]) for c in cells() if not c.startswith("none")]  # noqa: E731
        r.number(f"{key}.{phase}_optimum_min", path, lambda optima=optima: min(optima()), 1, optional=True)
        r.number(f"{key}.{phase}_optimum_max", path, lambda optima=optima: max(optima()), 1, optional=True)
    walls = lambda: [seconds_of(c) for c in rows()["wall time of the run"]]  # noqa: E731
    r.number(f"{key}.wall_min_s", path, lambda: min(walls()), 1, optional=True)
    r.number(f"{key}.wall_max_s", path, lambda: max(walls()), 1, optional=True)


APPLY_KILLS = M + "apply-kills-2026-12-03.txt"
HVO_PASS = M + "hvo-pass-sweep-2026-12-03.txt"


def register_more(r):
    r.grab("apply_kills.apply_points", APPLY_KILLS, r"apply_kills: (\d+) kill points, ")
    r.grab("apply_kills.rollback_points", APPLY_KILLS, r"apply_kills: (\d+) kill points of rollback")
    took = lambda: [float(x) for x in r.file(HVO_PASS).grab_all(r"sweep took ([\d.]+) s;")]  # noqa: E731
    r.number("hvo_pass.sweep_min_s", HVO_PASS, lambda: min(took()), 1)
    r.number("hvo_pass.sweep_max_s", HVO_PASS, lambda: max(took()), 1)
    r.add("hvo_pass.table", HVO_PASS, lambda: hvo_pass_block(r), block=True)


def hvo_pass_block(r):
    """tests/bench/hvo_pass_sweep.sh's lines as a table."""
    out = ["| sweep | took | grow at 1 thread, HVO on (the pass) | grow at 1 thread, HVO off | HVO row |",
           "| --- | --- | --- | --- | --- |"]
    for line in r.file(HVO_PASS).body.splitlines():
        m = re.match(r"(--threads [\d,]+): sweep took ([\d.]+) s; grow at 1 thread, HVO on \(pass\): ([\d.-]+ ms) \(\d+\); "
                     r"HVO off \(sweep\): ([\d.-]+ ms) \(\d+\); HVO row: (predicted|no fit)", line)
        if m:
            row = "no fit (two thread counts)" if m.group(5) == "no fit" and "2 distinct" in line else m.group(5)
            out.append(f"| `{m.group(1)}` | {m.group(2)} s | {m.group(3)} | {m.group(4)} | {row} |")
    return "\n".join(out)


ADAPTIVE = M + "adaptive-run-2026-12-06.txt"
ADAPTIVE_QUIET = M + "adaptive-run-2026-12-06-quiet.txt"
# The rule as it is: every point once, then the candidates from two samples a side.
ADAPTIVE_ONCE = M + "adaptive-run-2026-12-07-quiet-b.txt"
# The same rule and fit where the data decide: a simulated server (tests/bench/bench_adaptive.cpp).
ADAPTIVE_SIMULATED = M + "adaptive-simulated-2026-12-07.txt"
# The same before the fit took the rule's test: its rank test alone.
ADAPTIVE_RANK_ONLY = M + "adaptive-simulated-2026-12-07-rank-only.txt"
REPETITIONS = M + "run-repetitions-2026-12-06.txt"
ESTIMATE = M + "adaptive-estimate-2026-12-07.txt"


def adaptive_block(r, path):
    """run_adaptive.sh's output after its load line, as a code block."""
    lines = r.file(path).body.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("runs: "))
    lines = [line for line in lines[start:] if not line.startswith("--- exit status")]
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join("    " + line if line else "" for line in lines)


def register_adaptive_once(r):
    """The same bench on the rule as it is (ADAPTIVE_ONCE)."""
    o = "run_adaptive_once."
    f = ADAPTIVE_ONCE
    r.add(o + "output", f, lambda: adaptive_block(r, f), block=True)
    r.grab(o + "runs", f, r"^runs: (\d+) of each")
    r.grab(o + "fixed_median_s", f, r"median wall time: [\d.]+ s against ([\d.]+) s")
    r.grab(o + "adaptive_median_s", f, r"median wall time: ([\d.]+) s against")
    r.grab(o + "ratio", f, r"median wall time: .* ratio ([\d.]+) ")
    r.grab(o + "adaptive_modal_pct", f, r"modal decision: (\d+)% against")
    r.grab(o + "fixed_modal_pct", f, r"modal decision: \d+% against (\d+)%")
    load = lambda: [float(x) for x in r.file(f).grab_all(r"load (?:before|after): ([\d.]+) ")]  # noqa: E731
    r.number(o + "load_max", f, lambda: max(load()), 1)
    samples = lambda: [int(x) for x in r.file(f).grab_all(r"timed samples per run: ([\d ]+);")[1].split()]  # noqa: E731
    r.number(o + "samples_min", f, lambda: min(samples()), 0)
    r.number(o + "samples_max", f, lambda: max(samples()), 0)
    sim = "run_adaptive_simulated."
    g = ADAPTIVE_SIMULATED
    ratios = lambda: r.file(g).grab_all(r"median timed seconds: .* ratio ([\d.]+) ")  # noqa: E731
    for i, name in enumerate(("quiet", "noisy", "flat")):
        r.add(sim + name + "_ratio", g, lambda i=i: ratios()[i])
    r.grab(sim + "trials", g, r"(\d+) sweeps of each")
    by_rule = lambda: sum(int(x) for x in r.file(g).grab_all(r"; (\d+) decided by rule"))  # noqa: E731
    r.number(sim + "decided_by_rule", g, by_rule, 0)
    modal = lambda: r.file(g).grab_all(r"modal in (\d+)%")  # noqa: E731
    r.number(sim + "modal_pct_min", g, lambda: min(int(x) for x in modal()), 0)
    lows = lambda: [int(x) for x in r.file(g).grab_all(r"confidence: median \d+%, (\d+)%\.\.")]  # noqa: E731
    r.number(sim + "confidence_min_pct", g, lambda: min(lows()), 0)
    # The adaptive sweeps of the first case (noise 3%) a rule decided: the second method printed.
    r.add(sim + "rank_only_by_rule", ADAPTIVE_RANK_ONLY,
          lambda: r.file(ADAPTIVE_RANK_ONLY).grab_all(r"; (\d+) decided by rule")[1])


def register_adaptive(r):
    """tests/bench/run_adaptive.sh (the adaptive rule against --repetitions 5, alternated) and
    tests/bench/sweep_estimate.sh (the sweep's timing model for the two)."""
    r.grab("run_adaptive.ratio", ADAPTIVE, r"median wall time: .* ratio ([\d.]+) ")
    load = lambda: [float(x) for x in r.file(ADAPTIVE).grab_all(r"load (?:before|after): ([\d.]+) ")]  # noqa: E731
    r.number("run_adaptive.load_min", ADAPTIVE, lambda: min(load()), 1)
    r.number("run_adaptive.load_max", ADAPTIVE, lambda: max(load()), 1)
    q = "run_adaptive_quiet."
    r.grab(q + "fixed_median_s", ADAPTIVE_QUIET, r"median wall time: [\d.]+ s against ([\d.]+) s")
    r.grab(q + "adaptive_median_s", ADAPTIVE_QUIET, r"median wall time: ([\d.]+) s against")
    r.grab(q + "ratio", ADAPTIVE_QUIET, r"median wall time: .* ratio ([\d.]+) ")
    register_adaptive_once(r)

    def run_median(n):
        return median([float(x) for x in r.file(REPETITIONS).grab_all(rf"^repetitions {n}: ([\d.]+) s$")])

    for n in (1, 2, 5):
        r.number(f"run_repetitions.median_{n}_s", REPETITIONS, lambda n=n: run_median(n), 2)
    r.number("run_repetitions.ratio_2_5", REPETITIONS, lambda: run_median(2) / run_median(5), 2)

    def seconds(label):
        return float(r.file(ESTIMATE).grab(rf"^{re.escape(label)}: \d+ timed repetitions, ([\d.]+) s$"))

    def round_of(fixture, counts):
        """One round of alloc and zero at `counts` per node: the plan at 2 repetitions less the
        plan at 1, so that what a plan spends once cancels."""
        label = f"{fixture}: alloc and zero at {counts} per node"
        return seconds(f"{label}, 2 repetitions") - seconds(f"{label}, 1 repetition")

    fixed = lambda: seconds("skylake-4node: fixed count 5")  # noqa: E731
    # Every point once, then the candidates (alloc and zero at every count: all fit in a node of
    # 36 hardware threads) a second time, and every one settled.
    settled = lambda: (seconds("skylake-4node: every point once") +  # noqa: E731
                       round_of("skylake-4node", "1,2,4,8,16,32"))
    # Two candidates of alloc and of zero left open to the maximum: three further rounds of them.
    two_open = lambda: settled() + 3 * round_of("skylake-4node", "1,2")  # noqa: E731
    r.number("sweep_estimate.server_fixed_s", ESTIMATE, fixed)
    r.number("sweep_estimate.server_settled_s", ESTIMATE, settled)
    r.number("sweep_estimate.server_two_open_s", ESTIMATE, two_open)
    r.number("sweep_estimate.server_settled_ratio", ESTIMATE, lambda: settled() / fixed(), 2)
    r.number("sweep_estimate.server_two_open_ratio", ESTIMATE, lambda: two_open() / fixed(), 2)
    r.number("sweep_estimate.vm_fixed_s", ESTIMATE, lambda: seconds("vm-1node: fixed count 5"))
    r.number("sweep_estimate.vm_settled_s", ESTIMATE,
             lambda: seconds("vm-1node: every point once") + round_of("vm-1node", "1,2"))
    r.number("sweep_estimate.vm_settled_ratio", ESTIMATE,
             lambda: (seconds("vm-1node: every point once") + round_of("vm-1node", "1,2")) /
             seconds("vm-1node: fixed count 5"), 2)
