"""Figures of the boot lab's stored runs (tests/vm/run-all.sh outputs in docs/measurements/ and
tests/vm/findings/): whole runs, the kernel's own allocation lines, the fleet_boots case and its
icount trials."""
import glob
import os
import re
from collections import defaultdict

from core import median, show, the_one

F = "tests/vm/findings/"
M = "docs/measurements/"
# Every stored run of all the amd64 cases, oldest first.
FULL_RUNS = (M + "ci-run-2026-12-03.txt", M + "ci-run-empty-cache-2026-12-03.txt",
             F + "placement-2026-12-03/vmtest-all.txt", F + "fleet-boots-2026-12-04/run-all.txt",
             F + "placement-2026-12-04/ci-vmtest-f0b19cf.txt", F + "placement-2026-12-04/vmtest-all-after.txt")
FLEET_BOOTS = F + "fleet-boots-2026-12-04/"
FLEET_RUNS = (("run.txt", "fleet_boots.log"), ("kvm-forced-run.txt", None), ("run-all.txt", "run-all-fleet_boots.log"),
              ("run-newer-binary.txt", None))
TRIALS = FLEET_BOOTS + "icount-trials.md"


def stored_outputs(r):
    """Every stored output of the lab: docs/measurements/ and tests/vm/findings/ text files."""
    found = glob.glob(r.path(M + "*.txt")) + glob.glob(r.path(F + "*/*.txt"))
    return sorted(os.path.relpath(p, r.root) for p in found)


def run_totals(r, path):
    passed, failed, wall = r.file(path).grab(r"^vmlab: (\d+) passed, (\d+) failed, wall time (\d+) s", (1, 2, 3))
    return int(passed), int(failed), int(wall)


def case_times(r, path):
    return [(name, int(s)) for name, s in re.findall(r"^vmlab: (?:PASS|FAIL) (\w+) \((\d+) s\)", r.file(path).body, re.M)]


def full_runs_block(r):
    out = ["| stored output | cases passed | failed | wall time | the longest case |", "| --- | --- | --- | --- | --- |"]
    for path in FULL_RUNS:
        passed, failed, wall = run_totals(r, path)
        name, longest = max(case_times(r, path), key=lambda c: c[1])
        failed_names = re.findall(r"^vmlab: FAIL (\w+)", r.file(path).body, re.M)
        failed_text = f"{failed} ({', '.join(failed_names)})" if failed else "0"
        out.append(f"| `{path}` | {passed} | {failed_text} | {wall} s | `{name}` {longest} s |")
    return "\n".join(out)


def allocation_lines(r, label, threads):
    """The times of the `boot_pool` case's lines (`boot pool:`, `oversubscribed:`) in every
    stored output, and the files they are in."""
    times, files = [], []
    for path in stored_outputs(r):
        found = re.findall(rf"^    {label}: .*allocation took (\d+)ms with hugepage_allocation_threads={threads}$",
                           r.file(path).body, re.M)
        if found:
            times += [int(t) for t in found]
            files.append(path)
    if not times:
        raise ValueError(f"no stored output holds a '{label}' line")
    return times, files


def page_size_lines(r):
    """The arm64 `page_sizes` case's two lines (64K then 2M) in every stored output."""
    pairs = []
    for path in stored_outputs(r):
        pairs += [(int(a), int(b)) for a, b in re.findall(
            r"^    lines: allocation took (\d+)ms;allocation took (\d+)ms;", r.file(path).body, re.M)]
    return pairs


def fleet_run(r, name, log):
    f = r.file(FLEET_BOOTS + name)
    loads = [float(x) for x in re.findall(r"load average: ([\d.]+),", f.body)]
    case = int(f.grab(r"^vmlab: PASS fleet_boots \((\d+) s\)"))
    at2 = f.grab(r"at 2 \(icount shift 4\): ([\d ]+) ms").split()
    at1 = f.grab(r"at 1 \(shift 2\): ([\d ]+) ms").split()
    answer = f.grab(r"^    status: (\w+): The boots settle on hugepage_alloc_threads=(\d+)", (2, 1))
    guests = None
    if log:
        ran = [float(x) for x in r.file(FLEET_BOOTS + log).grab_all(r"^vmlab: guest \S+ ran ([\d.]+) s")]
        guests = (min(ran), max(ran))
    return loads, case, at2, at1, answer, guests


