"""Figures of the boot lab's accuracy runs (tests/vm/findings/): the guests' stored sweeps
re-predicted by today's `hugetune fit` beside the kernel's own boot figures. The tuning run
(accuracy-2026-12-01) is the one the cost basis was corrected on; the check run
(accuracy-2026-12-03), the kexec boot-sweep and the what-if runs were not used to change the
model, so their ratios say how today's model does on runs it was not tuned on."""
import json
import math
import os
import re
import subprocess
import sys
from functools import reduce

from core import median, the_one

F = "tests/vm/findings/"
TUNING = F + "accuracy-2026-12-01/"
CHECK = F + "accuracy-2026-12-03/"
KEXEC = F + "boot-sweep-2026-12-01/result-init_on_alloc1-512.json"
WHATIF2 = F + "whatif-2026-12-02/"
WHATIF3 = F + "whatif-2026-12-03/"
MEMORY = ("prealloc", "lazy")
# The bands the tuning run set (tests/cli/fit_boot_lab.sh): predicted/measured at 1 and 2 threads.
BANDS = {1: (0.85, 1.15), 2: (0.7, 1.3)}


def boots(r, path):
    """measurements.tsv: (init_on_alloc, host memory, T) -> the boots' ms, in boot order."""
    found = {}
    for line in r.file(path).body.splitlines():
        if line.strip():
            ioa, memory, threads, ms = line.split()
            found.setdefault((ioa, memory, int(threads)), []).append(int(ms))
    return found


def predictions(fit):
    """T -> today's predicted ms for the boot pool."""
    return {p["hugepage_alloc_threads"]: p["seconds"] * 1000 for p in fit["predictions"]}


def sweep_points(r, path, phase, threads, hvo_pass=False):
    sweep = r.json(path)
    points = sweep["hvo_pass"]["points"] if hvo_pass else sweep["points"]
    return next(p for p in points if p["phase"] == phase and p["threads_per_node"] == threads)


def per_gib(point):
    return point["median_seconds"] / (point["pages_per_node"] * point["page_size_kb"] / 1048576)


def ratio_text(x):
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


class Run:
    """One accuracy run: its boots, and today's fit of each guest's stored sweep or report."""

    def __init__(self, r, folder, sweep_name):
        self.r, self.folder, self.sweep_name = r, folder, sweep_name
        self.boots_path = folder + "measurements.tsv"

    def sweep(self, ioa, memory):
        return self.folder + self.sweep_name.format(ioa=ioa, memory=memory)

    def fit(self, ioa, memory):
        path = self.sweep(ioa, memory)
        return self.r.fit(path) if self.r.json(path).get("format") == "hugetune-sweep" else self.r.fit_report(path)

    def boots(self, ioa, memory, t):
        return boots(self.r, self.boots_path)[(ioa, memory, t)]

    def measured(self, ioa, memory, t):
        return median(self.boots(ioa, memory, t))

    def predicted(self, ioa, memory, t):
        return predictions(self.fit(ioa, memory))[t]

    def ratio(self, ioa, memory, t):
        return self.predicted(ioa, memory, t) / self.measured(ioa, memory, t)

    def pool_pages(self, ioa, memory):
        return int(self.fit(ioa, memory)["recommendation"]["pool_pages"])

    def old_basis(self, ioa, memory, t):
        """The model before the cost basis was corrected, on the same sweep: the alloc phase for
        the boot with init_on_alloc; without it the grow phase at 1 thread and alloc minus zero
        above; each at its measured point, scaled to the pool (the prediction passes through the
        measured points)."""
        sweep = self.sweep(ioa, memory)
        alloc = sweep_points(self.r, sweep, "alloc", t)
        scale = self.pool_pages(ioa, memory) / alloc["pages_per_node"]
        if ioa == "1":
            seconds = alloc["median_seconds"]
        elif t == 1:
            seconds = sweep_points(self.r, sweep, "grow", 1)["median_seconds"]
        else:
            seconds = alloc["median_seconds"] - sweep_points(self.r, sweep, "zero", t)["median_seconds"]
        return seconds * scale * 1000

    def sources(self):
        return [self.folder]


