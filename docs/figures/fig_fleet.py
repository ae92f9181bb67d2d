"""Figures of the fleet database on the 2-CPU machines: tests/bench/fleet.sh and the side-by-side
scripts (tests/bench/fleet_*_ab.sh), their outputs in docs/measurements/."""
import re

from core import the_one

M = "docs/measurements/"
ANSWER_1000 = M + "fleet-answer-1000-ab-2026-12-04-blocks-index.txt"
QUIET = M + "fleet-bench-quiet-2026-12-04.txt"


def register(r):
    r.grab("fleet.answer_1000_hosts_s", ANSWER_1000, r"^median A [\d.]+ s, B ([\d.]+) s")
    r.add("fleet.answer_1000_hosts_before_s", ANSWER_1000, lambda: r.file(ANSWER_1000).grab(r"^median A ([\d.]+) s"), optional=True)
    r.add("fleet.answer_1000_hosts_rounds", ANSWER_1000,
          lambda: str(len(r.file(ANSWER_1000).grab_all(r"^round (\d+) B:"))))
    r.grab("fleet.quiet.answer_1000_digests_s", QUIET,
           r"^SQLite: one SKU's answer over 1,000 hosts, computed from digests: ([\d.]+) s")
    r.grab("fleet.quiet.answer_1000_reports_s", QUIET,
           r"^SQLite: one SKU's answer over 1,000 hosts from reports: ([\d.]+) s")
    register_changelog(r)


STORING = M + "fleet-ingest-ab-2026-12-04-storing-thread.txt"
ANSWER_100K = M + "fleet-answer-100k-ab-2026-12-04-blocks-index-b.txt"
BENCH_1203 = M + "fleet-bench-2026-12-03.txt"
TIMES = M + "fleet-answer-times-2026-12-03.txt"
BENCH_JSON = M + "bench-json-2026-12-03.txt"


def thousands(text):
    return f"{int(text):,}"


def register_changelog(r):
    for db in ("SQLite", "PostgreSQL"):
        key = db.lower()
        r.add(f"fleet.storing_thread.{key}_b", STORING,
              lambda db=db: thousands(r.file(STORING).grab(rf"^{db}: median A \d+ reports/s, B (\d+) reports/s")))
        r.add(f"fleet.storing_thread.{key}_a", STORING,
              lambda db=db: thousands(r.file(STORING).grab(rf"^{db}: median A (\d+) reports/s")), optional=True)
        r.add(f"fleet.storing_thread.{key}_ratio", STORING,
              lambda db=db: r.file(STORING).grab(rf"^{db}: median .* B/A ([\d.]+)$"), optional=True)
    rounds = lambda: [float(x) for x in r.file(ANSWER_100K).grab_all(r"^round \d+ B: ([\d.]+) s")]  # noqa: E731
    r.number("fleet.answer_100k.min_s", ANSWER_100K, lambda: min(rounds()), 2)
    r.number("fleet.answer_100k.max_s", ANSWER_100K, lambda: max(rounds()), 2)
    r.add("fleet.answer_100k.peak_mb", ANSWER_100K,
          lambda: the_one(r.file(ANSWER_100K).grab_all(r"^round \d+ B: [\d.]+ s, peak memory (\d+) MB"), "the B rounds' peaks"))
    r.add("fleet.bench_1203.sqlite_rate", BENCH_1203,
          lambda: thousands(r.file(BENCH_1203).grab(r"^SQLite: ingest of 10000 reports: [\d.]+ s, (\d+) reports/s")))
    r.grab("fleet.bench_1203.sqlite_peak_mb", BENCH_1203, r"^SQLite: ingest of 10000 reports: .* peak memory (\d+) MB")
    r.grab("fleet.bench_1203.skus_kept_s", BENCH_1203, r"^SQLite: fleet skus over 10000 runs, answers kept: ([\d.]+) s")
    r.grab("fleet.bench_1203.skus_computed_s", BENCH_1203, r"^SQLite: fleet skus over 10000 runs, every SKU computed: ([\d.]+) s")
    r.grab("fleet.bench_1203.large_report_mb", BENCH_1203, r"^SQLite: ingest of one (\d+) MB report")
    times = lambda: [float(x) for x in re.findall(r"([\d.]+)(?= )", " ".join(r.file(TIMES).grab_all(r"^\S+: ([\d. ]+) s$")) + " ")]  # noqa: E731
    r.number("fleet.answer_times.min_s", TIMES, lambda: min(times()), 2)
    r.number("fleet.answer_times.max_s", TIMES, lambda: max(times()), 2)
    ratios = lambda: [float(x) for x in r.file(BENCH_JSON).grab_all(r"ratio ([\d.]+)$")]  # noqa: E731
    r.number("bench_json.min_ratio", BENCH_JSON, lambda: min(ratios()), 2)
    r.number("bench_json.max_ratio", BENCH_JSON, lambda: max(ratios()), 2)