def listed(values):
    return f"{values[0]} x {len(values)}" if len(set(values)) == 1 else ", ".join(values)


def fleet_runs_block(r):
    labels = {
        "run.txt": "`run.txt` (case log `fleet_boots.log`, rows `boot-records.txt`, answer `recommend.json`)",
        "kvm-forced-run.txt": "`kvm-forced-run.txt` (`VMLAB_ACCEL=kvm`)",
        "run-all.txt": "`run-all.txt`, every amd64 case (case log `run-all-fleet_boots.log`)",
        "run-newer-binary.txt": "`run-newer-binary.txt`, a build of main with the boots tallied by the database (de5b4e9)",
    }
    out = ["| run | load (1 min) | `fleet_boots` | its guests | logged ms at 2 threads (shift 4) | at 1 thread (shift 2) | answer |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, log in FLEET_RUNS:
        loads, case, at2, at1, (value, status), guests = fleet_run(r, name, log)
        load = f"{loads[0]:.1f} at the start, {loads[-1]:.1f} at the end"
        ran = f"{guests[0]:.1f}-{guests[1]:.1f} s" if guests else "not kept"
        out.append(f"| {labels[name]} | {load} | {case} s | {ran} | {listed(at2)} | {listed(at1)} | {value}, `{status}` |")
    return "\n".join(out)


def trials(r):
    rows = []
    for line in r.file(TRIALS).body.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) == 8 and c[2].isdigit():
            rows.append({"shift": int(c[2]), "threads": int(c[3]), "sleep": c[4], "tsc": c[5], "ms": int(c[6])})
    return rows


def trial_added(r):
    """Boots of the trials with time added: above 1.5 times the least of their shift and thread
    count (sleep off); the rest log their instructions' count within a jiffy or two."""
    rows = [x for x in trials(r) if x["sleep"] == "off"]
    least = defaultdict(lambda: 10 ** 9)
    for x in rows:
        least[(x["shift"], x["threads"])] = min(least[(x["shift"], x["threads"])], x["ms"])
    for x in rows:
        x["least"] = least[(x["shift"], x["threads"])]
        x["added"] = x["ms"] > 1.5 * x["least"]
    return rows


def register(r):
    r.add("lab.full_runs", list(FULL_RUNS), lambda: full_runs_block(r), block=True)
    for label, key, threads in (("boot pool", "t2", 2), ("oversubscribed", "t8", 8)):
        lines = lambda label=label, threads=threads: allocation_lines(r, label, threads)  # noqa: E731
        sources = [M, F]
        r.add(f"lab.boot_pool_{key}_min_ms", sources, lambda lines=lines: str(min(lines()[0])))
        r.add(f"lab.boot_pool_{key}_max_ms", sources, lambda lines=lines: str(max(lines()[0])))
        r.add(f"lab.boot_pool_{key}_runs", sources, lambda lines=lines: str(len(lines()[0])), optional=True)
    pairs = lambda: page_size_lines(r)  # noqa: E731
    r.add("lab.arm64_64k_min_ms", [M, F], lambda: str(min(a for a, _ in pairs())))
    r.add("lab.arm64_64k_max_ms", [M, F], lambda: str(max(a for a, _ in pairs())))
    r.add("lab.arm64_2m_min_ms", [M, F], lambda: str(min(b for _, b in pairs())))
    r.add("lab.arm64_2m_max_ms", [M, F], lambda: str(max(b for _, b in pairs())))
    r.add("lab.arm64_page_size_runs", [M, F], lambda: str(len(pairs())))
    first = M + "vmtest-arm64-2026-12-03.txt"
    r.grab("lab.arm64_2026_12_03_64k_ms", first, r"^    lines: allocation took (\d+)ms;")
    r.grab("lab.arm64_2026_12_03_2m_ms", first, r"^    lines: allocation took \d+ms;allocation took (\d+)ms;")
    for case in ("cpu_identity", "package_arm64", "page_sizes", "run_two_nodes", "sweep_nodes"):
        r.add(f"lab.arm64_2026_12_03_{case}_s", first, lambda case=case: str(dict(case_times(r, first))[case]))
    register_fleet_boots(r)
    register_example(r)
    register_placement(r)
    register_debian(r)


