#!/usr/bin/env python3
"""Shows the registry's check catching edits: in a scratch copy of the tree, each edit below
(a figure changed in a document, a measured-looking number typed without a marker, or a stored
file behind figures changed) is made alone, the check is run, and its verdict printed; the copy
is put back after each. Every edit must make the check fail. A measurement of the method, stored with scripts/record-measurement.

    docs/figures/edit_check.py --hugetune BIN
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
M = "<!-- fig:"
# (what it is, file, text as it stands, text after the edit)
EDITS = (
    ("README: the tuning run's 2-thread prediction \"24% under\"", "README.md",
     M + "lab.tuning.ioa1_t2_under_pct -->24% under", M + "lab.tuning.ioa1_t2_under_pct -->25% under"),
    ("README: lazy memory \"1.83 times\" as long", "README.md",
     M + "lab.tuning.ioa1_lazy_over_prealloc_t1 -->1.83 times as long", M + "lab.tuning.ioa1_lazy_over_prealloc_t1 -->1.82 times as long"),
    ("README: the check run \"gave 1.26 and 0.77\"", "README.md",
     M + "lab.check.ioa1_prealloc_t1_ratio -->1.26 and", M + "lab.check.ioa1_prealloc_t1_ratio -->1.25 and"),
    ("README: the kexec boots \"2.3 to 3.8\" (now 2.35 to 3.78) times", "README.md",
     M + "lab.kexec.slower_min_ratio -->2.35 to " + M + "lab.kexec.slower_max_ratio -->3.78 times as long",
     M + "lab.kexec.slower_min_ratio -->2.30 to " + M + "lab.kexec.slower_max_ratio -->3.78 times as long"),
    ("README: the 1,000-host answer (\"0.44 s\", now 0.36 s)", "README.md",
     M + "fleet.answer_1000_ab_2026_12_04_blocks_index.b_median_s -->0.36 s",
     M + "fleet.answer_1000_ab_2026_12_04_blocks_index.b_median_s -->0.44 s"),
    ("README: the \"before the fix\" column", "README.md",
     "| **0.95** | 2837 ms, 1.85 |", "| **0.95** | 2837 ms, 1.84 |"),
    ("docs/fleet.md: \"3,289\" reports/s into SQLite", "docs/fleet.md",
     "**" + M + "fleet.ingest_ab_2026_12_04_small_blocks.sqlite.b -->3,289 reports/s into SQLite**",
     "**" + M + "fleet.ingest_ab_2026_12_04_small_blocks.sqlite.b -->3,298 reports/s into SQLite**"),
    ("tests/vm/README.md: the check run's \"1.26 times\" the boot", "tests/vm/README.md",
     M + "lab.check.ioa1_prealloc_t1_ratio -->1.26 times the boot", M + "lab.check.ioa1_prealloc_t1_ratio -->1.27 times the boot"),
    ("CHANGELOG.md: 3,436 reports a second into SQLite", "CHANGELOG.md",
     M + "fleet.ingest_ab_2026_12_04_storing_thread.sqlite.b -->3,436 reports a second",
     M + "fleet.ingest_ab_2026_12_04_storing_thread.sqlite.b -->3,400 reports a second"),
    ("docs/kernel-facts.md: the arm64 lines \"16 ms then 300 ms\"", "docs/kernel-facts.md",
     M + "lab.arm64_2026_12_03_64k_ms -->16 ms then", M + "lab.arm64_2026_12_03_64k_ms -->24 ms then"),
    ("tests/vm/findings/placement-2026-12-03/README.md: the 4-node pool per node", "tests/vm/findings/placement-2026-12-03/README.md",
     M + "lab.placement.nodes4_booted -->6, 3, 3, 3 (", M + "lab.placement.nodes4_booted -->6, 3, 3, 4 ("),
    ("a CHANGELOG figure's commit", "CHANGELOG.md",
     M + "at.apply_kills_2026_12_03 -->a4891db", M + "at.apply_kills_2026_12_03 -->a4891dc"),
    ("a table row of tests/vm/README.md's fleet_boots runs", "tests/vm/README.md",
     "| 100 s | not kept | 2012, 276", "| 100 s | not kept | 2016, 276"),
    ("README: an unmarked \"0.37 s\" typed into a paragraph", "README.md",
     "It starts after the local file systems, with a 2 minute limit.",
     "It starts after the local file systems in 0.37 s, with a 2 minute limit."),
    ("CHANGELOG.md: an unmarked \"0.37 s\" typed into a line", "CHANGELOG.md",
     "rather than pair by pair.", "rather than pair by pair, in 0.37 s."),
    ("stored file: a boot of the check run (measurements.tsv, 3524 -> 3624 ms)",
     "tests/vm/findings/accuracy-2026-12-03/measurements.tsv", "1\tprealloc\t1\t3524\n", "1\tprealloc\t1\t3624\n"),
    ("stored file: the SQLite answer from reports (fleet-bench-quiet, 1.09 -> 1.19 s)",
     "docs/measurements/fleet-bench-quiet-2026-12-04.txt",
     "over 1,000 hosts from reports: 1.09 s", "over 1,000 hosts from reports: 1.19 s"),
)


def copy_tree(scratch):
    def ignore(folder, names):
        return [n for n in names if n.startswith("build") or n == ".git"]
    shutil.copytree(ROOT, scratch, ignore=ignore, symlinks=True)


def run_check(tree, hugetune):
    done = subprocess.run([sys.executable, os.path.join(tree, "docs/figures/figures.py"), "--check",
                           "--hugetune", hugetune], capture_output=True, text=True)
    return done.returncode, done.stderr.splitlines()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hugetune", required=True)
    hugetune = os.path.abspath(p.parse_args().hugetune)
    caught = 0
    with tempfile.TemporaryDirectory(prefix="figures-edits.") as scratch:
        tree = os.path.join(scratch, "tree")
        copy_tree(tree)
        rc, lines = run_check(tree, hugetune)
        print(f"== the copy as it is: exit {rc}" + "".join(f"\n   {line}" for line in lines))
        if rc != 0:
            return 1
        for what, relative, old, new in EDITS:
            path = os.path.join(tree, relative)
            text = open(path, encoding="utf-8").read()
            if text.count(old) != 1:
                print(f"== {what}: the text to edit is not in {relative} once; the edit list is out of date")
                return 1
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new))
            rc, lines = run_check(tree, hugetune)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            caught += rc == 1
            findings = [line for line in lines if "make figures" not in line]
            print(f"== {what}\n   edit in {relative}: {old!r} -> {new!r}\n   check: exit {rc}, "
                  f"{'failed' if rc == 1 else 'DID NOT FAIL'}; {len(findings)} line(s):")
            for line in findings[:6]:
                print(f"   {line}")
            if len(findings) > 6:
                print(f"   ... and {len(findings) - 6} more")
    print(f"== {caught} of {len(EDITS)} edits made the check fail")
    return 0 if caught == len(EDITS) else 1


if __name__ == "__main__":
    sys.exit(main())
