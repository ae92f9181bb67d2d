"""Figures of the fleet database on the 2-CPU machines: tests/bench/fleet.sh and the side-by-side
scripts (tests/bench/fleet_*_ab.sh), their outputs in docs/measurements/."""
import os
import re

from core import show, the_one

M = "docs/measurements/"


def register(r):
    register_changelog(r)
    register_families(r)


TIMES = M + "fleet-answer-times-2026-12-03.txt"
BENCH_JSON = M + "bench-json-2026-12-03.txt"



def register_changelog(r):
    times = lambda: [float(x) for line in r.file(TIMES).grab_all(r"^\S+: ([\d. ]+) s$") for x in line.split()]  # noqa: E731
    r.number("fleet.answer_times.min_s", TIMES, lambda: min(times()), 2)
    r.number("fleet.answer_times.max_s", TIMES, lambda: max(times()), 2)
    ratios = lambda: [float(x) for x in r.file(BENCH_JSON).grab_all(r"ratio ([\d.]+)$")]  # noqa: E731
    r.number("bench_json.min_ratio", BENCH_JSON, lambda: min(ratios()), 2)
    r.number("bench_json.max_ratio", BENCH_JSON, lambda: max(ratios()), 2)


# --- families: every figure of each stored fleet output, by the script that wrote it ----------

# tests/bench/fleet.sh: a line's pattern and the names of its numbers.
BENCH_LINES = (
    (r"^(SQLite|PostgreSQL): ingest of 10000 reports: ([\d.]+) s, (\d+) reports/s.*peak memory (\d+) MB",
     ("ingest_s", "ingest_rate", "ingest_peak_mb")),
    (r"^(SQLite|PostgreSQL): ingest of one (\d+) MB report: ([\d.]+) s, peak memory (\d+) MB",
     ("large_report_mb", "large_report_s", "large_report_peak_mb")),
    (r"^(SQLite|PostgreSQL): one SKU's answer over 1,000 hosts, computed from digests: ([\d.]+) s, peak memory (\d+) MB",
     ("answer_s", "answer_peak_mb")),
    (r"^(SQLite|PostgreSQL): the same answer again, kept: ([\d.]+) s", ("answer_kept_s",)),
    (r"^(SQLite|PostgreSQL): fleet skus over 10000 runs, every SKU computed: ([\d.]+) s", ("skus_s",)),
    (r"^(SQLite|PostgreSQL): fleet skus over 10000 runs, answers kept: ([\d.]+) s", ("skus_kept_s",)),
    (r"^(SQLite): one SKU's answer over 1,000 hosts from fleet: ([\d.]+) s, peak memory (\d+) MB",
     ("answer_fleet_s", "answer_fleet_peak_mb")),
    (r"^(SQLite): one SKU's answer over 1,000 hosts from reports: ([\d.]+) s, peak memory (\d+) MB",
     ("answer_reports_s", "answer_reports_peak_mb")),
    (r"^(one-sku|ten-skus): ingest into SQLite: ([\d.]+) s, (\d+) reports/s, peak memory (\d+) MB",
     ("ingest_s", "ingest_rate", "ingest_peak_mb")),
    (r"^(one-sku): the answer over 100,000 hosts, computed from digests: ([\d.]+) s, peak memory (\d+) MB",
     ("answer_s", "answer_peak_mb")),
    (r"^(ten-skus): fleet skus over 100,000 runs in 10 SKUs, every SKU computed from digests: ([\d.]+) s, peak memory (\d+) MB",
     ("skus_s", "skus_peak_mb")),
    (r"^(ten-skus): the same from reports: ([\d.]+) s, peak memory (\d+) MB", ("reports_s", "reports_peak_mb")),
)
# tests/bench/fleet_boots.sh.
BOOTS_LINES = (
    (r"^(SQLite|PostgreSQL): ingest of 1000000 boot records: ([\d.]+) s, (\d+) records/s.*peak memory (\d+) MB",
     ("ingest_s", "ingest_rate", "ingest_peak_mb")),
    (r"^(SQLite|PostgreSQL): one SKU's 100000 boots tallied by the database: ([\d.]+) s, peak memory (\d+) MB",
     ("tally_s", "tally_peak_mb")),
    (r"^(SQLite|PostgreSQL): one SKU's 100000 boots tallied by the client: ([\d.]+) s, peak memory (\d+) MB",
     ("client_s", "client_peak_mb")),
    (r"^(SQLite|PostgreSQL): the SKU's answer with its 100000 boots, computed: ([\d.]+) s, peak memory (\d+) MB",
     ("answer_s", "answer_peak_mb")),
)