def register_fleet_boots(r):
    sources = [FLEET_BOOTS + n for n, _ in FLEET_RUNS] + [FLEET_BOOTS + l for _, l in FLEET_RUNS if l]
    r.add("lab.fleet_boots.runs", sources, lambda: fleet_runs_block(r), block=True)
    run = FLEET_BOOTS + "run.txt"
    r.add("lab.fleet_boots.at2_ms", run, lambda: r.file(run).grab(r"at 2 \(icount shift 4\): (\d+) ").strip())
    r.add("lab.fleet_boots.at1_ms", run, lambda: r.file(run).grab(r"at 1 \(shift 2\): (\d+) ").strip())
    r.add("lab.fleet_boots.at2_per_1000", run,
          lambda: show(float(r.file(run).grab(r"against ([\d.]+) ms per 1,000 pages at 2")), 0, True))
    r.add("lab.fleet_boots.at1_per_1000", run,
          lambda: show(float(r.file(run).grab(r"hugepage_alloc_threads=1: ([\d.]+) ms per 1,000 pages at 1")), 0, True))
    all_runs = FLEET_BOOTS + "run-all.txt"
    r.add("lab.fleet_boots.run_all_passed", all_runs, lambda: str(run_totals(r, all_runs)[0]))
    r.add("lab.fleet_boots.run_all_s", all_runs, lambda: str(run_totals(r, all_runs)[2]))
    arm = FLEET_BOOTS + "arm64-run.txt"
    r.add("lab.fleet_boots.arm64_passed", arm, lambda: str(run_totals(r, arm)[0]))
    r.add("lab.fleet_boots.arm64_s", arm, lambda: str(run_totals(r, arm)[2]))
    phases = FLEET_BOOTS + "guest-phases.txt"
    r.grab("lab.fleet_boots.guest_begin_s", phases, r"^([\d.]+) VMLAB-BEGIN")
    r.grab("lab.fleet_boots.guest_end_s", phases, r"^([\d.]+) QEMU gone")
    register_trials(r)


def register_trials(r):
    rows = lambda: trial_added(r)  # noqa: E731
    usual = lambda shift: [x["ms"] for x in rows() if x["shift"] == shift and not x["added"]]  # noqa: E731
    r.add("lab.icount.shift2_ms", TRIALS, lambda: str(the_one(usual(2), "the shift-2 boots")))
    for shift in (3, 4, 5):
        r.add(f"lab.icount.shift{shift}_min_ms", TRIALS, lambda shift=shift: str(min(usual(shift))))
        r.add(f"lab.icount.shift{shift}_max_ms", TRIALS, lambda shift=shift: str(max(usual(shift))))
    r.add("lab.icount.sleep_on_shift4_ms", TRIALS,
          lambda: str(next(x["ms"] for x in trials(r) if x["sleep"] == "on" and x["shift"] == 4)))
    for t in (1, 2):
        boots = lambda t=t: [x for x in rows() if x["threads"] == t]  # noqa: E731
        r.add(f"lab.icount.t{t}_boots", TRIALS, lambda boots=boots: str(len(boots())))
        r.add(f"lab.icount.t{t}_added", TRIALS, lambda boots=boots: str(sum(x["added"] for x in boots())))
    added2 = lambda: [x for x in rows() if x["threads"] == 2 and x["added"]]  # noqa: E731
    r.number("lab.icount.t2_added_min_ratio", TRIALS, lambda: min(x["ms"] / x["least"] for x in added2()), 1)
    r.number("lab.icount.t2_added_max_ratio", TRIALS, lambda: max(x["ms"] / x["least"] for x in added2()), 1)
    for shift in (3, 5):
        at = lambda shift=shift: [x for x in added2() if x["shift"] == shift]  # noqa: E731
        r.add(f"lab.icount.t2_shift{shift}_added_min_ms", TRIALS, lambda at=at: str(min(x["ms"] for x in at())))
        r.add(f"lab.icount.t2_shift{shift}_added_max_ms", TRIALS, lambda at=at: str(max(x["ms"] for x in at())))
        r.add(f"lab.icount.t2_shift{shift}_least_ms", TRIALS, lambda at=at: str(at()[0]["least"]))
    added1 = lambda: sorted((x for x in rows() if x["threads"] == 1 and x["added"]), key=lambda x: (-x["shift"], x["ms"]))  # noqa: E731
    for i in range(3):
        r.add(f"lab.icount.t1_added_{i + 1}_ms", TRIALS, lambda i=i: str(added1()[i]["ms"]))
        r.add(f"lab.icount.t1_added_{i + 1}_least_ms", TRIALS, lambda i=i: str(added1()[i]["least"]), optional=True)
    r.add("lab.icount.t1_over_4x", TRIALS,
          lambda: str(sum(x["ms"] > 4 * x["least"] for x in rows() if x["threads"] == 1)))


