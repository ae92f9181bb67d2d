#!/usr/bin/env python3
"""How far apart real timings of one machine lie, from the stored sweeps and reports: the spread
of one point's repetitions, how close the nearest samples of two runs of one machine come, and
the run-to-run spread of consecutive runs' predictions. The figures behind kSameSampleShare
(docs/fleet.md "The host-name rule") and the noise of the clean generated SKUs ("Outliers").
A measurement: prints, asserts nothing.
    usage: tests/bench/sample_spread.py SOURCE_DIR"""
import json
import math
import re
import statistics
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "."


def points(path):
    doc = json.load(open(f"{src}/{path}"))
    return [(p["phase"], p["threads_per_node"], p.get("samples_seconds") or [])
            for p in doc.get("sweep", doc)["points"]]


def log_spread(samples):
    logs = [math.log(s) for s in samples]
    centre = statistics.median(logs)
    return statistics.stdev(logs), 1.4826 * statistics.median(abs(x - centre) for x in logs)


print("one point's repetitions (log standard deviation, and 1.4826 MAD), median over points:")
for path in ("tests/data/sweep-zen4-2node.json", "tests/fixtures/fleet/report-1.json",
             "tests/fixtures/fleet/report-2.json"):
    p = points(path)
    spreads = [log_spread(s) for _, _, s in p if len(s) >= 2]
    digits = max(len(repr(x).split(".")[1]) for _, _, s in p for x in s)
    print(f"  {path}: {len(p)} points, {sum(len(s) for _, _, s in p)} samples, written to "
          f"{digits} decimals of a second; sd {statistics.median(a for a, _ in spreads):.4f}, "
          f"MAD {statistics.median(b for _, b in spreads):.4f}")

print("two runs of one machine (tests/fixtures/fleet/report-1.json and report-2.json, one VM):")
closest = []
for (phase, n, a), (_, _, b) in zip(points("tests/fixtures/fleet/report-1.json"),
                                    points("tests/fixtures/fleet/report-2.json")):
    near = min(abs(x - y) / max(x, y) for x in a for y in b)
    closest.append(near)
    print(f"  {phase} at {n} per node: the nearest two samples differ by {near:.4f}")
print(f"  the nearest over all points: {min(closest):.4f}")

print("consecutive runs' predicted boot allocation (log standard deviation):")
for path in ("docs/measurements/run-repeat-2026-12-03.txt",
             "docs/measurements/run-repeat-10-2026-12-03.txt"):
    text = open(f"{src}/{path}").read()
    row = next(line for line in text.splitlines() if line.startswith("| predicted boot"))
    seconds = [float(x) for x in re.findall(r"\| ([0-9.]+) s for", row)]
    print(f"  {path}: {len(seconds)} runs, {min(seconds)} to {max(seconds)} s, "
          f"sd {statistics.stdev(math.log(s) for s in seconds):.4f}")

sigma = 0.017
for share in (1e-6, 1e-4):
    one = 2 * share / (math.sqrt(2 * math.pi) * math.sqrt(2) * sigma)
    print(f"two independent samples (log sd {sigma}) within {share:g} of each other: about {one:.1e};"
          f" all 3 of the smallest sweep {one ** 3:.1e}, all 21 of a fixture's {one ** 21:.1e};"
          f" expected among the 5e9 pairs of 100,000 hosts of 3-sample sweeps: {5e9 * one ** 3:.1e}")