def tuning_block(run):
    out = ["| init_on_alloc | host memory | T | predicted | measured, median (3 boots) | predicted/measured | before the fix |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for ioa in ("1", "0"):
        for memory in MEMORY:
            for t in (1, 2):
                runs = run.boots(ioa, memory, t)
                ratio = f"{run.ratio(ioa, memory, t):.2f}"
                ratio = f"**{ratio}**" if memory == "prealloc" else ratio
                old = run.old_basis(ioa, memory, t)
                out.append(f"| {ioa} | {memory} | {t} | {run.predicted(ioa, memory, t):.0f} ms | "
                           f"{run.measured(ioa, memory, t):.0f} ms ({min(runs)}-{max(runs)}) | {ratio} | "
                           f"{old:.0f} ms, {ratio_text(old / run.measured(ioa, memory, t))} |")
    return "\n".join(out)


def check_block(run):
    out = ["| init_on_alloc | host memory | curve | T | predicted ms | measured ms (median; all) | predicted/measured | "
           "decision | predicted best | measured best |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for ioa in ("1", "0"):
        for memory in MEMORY:
            fit = run.fit(ioa, memory)
            rec = fit["recommendation"]
            medians = {t: run.measured(ioa, memory, t) for t in (1, 2)}
            best = min(medians, key=medians.get)
            for t in (1, 2):
                runs = ", ".join(map(str, run.boots(ioa, memory, t)))
                out.append(f"| {ioa} | {memory} | {fit['model']['curve']} | {t} | {run.predicted(ioa, memory, t):.0f} | "
                           f"{medians[t]:.0f} ({runs}) | {run.ratio(ioa, memory, t):.2f} | "
                           f"{rec['decision']} {rec['hugepage_alloc_threads']} | {rec['best_hugepage_alloc_threads']} | {best} |")
    return "\n".join(out)


def register(r):
    tuning = Run(r, TUNING, "sweep-init_on_alloc{ioa}-{memory}.json")
    check = Run(r, CHECK, "predict-{ioa}-{memory}.json")
    register_run(r, "tuning", tuning)
    register_run(r, "check", check)
    r.add("lab.tuning.table", tuning.sources(), lambda: tuning_block(tuning), block=True)
    r.add("lab.check.table", check.sources(), lambda: check_block(check), block=True)
    register_tuning_prose(r, tuning)
    register_check_prose(r, check, tuning)
    register_stored_sweeps(r)
    register_kexec(r, tuning)
    register_whatif(r)


def register_run(r, name, run):
    """Per setting, host memory and T: today's prediction, the boots' median and the ratio."""
    for ioa in ("1", "0"):
        for memory in MEMORY:
            for t in (1, 2):
                key = f"lab.{name}.ioa{ioa}_{memory}_t{t}"
                args = (ioa, memory, t)
                r.number(key + "_predicted_ms", run.sources(), lambda args=args: run.predicted(*args), optional=True)
                r.number(key + "_ms", run.sources(), lambda args=args: run.measured(*args), optional=True)
                r.number(key + "_ratio", run.sources(), lambda args=args: run.ratio(*args), 2, optional=True)
                r.add(key + "_min_ms", run.sources(), lambda args=args: str(min(run.boots(*args))), optional=True)
                r.add(key + "_max_ms", run.sources(), lambda args=args: str(max(run.boots(*args))), optional=True)
            r.add(f"lab.{name}.ioa{ioa}_{memory}_predicted_best", run.sources(),
                  lambda ioa=ioa, memory=memory: str(run.fit(ioa, memory)["recommendation"]["best_hugepage_alloc_threads"]), optional=True)
            r.add(f"lab.{name}.ioa{ioa}_{memory}_measured_best", run.sources(),
                  lambda ioa=ioa, memory=memory: str(min((1, 2), key=lambda t: run.measured(ioa, memory, t))), optional=True)
        r.add(f"lab.{name}.ioa{ioa}_pool_pages", run.sources(), lambda ioa=ioa: str(run.pool_pages(ioa, "prealloc")), optional=True)
    # Which of the tuning run's bands the run meets, with the memory backed (the bands' case).
    outside = lambda: [(ioa, t) for ioa in ("1", "0") for t in (1, 2)  # noqa: E731
                       if not BANDS[t][0] <= round(run.ratio(ioa, "prealloc", t), 2) <= BANDS[t][1]]
    r.add(f"lab.{name}.bands_missed", run.sources(), lambda: str(len(outside())), optional=True)


def register_tuning_prose(r, run):
    src = run.sources()
    at = lambda ioa, memory, t: run.measured(ioa, memory, t)  # noqa: E731
    r.number("lab.tuning.ioa1_vs_ioa0_boot", src, lambda: at("1", "prealloc", 1) / at("0", "prealloc", 1))
    r.number("lab.tuning.ioa1_vs_ioa0_per_gib", src,
             lambda: (at("1", "prealloc", 1) / run.pool_pages("1", "prealloc"))
             / (at("0", "prealloc", 1) / run.pool_pages("0", "prealloc")))
    r.add("lab.tuning.jiffy_ms", src,
          lambda: str(reduce(math.gcd, [ms for k, v in boots(r, run.boots_path).items() if k[0] == "0" for ms in v])))
    r.number("lab.tuning.ioa1_t1_off_pct", src, lambda: abs(1 - run.ratio("1", "prealloc", 1)) * 100)
    r.number("lab.tuning.ioa1_t2_under_pct", src, lambda: (1 - run.ratio("1", "prealloc", 2)) * 100)
    r.number("lab.tuning.ioa1_t1_before_ratio", src, lambda: run.old_basis("1", "prealloc", 1) / at("1", "prealloc", 1), 2)
    r.number("lab.tuning.boot_speedup_t2", src, lambda: at("1", "prealloc", 1) / at("1", "prealloc", 2), 2)
    r.number("lab.tuning.predicted_speedup_t2", src,
             lambda: run.predicted("1", "prealloc", 1) / run.predicted("1", "prealloc", 2), 2)
    r.number("lab.tuning.ioa1_t2_spread_pct", src,
             lambda: (max(run.boots("1", "prealloc", 2)) - min(run.boots("1", "prealloc", 2))) / 2 / at("1", "prealloc", 2) * 100)
    for memory in MEMORY:
        r.add(f"lab.tuning.ioa0_{memory}_t2_before_ratio", src,
              lambda memory=memory: ratio_text(run.old_basis("0", memory, 2) / at("0", memory, 2)))
    for ioa in ("1", "0"):
        for t in (1, 2):
            r.number(f"lab.tuning.ioa{ioa}_lazy_over_prealloc_t{t}", src, lambda ioa=ioa, t=t: at(ioa, "lazy", t) / at(ioa, "prealloc", t), 2)
    r.add("lab.tuning.guests", src, lambda: str(4 + sum(len(v) for v in boots(r, run.boots_path).values())))
    ioa0 = lambda: [ms for memory in MEMORY for t in (1, 2) for ms in run.boots("0", memory, t)]  # noqa: E731
    r.add("lab.tuning.ioa0_all_min_ms", src, lambda: str(min(ioa0())))
    r.add("lab.tuning.ioa0_all_max_ms", src, lambda: str(max(ioa0())))


def register_check_prose(r, run, tuning):
    src = run.sources() + tuning.sources()
    for t in (1, 2):
        r.number(f"lab.check.boot_slowdown_t{t}", src,
                 lambda t=t: run.measured("1", "prealloc", t) / tuning.measured("1", "prealloc", t), 1)
        r.number(f"lab.check.prediction_slowdown_t{t}", src,
                 lambda t=t: run.predicted("1", "prealloc", t) / tuning.predicted("1", "prealloc", t), 1)
    r.add("lab.check.guests", run.sources(), lambda: str(4 + sum(len(v) for v in boots(r, run.boots_path).values())))
    ioa0 = lambda: [ms for t in (1, 2) for ms in run.boots("0", "prealloc", t)]  # noqa: E731
    r.add("lab.check.ioa0_prealloc_min_ms", run.sources(), lambda: str(min(ioa0())))
    r.add("lab.check.ioa0_prealloc_max_ms", run.sources(), lambda: str(max(ioa0())))


def register_stored_sweeps(r):
    """Rates of the phases in the tuning run's guests (docs/kernel-facts.md): the medians at 1
    thread of the four stored sweeps, per GiB."""
    def rates(ioa_values, phase):
        return [per_gib(sweep_points(r, f"{TUNING}sweep-init_on_alloc{ioa}-{memory}.json", phase, 1))
                for ioa in ioa_values for memory in MEMORY]
    for key, ioa_values, phase in (("alloc_ioa1", "1", "alloc"), ("alloc_ioa0", "0", "alloc"),
                                   ("zero_ioa1", "1", "zero"), ("zero", "10", "zero"), ("grow_ioa1", "1", "grow")):
        r.number(f"lab.tuning.{key}_s_per_gib_min", TUNING, lambda a=ioa_values, p=phase: min(rates(a, p)), 2)
        r.number(f"lab.tuning.{key}_s_per_gib_max", TUNING, lambda a=ioa_values, p=phase: max(rates(a, p)), 2)
    r.number("lab.tuning.zero_gib_s_min", TUNING, lambda: 1 / max(rates("10", "zero")), 2)
    r.number("lab.tuning.zero_gib_s_max", TUNING, lambda: 1 / min(rates("10", "zero")), 2)


# --- the kexec boot-sweep (README "Measured in the boot lab") ------------------------------


def kexec_fit(r):
    return r.fit(TUNING + "sweep-init_on_alloc1-prealloc.json", "--boot-sweep", KEXEC)


def kexec_steps(r, t):
    return [s["milliseconds"] for s in r.json(KEXEC)["steps"] if s["threads"] == t]


def seconds_or_ms(ms):
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


def kexec_block(r, tuning):
    out = ["| threads | kexec boots (ms, in boot order) | median | predicted | measured/predicted | fresh QEMU boots (median) |",
           "| --- | --- | --- | --- | --- | --- |"]
    for row in kexec_fit(r)["boot_sweep"]["rows"]:
        t = row["threads"]
        steps = kexec_steps(r, t)
        out.append(f"| {t} | {', '.join(map(str, steps))} | {seconds_or_ms(median(steps))} | "
                   f"{seconds_or_ms(row['predicted_ms'])} | {row['ratio']:.2f} | "
                   f"{seconds_or_ms(tuning.measured('1', 'prealloc', t))} |")
    return "\n".join(out)


def register_kexec(r, tuning):
    src = [KEXEC, TUNING]
    r.add("lab.kexec.table", src, lambda: kexec_block(r, tuning), block=True)
    fresh = lambda t: tuning.boots("1", "prealloc", t)  # noqa: E731
    ratios = lambda: [(ms, ms / median(fresh(t)), ms > max(fresh(t))) for t in (1, 2) for ms in kexec_steps(r, t)]  # noqa: E731
    r.add("lab.kexec.boots", KEXEC, lambda: str(len(ratios())))
    r.add("lab.kexec.slower", src, lambda: str(sum(slow for _, _, slow in ratios())))
    r.number("lab.kexec.slower_min_ratio", src, lambda: min(x for _, x, slow in ratios() if slow), 2)
    r.number("lab.kexec.slower_max_ratio", src, lambda: max(x for _, x, slow in ratios() if slow), 2)
    r.add("lab.kexec.within_ms", src, lambda: str(the_one([ms for ms, _, slow in ratios() if not slow], "the kexec boots within the fresh range")))
    for t in (1, 2):
        for i in range(3):
            r.add(f"lab.kexec.t{t}_boot{i + 1}_ms", KEXEC, lambda t=t, i=i: str(kexec_steps(r, t)[i]))
            r.number(f"lab.kexec.t{t}_boot{i + 1}_ratio", src, lambda t=t, i=i: kexec_steps(r, t)[i] / median(fresh(t)), 2)
        r.add(f"lab.kexec.t{t}_fresh_min_ms", TUNING, lambda t=t: str(min(fresh(t))))
        r.add(f"lab.kexec.t{t}_fresh_max_ms", TUNING, lambda t=t: str(max(fresh(t))))
        r.number(f"lab.kexec.t{t}_fresh_ms", TUNING, lambda t=t: median(fresh(t)))
    r.add("lab.kexec.pages", KEXEC, lambda: str(r.json(KEXEC)["pages"]))


# --- the what-if runs (tests/vm/README.md "The what-if rows against real boots") -----------


def whatif_rows(r, path):
    """A what-if table as rows of cells, comment lines left out."""
    rows = []
    for line in r.file(path).body.splitlines():
        if line.startswith("| ") and not line.startswith("| prediction guest") and not line.startswith("| ---"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def whatif_cell(r, path, guest_ioa, booted, t, column):
    """One cell of a stored what-if table: the row of the guest with that init_on_alloc, booted
    so, at T; column 4 the prediction, 5 the boots, 6 the ratio."""
    found = [row for row in whatif_rows(r, path)
             if row[0].startswith(f"init_on_alloc={guest_ioa},") and row[1] == booted and row[2] == str(t)]
    return the_one([row[column] for row in found], f"{path}'s cells for {booted} at T={t}")


def first_number(cell):
    return float(re.match(r"-?[\d.]+", cell).group(0))


def whatif_table(r, folder, settings):
    """The table as tests/vm/lib/whatif_table.py writes it from today's `fit --boot-sweep` of the
    stored sweeps (its one writer), comment lines left out."""
    work = os.path.join(r.scratch(), os.path.basename(folder.rstrip("/")))
    os.makedirs(work, exist_ok=True)
    for ioa in settings:
        fit = r.fit(f"{folder}sweep-init_on_alloc{ioa}.json", "--boot-sweep", folder + "whatif-boots.json")
        with open(f"{work}/whatif-predict-{ioa}-fit.json", "w") as f:
            json.dump(fit, f)
    done = subprocess.run([sys.executable, r.path("tests/vm/lib/whatif_table.py"), work,
                           r.path(folder + "whatif-boots.tsv"), *settings], capture_output=True, text=True, check=True)
    return "\n".join(line for line in done.stdout.splitlines() if not line.startswith("<!--"))


def stored_table(r, path):
    return "\n".join(line for line in r.file(path).body.splitlines() if not line.startswith("<!--"))


def changed_rows(r, folder, settings):
    """The rows today's model gives otherwise than the stored table, under its header."""
    stored = set(stored_table(r, folder + "table.md").splitlines())
    today = whatif_table(r, folder, settings).splitlines()
    return "\n".join(today[:2] + [row for row in today[2:] if row not in stored])


def whatif_boots(r, folder):
    """(init_on_alloc, hvo, T) -> the boots' ms, from whatif-boots.tsv."""
    found = {}
    for line in r.file(folder + "whatif-boots.tsv").body.splitlines():
        if line.strip():
            ioa, hvo, t, _, ms = line.split()[:5]
            found.setdefault((ioa, hvo, int(t)), []).append(int(ms))
    return found


def register_whatif(r):
    r.add("lab.whatif_2026_12_02.stored_table", WHATIF2 + "table.md", lambda: stored_table(r, WHATIF2 + "table.md"), block=True)
    r.add("lab.whatif_2026_12_02.changed_rows", WHATIF2, lambda: changed_rows(r, WHATIF2, ("1", "0")), block=True)
    r.add("lab.whatif_2026_12_03.table", WHATIF3, lambda: whatif_table(r, WHATIF3, ("0",)), block=True)
    stored2 = WHATIF2 + "table.md"
    cell = lambda *a: whatif_cell(r, stored2, *a)  # noqa: E731
    own = lambda ioa, t: cell(ioa, f"init_on_alloc={ioa} hugetlb_free_vmemmap=off", t, 6)  # noqa: E731
    r.add("lab.whatif_2026_12_02.stored_ioa1_t1_ratio", stored2, lambda: own("1", 1))
    r.number("lab.whatif_2026_12_02.stored_ioa1_t2_ratio", stored2, lambda: float(own("1", 2)), 1)
    ioa1_row = lambda t, column: cell("0", "init_on_alloc=1 hugetlb_free_vmemmap=off", t, column)  # noqa: E731
    r.number("lab.whatif_2026_12_02.stored_ioa1_row_t1_s", stored2, lambda: first_number(ioa1_row(1, 4)) / 1000, 1)
    r.number("lab.whatif_2026_12_02.stored_ioa1_row_t1_low_s", stored2,
             lambda: float(re.search(r"\((\d+)-", ioa1_row(1, 4)).group(1)) / 1000, 1)
    r.number("lab.whatif_2026_12_02.stored_ioa1_row_t1_high_s", stored2,
             lambda: float(re.search(r"-(\d+)\)", ioa1_row(1, 4)).group(1)) / 1000, 1)
    r.number("lab.whatif_2026_12_02.stored_ioa1_row_t2_s", stored2, lambda: first_number(ioa1_row(2, 4)) / 1000, 1)
    for t in (1, 2):
        r.add(f"lab.whatif_2026_12_02.stored_ioa1_row_t{t}_ratio", stored2, lambda t=t: ioa1_row(t, 6))
    hvo_row = lambda t: cell("0", "init_on_alloc=0 hugetlb_free_vmemmap=on", t, 4)  # noqa: E731
    r.number("lab.whatif_2026_12_02.stored_hvo_t1_ms", stored2, lambda: first_number(hvo_row(1)))
    r.number("lab.whatif_2026_12_02.stored_hvo_t2_s", stored2, lambda: first_number(hvo_row(2)) / 1000, 1)
    b2 = lambda key: whatif_boots(r, WHATIF2)[key]  # noqa: E731
    src2 = WHATIF2 + "whatif-boots.tsv"
    for ioa, hvo in (("0", "on"), ("0", "off"), ("1", "on"), ("1", "off")):
        for t in (1, 2):
            r.number(f"lab.whatif_2026_12_02.boot_ioa{ioa}_hvo_{hvo}_t{t}_ms", src2, lambda k=(ioa, hvo, t): median(b2(k)), optional=True)
            r.number(f"lab.whatif_2026_12_02.boot_ioa{ioa}_hvo_{hvo}_t{t}_s", src2, lambda k=(ioa, hvo, t): median(b2(k)) / 1000, 1, optional=True)
    r.add("lab.whatif_2026_12_02.guests", src2, lambda: str(2 + sum(len(v) for v in whatif_boots(r, WHATIF2).values())))
    r.add("lab.whatif_2026_12_03.guests", WHATIF3 + "whatif-boots.tsv",
          lambda: str(1 + sum(len(v) for v in whatif_boots(r, WHATIF3).values())))
    register_whatif_sweeps(r)
    register_whatif3(r)


def register_whatif_sweeps(r):
    """The 2026-12-02 init_on_alloc=0 guest's sweep, whose alloc phase the HVO row once read."""
    sweep = WHATIF2 + "sweep-init_on_alloc0.json"
    point = lambda phase, t, hvo=False: sweep_points(r, sweep, phase, t, hvo)  # noqa: E731
    r.number("lab.whatif_2026_12_02.alloc_t1_min_s", sweep, lambda: min(point("alloc", 1)["samples_seconds"]), 2)
    r.number("lab.whatif_2026_12_02.alloc_t1_max_s", sweep, lambda: max(point("alloc", 1)["samples_seconds"]), 2)
    for name, hvo in (("off", False), ("on", True)):
        r.number(f"lab.whatif_2026_12_02.grow_hvo_{name}_min_ms", sweep, lambda hvo=hvo: min(point("grow", 1, hvo)["samples_seconds"]) * 1000, 1)
        r.number(f"lab.whatif_2026_12_02.grow_hvo_{name}_max_ms", sweep, lambda hvo=hvo: max(point("grow", 1, hvo)["samples_seconds"]) * 1000, 1)
    for t in (1, 2):
        r.add(f"lab.whatif_2026_12_02.hvo_alloc_difference_t{t}_s", sweep,
              lambda t=t: signed(point("alloc", t, True)["median_seconds"] - point("alloc", t)["median_seconds"]))
    r.add("lab.whatif_2026_12_02.grow_repetitions", sweep, lambda: str(len(point("grow", 1)["samples_seconds"])))
    boots0 = lambda: [ms for (ioa, hvo, _), v in whatif_boots(r, WHATIF2).items() if ioa == "0" and hvo == "off" for ms in v]  # noqa: E731
    r.add("lab.whatif_2026_12_02.ioa0_boot_min_ms", WHATIF2 + "whatif-boots.tsv", lambda: str(min(boots0())))
    r.add("lab.whatif_2026_12_02.ioa0_boot_max_ms", WHATIF2 + "whatif-boots.tsv", lambda: str(max(boots0())))


def signed(x):
    return ("+" if x > 0 else "") + f"{x:.2f}"


def register_whatif3(r):
    sweep = WHATIF3 + "sweep-init_on_alloc0.json"
    fit = lambda: r.fit(sweep, "--boot-sweep", WHATIF3 + "whatif-boots.json")  # noqa: E731
    hvo_rows = lambda: [w for w in fit()["boot_sweep"]["what_if"] if w["parameter"] == "hugetlb_free_vmemmap"]  # noqa: E731
    r.number("lab.whatif_2026_12_03.hvo_predicted_ms", WHATIF3, lambda: the_one([w["predicted_ms"] for w in hvo_rows()], "the HVO rows' predictions"))
    r.number("lab.whatif_2026_12_03.hvo_low_ms", WHATIF3, lambda: the_one([w["predicted_low_ms"] for w in hvo_rows()], "the HVO rows' lows"))
    r.number("lab.whatif_2026_12_03.hvo_high_ms", WHATIF3, lambda: the_one([w["predicted_high_ms"] for w in hvo_rows()], "the HVO rows' highs"))
    b3 = lambda key: whatif_boots(r, WHATIF3)[key]  # noqa: E731
    src = WHATIF3 + "whatif-boots.tsv"
    for t in (1, 2):
        r.number(f"lab.whatif_2026_12_03.hvo_t{t}_ms", src, lambda t=t: median(b3(("0", "on", t))))
        r.number(f"lab.whatif_2026_12_03.hvo_boot_ratio_t{t}", src, lambda t=t: median(b3(("0", "on", t))) / median(b3(("0", "off", t))), 2)
    r.add("lab.whatif_2026_12_03.boots", src, lambda: str(the_one([len(v) for v in whatif_boots(r, WHATIF3).values()], "the boots per setting")))
    r.add("lab.whatif_2026_12_03.repetitions", sweep, lambda: str(r.json(sweep)["parameters"]["repetitions"]))
    grow = lambda hvo: sweep_points(r, sweep, "grow", 1, hvo)["median_seconds"] * 1000  # noqa: E731
    r.number("lab.whatif_2026_12_03.grow_hvo_on_ms", sweep, lambda: grow(True), 1)
    r.number("lab.whatif_2026_12_03.grow_hvo_off_ms", sweep, lambda: grow(False), 1)
    r.number("lab.whatif_2026_12_03.grow_ratio", sweep, lambda: grow(True) / grow(False), 2)