def family_key(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def shown_number(text):
    """Whole numbers of four digits and more with commas, as the documents write them."""
    return f"{int(text):,}" if text.isdigit() else text


def parse_lines(r, path, patterns):
    found = {}
    for pattern, names in patterns:
        for m in re.finditer(pattern, r.file(path).body, re.M):
            for name, value in zip(names, m.groups()[1:]):
                found[f"{family_key(m.group(1))}.{name}"] = shown_number(value)
    return found


def register_lines(r, prefix, path, patterns):
    for key in parse_lines(r, path, patterns):
        r.add(f"{prefix}.{key}", path, lambda key=key: parse_lines(r, path, patterns)[key], optional=True)


def ab_rounds(r, path, side, db):
    """fleet_ingest_ab.sh's rounds of one binary into one database: (reports/s, peak MB)."""
    return [(int(rate), int(peak)) for rate, peak in re.findall(
        rf"^round \d+ {side} {db}: [\d.]+ s, (\d+) reports/s, peak memory (\d+) MB", r.file(path).body, re.M)]


def register_ingest_ab(r, prefix, path):
    for db in ("SQLite", "PostgreSQL"):
        key = f"{prefix}.{db.lower()}"
        if not ab_rounds(r, path, "B", db):
            continue
        for side in ("A", "B"):
            s = side.lower()
            r.add(f"{key}.{s}", path, lambda db=db, side=side: shown_number(
                r.file(path).grab(rf"^{db}: median A (\d+) reports/s, B (\d+) reports/s", 1 if side == "A" else 2)), optional=True)
            rounds = lambda db=db, side=side: ab_rounds(r, path, side, db)  # noqa: E731
            for name, pick in (("min", min), ("max", max)):
                r.add(f"{key}.{s}_{name}", path, lambda rounds=rounds, pick=pick: f"{pick(x for x, _ in rounds()):,}", optional=True)
                r.add(f"{key}.{s}_peak_{name}", path, lambda rounds=rounds, pick=pick: str(pick(p for _, p in rounds())), optional=True)
        r.add(f"{key}.ratio", path, lambda db=db: r.file(path).grab(rf"^{db}: median .* B/A ([\d.]+)$"), optional=True)


def register_answer_ab(r, prefix, path):
    """fleet_answer_ab.sh: rounds of A and B, their medians and B/A."""
    for side in ("A", "B"):
        s = side.lower()
        rounds = lambda side=side: [(float(t), int(p)) for t, p in re.findall(  # noqa: E731
            rf"^round \d+ {side}: ([\d.]+) s, peak memory (\d+) MB", r.file(path).body, re.M)]
        r.add(f"{prefix}.{s}_min_s", path, lambda rounds=rounds: show(min(t for t, _ in rounds()), 2), optional=True)
        r.add(f"{prefix}.{s}_max_s", path, lambda rounds=rounds: show(max(t for t, _ in rounds()), 2), optional=True)
        r.add(f"{prefix}.{s}_peak_mb", path, lambda rounds=rounds: str(max(p for _, p in rounds())), optional=True)
        r.add(f"{prefix}.{s}_rounds", path, lambda rounds=rounds: str(len(rounds())), optional=True)
        r.add(f"{prefix}.{s}_median_s", path,
              lambda side=side: r.file(path).grab(r"^median A ([\d.]+) s, B ([\d.]+) s", 1 if side == "A" else 2), optional=True)


def register_families(r):
    for name in sorted(os.listdir(r.path("docs/measurements"))):
        path = M + name
        stem = family_key(name[:-4])[len("fleet_"):]
        if name.startswith(("fleet-bench-", "fleet-boots-bench-")):
            patterns = BOOTS_LINES if name.startswith("fleet-boots-") else BENCH_LINES
            register_lines(r, f"fleet.{stem}", path, patterns)
        elif name.startswith("fleet-ingest-ab-"):
            register_ingest_ab(r, f"fleet.{stem}", path)
        elif name.startswith("fleet-answer-1") and "-ab-" in name and "round" in r.file(path).body:
            register_answer_ab(r, f"fleet.{stem}", path)