def register_example(r):
    ci = M + "ci-run-2026-12-03.txt"
    r.add("lab.example_allocation_line", ci,
          lambda: "    " + r.file(ci).grab(r"^    boot pool: (\[ *[\d.]+\] HugeTLB: allocation took \d+ms with hugepage_allocation_threads=\d+)$"),
          block=True)


PLACEMENT = F + "placement-2026-12-03/run-all.txt"


PLACEMENT_RUNS = F + "placement-2026-12-04/boot_placement-5-runs.txt"


def register_placement(r):
    """The boot_placement case's first run (its README names the runs beside it), and its five
    runs on the machine where a CI run's guest hung."""
    seconds = lambda: [int(s) for s in r.file(PLACEMENT_RUNS).grab_all(r"^vmlab: PASS boot_placement \((\d+) s\)$")]  # noqa: E731
    r.add("lab.placement.five_runs", PLACEMENT_RUNS, lambda: str(len(seconds())))
    r.add("lab.placement.five_runs_min_s", PLACEMENT_RUNS, lambda: str(min(seconds())))
    r.add("lab.placement.five_runs_max_s", PLACEMENT_RUNS, lambda: str(max(seconds())))
    for nodes, key in ((2, "2 nodes"), (4, "4 nodes, node 3 memory only")):
        line = lambda key=key: r.file(PLACEMENT).grab(rf"^    {key}: (.*)$")  # noqa: E731
        for name, pattern in (("booted", r"booted per node \[([\d, ]+)\]"), ("spread", r"each spread \[([\d, ]+)\]"),
                              ("threads_on", r"threads on nodes \[([\d, ]+)\]")):
            r.add(f"lab.placement.nodes{nodes}_{name}", PLACEMENT,
                  lambda line=line, pattern=pattern: re.search(pattern, line()).group(1))


DEBIAN = F + "debian-2026-12-06/output.txt"
DEBIAN_VARIANTS = ("plain", "two-kernels")


def debian_steps(r, variant):
    """Each step of one variant of `make vmtest-debian`: (name, verdict, seconds)."""
    return [(name, verdict, int(s)) for verdict, name, s in re.findall(
        rf"^vmlab-debian: {variant}: (PASS|FAIL) ([\w-]+) \((\d+) s\)", r.file(DEBIAN).body, re.M)]


def debian_steps_block(r):
    out = ["| step | " + " | ".join(DEBIAN_VARIANTS) + " |", "| --- |" + " --- |" * len(DEBIAN_VARIANTS)]
    runs = {v: {name: (verdict, s) for name, verdict, s in debian_steps(r, v)} for v in DEBIAN_VARIANTS}
    names = list(dict.fromkeys(name for v in DEBIAN_VARIANTS for name, _, _ in debian_steps(r, v)))
    for name in names:
        cells = []
        for v in DEBIAN_VARIANTS:
            verdict, s = runs[v].get(name, ("-", None))
            cells.append("-" if s is None else f"{verdict} {s} s")
        out.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(out)


def register_debian(r):
    """The Debian lab's stored run (tests/vm/README.md "A real Debian system")."""
    r.add("lab.debian_2026_12_06.steps", DEBIAN, lambda: debian_steps_block(r), block=True)
    r.add("lab.debian_2026_12_06.wall_s", DEBIAN,
          lambda: r.file(DEBIAN).grab(r"^vmlab-debian: \d+ failed, wall time (\d+) s$"))
    r.add("lab.debian_2026_12_06.failed", DEBIAN,
          lambda: r.file(DEBIAN).grab(r"^vmlab-debian: (\d+) failed, wall time \d+ s$"))
    for v in DEBIAN_VARIANTS:
        key = v.replace("-", "_")
        r.add(f"lab.debian_2026_12_06.{key}_guest_s", DEBIAN,
              lambda v=v: str(sum(s for name, _, s in debian_steps(r, v) if not name.startswith(("image", "inject", "disk-")))))
