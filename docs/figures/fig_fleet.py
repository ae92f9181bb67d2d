"""Figures of the fleet database on the 2-CPU machines: tests/bench/fleet.sh and the side-by-side
scripts (tests/bench/fleet_*_ab.sh), their outputs in docs/measurements/."""
import math
import os
import re

from core import median, show, the_one

M = "docs/measurements/"


def register(r):
    register_changelog(r)
    register_families(r)
    register_tests(r)
    register_tally_statements(r)
    register_tally_ab(r)
    register_profiles(r)
    register_boots_table(r)
    register_sample_spread(r)
    register_false_camps(r)
    register_allocators(r)
    register_boot_ingest_memory(r)
    register_answer_quiet(r)
    register_answer_ab_2026_12_07(r)
    register_digest_formats(r)


TIMES = M + "fleet-answer-times-2026-12-03.txt"
BENCH_JSON = M + "bench-json-2026-12-03.txt"



def register_changelog(r):
    times = lambda: [float(x) for line in r.file(TIMES).grab_all(r"^\S+: ([\d. ]+) s$") for x in line.split()]  # noqa: E731
    r.number("fleet.answer_times.min_s", TIMES, lambda: min(times()), 2)
    r.number("fleet.answer_times.max_s", TIMES, lambda: max(times()), 2)
    ratios = lambda: [float(x) for x in r.file(BENCH_JSON).grab_all(r"ratio ([\d.]+)$")]  # noqa: E731
    r.number("bench_json.min_ratio", BENCH_JSON, lambda: min(ratios()), 2)
    r.number("bench_json.max_ratio", BENCH_JSON, lambda: max(ratios()), 2)
    for name, path in (("report_kb", "tests/fixtures/fleet/report-1.json"), ("sweep_kb", "tests/data/sweep-zen4-2node.json")):
        r.add(f"bench_json.{name}", BENCH_JSON,
              lambda path=path: the_one(r.file(BENCH_JSON).grab_all(rf"^{re.escape(path)} \((\d+) kB\):"), f"{path}'s sizes"))


# --- families: every figure of each stored fleet output, by the script that wrote it ----------

# tests/bench/fleet.sh: a line's pattern and the names of its numbers.
BENCH_LINES = (
    (r"^(SQLite|PostgreSQL): ingest of 10000 reports: ([\d.]+) s, (\d+) reports/s.*peak memory (\d+) MB",
     ("ingest_s", "ingest_rate", "ingest_peak_mb")),
    (r"^(SQLite|PostgreSQL): ingest of one (\d+) MB report: ([\d.]+) s, peak memory (\d+) MB",
     ("large_report_mb", "large_report_s", "large_report_peak_mb")),
    (r"^(SQLite|PostgreSQL): one SKU's answer over 1,000 hosts, computed(?: from digests)?: ([\d.]+) s(?:, peak memory (\d+) MB)?",
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
    # Since 2026-12-06: a boot each of 100,000 reporting hosts, each figure a median of rounds.
    (r"^(SQLite|PostgreSQL): the SKU's answer over \d+ hosts without boots, computed: median ([\d.]+) s .*"
     r"peak memory median (\d+) MB", ("bare_answer_s", "bare_answer_peak_mb")),
    (r"^(SQLite|PostgreSQL): the SKU's \d+ boots of \d+ reporting hosts tallied by the database: median ([\d.]+) s",
     ("hosts_tally_s",)),
    (r"^(SQLite|PostgreSQL): the SKU's \d+ boots of \d+ reporting hosts tallied by the client: median ([\d.]+) s",
     ("hosts_client_s",)),
    (r"^(SQLite|PostgreSQL): the SKU's answer over \d+ hosts with their \d+ boots, computed: median ([\d.]+) s .*"
     r"peak memory median (\d+) MB \((\d+) to (\d+)\)",
     ("hosts_answer_s", "hosts_answer_peak_mb", "hosts_answer_peak_min_mb", "hosts_answer_peak_max_mb")),
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
                if value is not None:
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


STALE = M + "fleet-stale-runs-2026-12-05.txt"
GENERATED = M + "fleet-generated-2026-12-05.txt"
UNDER_LOAD = M + "fleet-ingest-memory-test-under-load-2026-12-04.txt"
MEMORY_100K = M + "fleet-ingest-100k-memory-2026-12-04.txt"
ANSWER_100K_BEFORE = M + "fleet-answer-100k-ab-2026-12-04.txt"


TALLY_STATEMENTS = M + "fleet-boots-tally-statements-2026-12-06.txt"


def register_tally_statements(r):
    """The database's tally at 100,000 reporting hosts, each statement as PostgreSQL logged it."""
    selects = lambda: [float(ms) / 1000 for ms in re.findall(  # noqa: E731
        r"^duration: ([\d.]+) ms  execute \w+: (?:SELECT|WITH) ", r.file(TALLY_STATEMENTS).body, re.M)]
    r.add("fleet.tally_statements.max_s", TALLY_STATEMENTS, lambda: show(max(selects()), 1))
    r.add("fleet.tally_statements.count", TALLY_STATEMENTS, lambda: str(len(selects())))


TALLY_AB = M + "fleet-boots-tally-ab-2026-12-06-report-hosts.txt"
TALLY_TABLE_AB = M + "fleet-boots-tally-ab-2026-12-06-tally-table.txt"
TALLY_REPORTED_AB = M + "fleet-boots-tally-ab-2026-12-07-reported.txt"
BOOT_INGEST_REPORTED_AB = M + "fleet-boot-ingest-ab-2026-12-07-reported-{db}.txt"
ANSWER_BOOTS_AB = M + "fleet-answer-boots-ab-2026-12-06-tally-table.txt"


def db_part(r, path, db):
    """The PostgreSQL or SQLite part of an A/B output that prints both, in that order."""
    body = r.file(path).body.split("\nstatements of one tally")[0]
    return body.split("\nSQLite:\n")[1 if db == "sqlite" else 0]


def median_text(values, decimals):
    values = sorted(values)
    return show(values[len(values) // 2], decimals)


def register_tally_ab(r):
    """boot-tally's database tally before and after a change, the median of each side's rounds
    per database: the reporting hosts through the SKU's id (base, new), then the tally's
    temporary table (old, new), then the database's own reported mark (old, new)."""
    def median_of(path, db, side):
        return median_text([float(t) for t in re.findall(
            rf"^{side} boot-tally: database \d+ host medians in ([\d.]+) s", db_part(r, path, db), re.M)], 2)
    for key, path, sides in (("tally_ab", TALLY_AB, ("base", "new")),
                             ("tally_table_ab", TALLY_TABLE_AB, ("old", "new")),
                             ("tally_reported_ab", TALLY_REPORTED_AB, ("old", "new"))):
        for db in ("postgresql", "sqlite"):
            for side in sides:
                r.add(f"fleet.{key}.{db}.{side}_s", path,
                      lambda path=path, db=db, side=side: median_of(path, db, side))
    # The boot records' ingest before and after the database kept the reported mark: each
    # side's median rate and the new over the old.
    for db in ("postgresql", "sqlite"):
        path = BOOT_INGEST_REPORTED_AB.format(db=db)
        median = r"^median: old (\d+) records/s, new (\d+) records/s, new/old ([\d.]+)$"
        r.add(f"fleet.boot_ingest_reported_ab.{db}.old_rate", path,
              lambda path=path, median=median: show(int(r.file(path).grab(median, 1)), 0, True))
        r.add(f"fleet.boot_ingest_reported_ab.{db}.new_rate", path,
              lambda path=path, median=median: show(int(r.file(path).grab(median, 2)), 0, True))
        r.grab(f"fleet.boot_ingest_reported_ab.{db}.ratio", path, median, 3)
    # make bench's boots part: the database's tally alone, as boot-tally timed it.
    for stem in ("fleet-boots-bench-2026-12-07-reported", "fleet-boots-bench-2026-12-07-reported-b",
                 "fleet-boots-bench-2026-12-07-reported-seqscan-off"):
        path = M + stem + ".txt"
        for db, name in (("postgresql", "PostgreSQL"), ("sqlite", "SQLite")):
            if stem.endswith("seqscan-off") and db == "sqlite":
                continue  # a change to PostgreSQL's planner only
            alone = rf"^{name}: boot-tally: database \d+ host medians in ([\d.]+) s"
            r.add(f"fleet.{family_key(stem)[len('fleet_'):]}.{db}.tally_alone_s", path,
                  lambda path=path, alone=alone: show(float(r.file(path).grab(alone)), 2))
    r.grab("fleet.boot_ingest_reported_journal_ab.sqlite.ratio",
           BOOT_INGEST_REPORTED_AB.format(db="sqlite-journal-on-disk"),
           r"^median: old \d+ records/s, new \d+ records/s, new/old ([\d.]+)$")
    first = BOOT_INGEST_REPORTED_AB.format(db="sqlite-first-form")
    r.grab("fleet.boot_ingest_reported_first_ab.sqlite.ratio", first,
           r"^median: old \d+ records/s, new \d+ records/s, new/old ([\d.]+)$")
    # The whole answer with its boots, computed, before and after the temporary table.
    def answer(db, side, what):
        rounds = re.findall(rf"^{side}: ([\d.]+) s, peak (\d+) MB$", db_part(r, ANSWER_BOOTS_AB, db), re.M)
        if what == "s":
            return median_text([float(s) for s, _ in rounds], 2)
        return str(max(int(mb) for _, mb in rounds))
    for db in ("postgresql", "sqlite"):
        for side in ("old", "new"):
            r.add(f"fleet.answer_boots_ab.{db}.{side}_s", ANSWER_BOOTS_AB,
                  lambda db=db, side=side: answer(db, side, "s"))
        r.add(f"fleet.answer_boots_ab.{db}.new_peak_max_mb", ANSWER_BOOTS_AB,
              lambda db=db: answer(db, "new", "mb"))


def register_tests(r):
    """Figures the unit tests print, stored."""
    for key, prefix in (("old", "old kernel's runs"), ("newest", "newest"), ("all", "all")):
        line = lambda prefix=prefix: r.file(STALE).grab(rf"^{prefix}: (.*)$")  # noqa: E731
        r.add(f"fleet.stale.{key}_threads", STALE,
              lambda line=line: re.match(r"(?:keep_default|set) (\d+)", line()).group(1), optional=True)
        r.add(f"fleet.stale.{key}_s", STALE,
              lambda line=line: show(float(re.search(r", ([\d.]+) s \[", line()).group(1)), 1), optional=True)
        r.add(f"fleet.stale.{key}_low_s", STALE,
              lambda line=line: show(float(re.search(r"\[([\d.]+), ", line()).group(1)), 1), optional=True)
        r.add(f"fleet.stale.{key}_high_s", STALE,
              lambda line=line: show(float(re.search(r", ([\d.]+)\]", line()).group(1)), 1), optional=True)
    confidences = lambda: [(key, float(c), status) for key, c, status in re.findall(  # noqa: E731
        r"MESSAGE: (\S+): confidence ([\d.]+), status (\w+)", r.file(GENERATED).body)]
    skylake = lambda: [c for key, c, _ in confidences() if key.startswith("skylake")]  # noqa: E731
    for seed in (1, 2):
        r.add(f"fleet.generated.skylake_seed{seed}_pct", GENERATED,
              lambda seed=seed: show(skylake()[seed - 1] * 100, 1 if skylake()[seed - 1] * 1000 % 10 else 0), optional=True)
    old = M + "fleet-generated-confidence-2026-12-03.txt"
    r.add("fleet.generated_1203.skylake_seed2_pct", old, lambda: show(float(r.file(old).grab(
        r"MESSAGE: skylake\S+: confidence ([\d.]+)", 1, 1)) * 100), optional=True)
    others = lambda: [c for key, c, _ in confidences() if not key.startswith("skylake")]  # noqa: E731
    r.add("fleet.generated.others_min_pct", GENERATED, lambda: show(min(others()) * 100), optional=True)
    r.add("fleet.generated.others_max_pct", GENERATED, lambda: show(max(others()) * 100), optional=True)
    detection = lambda: r.file(GENERATED).grab(  # noqa: E731
        r"over (\d+) seeds: detection (\d+)/(\d+) \(.*\), false positives (\d+)/(\d+) \(([\d.]+)%\)", (1, 2, 3, 4, 5, 6))
    for i, name in enumerate(("seeds", "found", "planted", "false_positives", "clean", "false_positive_pct")):
        r.add(f"fleet.generated.{name}", GENERATED, lambda i=i: detection()[i], optional=True)
    runs = lambda binary: re.findall(rf"^{binary} [ab]: (peak resident memory|FAIL)", r.file(UNDER_LOAD).body, re.M)  # noqa: E731
    for key, binary in (("before", "/tmp/hugetune-db2bed4"), ("after", "build-test/hugetune")):
        r.add(f"fleet.memory_under_load.{key}_runs", UNDER_LOAD,
              lambda binary=binary: str(sum(x == "peak resident memory" for x in runs(binary))), optional=True)
        r.add(f"fleet.memory_under_load.{key}_failed", UNDER_LOAD,
              lambda binary=binary: str(runs(binary).count("FAIL")), optional=True)
    for side in ("A", "B", "C"):
        rounds = lambda side=side: [(float(s), int(kb)) for s, kb in re.findall(  # noqa: E731
            rf"^round \d+ {side}: ([\d.]+) s, peak memory (\d+) KB", r.file(MEMORY_100K).body, re.M)]
        s = side.lower()
        r.add(f"fleet.ingest_100k.{s}_min_s", MEMORY_100K, lambda rounds=rounds: show(min(t for t, _ in rounds()), 1), optional=True)
        r.add(f"fleet.ingest_100k.{s}_max_s", MEMORY_100K, lambda rounds=rounds: show(max(t for t, _ in rounds()), 1), optional=True)
        r.add(f"fleet.ingest_100k.{s}_peak_min_mb", MEMORY_100K, lambda rounds=rounds: show(min(k for _, k in rounds()) / 1000), optional=True)
        r.add(f"fleet.ingest_100k.{s}_peak_max_mb", MEMORY_100K, lambda rounds=rounds: show(max(k for _, k in rounds()) / 1000), optional=True)
        r.add(f"fleet.ingest_100k.{s}_rate", MEMORY_100K,
              lambda rounds=rounds: show(100000 / median([t for t, _ in rounds()]), 0, True), optional=True)
    for side in ("before", "after"):
        rounds = lambda side=side: [(float(s), int(kb)) for s, kb in re.findall(  # noqa: E731
            rf"^{side} run \d+: ([\d.]+) s, peak memory (\d+) KB", r.file(ANSWER_100K_BEFORE).body, re.M)]
        r.add(f"fleet.answer_100k_streamed.{side}_min_s", ANSWER_100K_BEFORE, lambda rounds=rounds: show(min(t for t, _ in rounds()), 2), optional=True)
        r.add(f"fleet.answer_100k_streamed.{side}_max_s", ANSWER_100K_BEFORE, lambda rounds=rounds: show(max(t for t, _ in rounds()), 2), optional=True)
        r.add(f"fleet.answer_100k_streamed.{side}_peak_mb", ANSWER_100K_BEFORE,
              lambda rounds=rounds: show(max(k for _, k in rounds()) / 1000), optional=True)


def register_profiles(r):
    """tests/bench/fleet_ingest_profile.sh: the share of samples per program, and the client's
    escaping (`copy_text`)."""
    for key in ("text", "binary"):
        path = M + f"fleet-ingest-profile-2026-12-04-{key}.txt"
        for program in ("hugetune", "postgres", "swapper"):
            r.add(f"fleet.profile_{key}.{program}_pct", path,
                  lambda path=path, program=program: r.file(path).grab(rf"^ +([\d.]+)%  {program}[-\w]* *$"), optional=True)
        r.add(f"fleet.profile_{key}.copy_text_pct", path,
              lambda path=path: r.file(path).grab(r"^ +([\d.]+)% .*storage::copy_text"), optional=True)


BOOTS_C = M + "fleet-boots-bench-2026-12-04-c.txt"


def boots_block(r):
    """fleet_boots.sh's output as the table docs/fleet.md shows."""
    v = parse_lines(r, BOOTS_C, BOOTS_LINES)
    mb = r.file(BOOTS_C).grab(r"^generated 1000000 boot records \((\d+) MB\)")
    pg, lite = "postgresql", "sqlite"
    return "\n".join([
        "| | PostgreSQL (local server) | SQLite | target |",
        "|---|---|---|---|",
        f"| ingest of 1,000,000 records ({mb} MB of JSON Lines) | {v[pg + '.ingest_s']} s, {v[pg + '.ingest_rate']} records/s, "
        f"{v[pg + '.ingest_peak_mb']} MB | {v[lite + '.ingest_s']} s, {v[lite + '.ingest_rate']}/s, {v[lite + '.ingest_peak_mb']} MB "
        "| 10,000/s into PostgreSQL, memory bounded |",
        f"| one SKU's 100,000 boots tallied by the database | {v[pg + '.tally_s']} s, {v[pg + '.tally_peak_mb']} MB | "
        f"{v[lite + '.tally_s']} s, {v[lite + '.tally_peak_mb']} MB | |",
        f"| the same records read and tallied by the client | {v[pg + '.client_s']} s, {v[pg + '.client_peak_mb']} MB | "
        f"{v[lite + '.client_s']} s, {v[lite + '.client_peak_mb']} MB | |",
        "| the two tallies | " + " | ".join(
            "the same bytes" if re.search(rf"^{db}: the database's tally and the client's are the same bytes$", r.file(BOOTS_C).body, re.M)
            else "not the same" for db in ("PostgreSQL", "SQLite")) + " | |",
        f"| the SKU's answer with its 100,000 boots, computed | {v[pg + '.answer_s']} s, {v[pg + '.answer_peak_mb']} MB | "
        f"{v[lite + '.answer_s']} s, {v[lite + '.answer_peak_mb']} MB | under 1 s and 200 MB |"])


def register_boots_table(r):
    r.add("fleet.boots_bench.table", BOOTS_C, lambda: boots_block(r), block=True)


SPREAD = M + "fleet-sample-spread-2026-12-05.txt"


def register_sample_spread(r):
    """tests/bench/sample_spread.py: how far apart one machine's timings lie, behind
    kSameSampleShare, and the chance two samples agree within it."""
    spread = lambda path, which: float(r.file(SPREAD).grab(  # noqa: E731
        rf"^  {re.escape(path)}: .* sd ([\d.]+), MAD ([\d.]+)$", 1 if which == "sd" else 2))
    zen4, report1, report2 = ("tests/data/sweep-zen4-2node.json", "tests/fixtures/fleet/report-1.json",
                              "tests/fixtures/fleet/report-2.json")
    r.number("fleet.sample_spread.repetitions_low_pct", SPREAD, lambda: spread(zen4, "sd") * 100, 1)
    r.number("fleet.sample_spread.repetitions_high_pct", SPREAD, lambda: spread(report1, "MAD") * 100, 1)
    r.number("fleet.sample_spread.repetitions_mad_pct", SPREAD, lambda: spread(zen4, "MAD") * 100, 1)
    r.number("fleet.sample_spread.vm_repetitions_pct", SPREAD, lambda: spread(report2, "MAD") * 100)
    r.number("fleet.sample_spread.two_runs_nearest_pct", SPREAD,
             lambda: float(r.file(SPREAD).grab(r"^  the nearest over all points: ([\d.]+)$")) * 100, 1)
    runs = lambda: [float(x) for x in r.file(SPREAD).grab_all(r"^  docs/measurements/run-repeat.*, sd ([\d.]+)$")]  # noqa: E731
    r.number("fleet.sample_spread.runs_low_pct", SPREAD, lambda: min(runs()) * 100, 1)
    r.number("fleet.sample_spread.runs_high_pct", SPREAD, lambda: max(runs()) * 100, 1)
    chance = lambda share, what: float(r.file(SPREAD).grab(  # noqa: E731
        rf"^two independent samples .* within {share} of each other: about ([\d.e+-]+); all 3 of the smallest sweep "
        r"([\d.e+-]+), all 21 of a fixture's ([\d.e+-]+); expected among the 5e9 pairs .*: ([\d.e+-]+)$",
        {"one": 1, "three": 2, "fixture": 3, "expected": 4}[what]))
    mantissa = lambda x: x / 10 ** math.floor(math.log10(x))  # noqa: E731
    exponent = lambda x: math.floor(math.log10(x))  # noqa: E731
    r.number("fleet.sample_spread.one_in_100k", SPREAD, lambda: chance("1e-06", "one") * 1e5, 1)
    r.number("fleet.sample_spread.fixture_mantissa", SPREAD, lambda: mantissa(chance("1e-06", "fixture")), 1)
    r.number("fleet.sample_spread.fixture_exp", SPREAD, lambda: exponent(chance("1e-06", "fixture")))
    r.number("fleet.sample_spread.three_mantissa", SPREAD, lambda: mantissa(chance("1e-06", "three")), 1)
    r.number("fleet.sample_spread.three_exp", SPREAD, lambda: exponent(chance("1e-06", "three")))
    r.number("fleet.sample_spread.expected_mantissa", SPREAD, lambda: mantissa(chance("1e-06", "expected")), 1)
    r.number("fleet.sample_spread.expected_exp", SPREAD, lambda: exponent(chance("1e-06", "expected")))
    r.number("fleet.sample_spread.expected_at_1e_4", SPREAD, lambda: chance("0.0001", "expected"))


CAMPS = M + "fleet-false-camps-2026-12-05.txt"
CAMPS_BEFORE = M + "fleet-false-camps-2026-12-05-camp-rule-as-on-main.txt"


def camp_runs(r, path):
    """false-camps' runs in a stored file: (SKUs, hosts disagree, hosts left out %) each."""
    return [(int(skus), int(bad), float(out)) for skus, out, bad in re.findall(
        r"^clean SKUs: (\d+) .*\n.*\nhosts left out as outliers: \d+ of \d+ \(([\d.]+)%\)\n(?:.*\n){2}"
        r"SKUs hosts_disagree \(false camp rate\): (\d+) of", r.file(path).body, re.M)]


def register_false_camps(r):
    """false-camps (tests/support/false_camps.cpp): clean generated SKUs that end hosts_disagree,
    with the camp rule as it is and as it was before its agreement factor."""
    for i, name in enumerate(("seed1", "seed2", "count_noise")):
        r.add(f"fleet.false_camps.{name}", CAMPS, lambda i=i: str(camp_runs(r, CAMPS)[i][1]))
        r.add(f"fleet.false_camps.{name}_skus", CAMPS, lambda i=i: f"{camp_runs(r, CAMPS)[i][0]:,}")
    r.number("fleet.false_camps.left_out_min_pct", CAMPS, lambda: min(x for _, _, x in camp_runs(r, CAMPS)), 1)
    r.number("fleet.false_camps.left_out_max_pct", CAMPS, lambda: max(x for _, _, x in camp_runs(r, CAMPS)), 1)
    for i, name in enumerate(("seed1", "seed2")):
        r.add(f"fleet.false_camps_before.{name}", CAMPS_BEFORE, lambda i=i: str(camp_runs(r, CAMPS_BEFORE)[i][1]))
        r.add(f"fleet.false_camps_before.{name}_skus", CAMPS_BEFORE, lambda i=i: f"{camp_runs(r, CAMPS_BEFORE)[i][0]:,}")
        r.number(f"fleet.false_camps_before.{name}_pct", CAMPS_BEFORE,
                 lambda i=i: 100 * camp_runs(r, CAMPS_BEFORE)[i][1] / camp_runs(r, CAMPS_BEFORE)[i][0], 1)


ALLOCATORS = M + "allocators-2026-12-06-c.txt"
ALLOCATORS_FIRST = M + "allocators-2026-12-06.txt"


def allocator_line(db, name):
    return rf"^{db} {name}: median (\d+) reports/s, ([\d.]+) of glibc, peak memory up to (\d+) MB$"


def allocators_table(r):
    """tests/bench/allocators.sh's medians as a table, an allocator a row."""
    out = ["| allocator | SQLite, reports/s | of glibc | peak | PostgreSQL, reports/s | of glibc | peak |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in ALLOCATOR_NAMES:
        cells = []
        for db in ("SQLite", "PostgreSQL"):
            rate, ratio, peak = r.file(ALLOCATORS).grab(allocator_line(db, name), (1, 2, 3))
            cells += [shown_number(rate), ratio, peak + " MB"]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


ALLOCATOR_NAMES = ("glibc", "own", "tcache", "mimalloc", "jemalloc")


def register_allocators(r):
    """tests/bench/allocators.sh: each allocator's median ingest rate, its ratio to glibc's and
    its highest peak, into SQLite and PostgreSQL."""
    r.add("fleet.allocators.table", ALLOCATORS, lambda: allocators_table(r), block=True)
    r.grab("fleet.allocators.load_before", ALLOCATORS, r"load average ([\d.]+) ")
    for db in ("SQLite", "PostgreSQL"):
        key = f"fleet.allocators.{db.lower()}"
        line = allocator_line(db, "glibc")
        r.add(key + ".glibc.rate", ALLOCATORS, lambda line=line: shown_number(r.file(ALLOCATORS).grab(line, 1)))
        r.grab(key + ".glibc.peak_mb", ALLOCATORS, line, 3)
        rounds = lambda db=db: [int(x) for x in r.file(ALLOCATORS).grab_all(  # noqa: E731
            rf"^round \d+ glibc {db}: [\d.]+ s, (\d+) reports/s")]
        r.add(key + ".glibc.min", ALLOCATORS, lambda rounds=rounds: f"{min(rounds()):,}")
        first = allocator_line(db, "glibc")
        r.add(key + ".glibc.first_rate", ALLOCATORS_FIRST, lambda first=first: shown_number(r.file(ALLOCATORS_FIRST).grab(first, 1)))
        ratios = lambda db=db: [float(r.file(ALLOCATORS).grab(allocator_line(db, n), 2)) for n in ALLOCATOR_NAMES[1:]]  # noqa: E731
        r.number(key + ".fastest_ratio", ALLOCATORS, lambda ratios=ratios: max(ratios()), 2)
        r.number(key + ".slowest_ratio", ALLOCATORS, lambda ratios=ratios: min(ratios()), 2)


BOOT_MEMORY = M + "boot-ingest-memory-2026-12-06.txt"
BOOT_MEMORY_BEFORE = M + "boot-ingest-memory-2026-12-06-window-64-stopped.txt"


def register_boot_ingest_memory(r):
    """tests/bench/boot_ingest_memory.sh: per file of records, each side's time, rate and peak."""
    for path, prefix, sides in ((BOOT_MEMORY, "fleet.boot_memory", ("A", "B")),
                                (BOOT_MEMORY_BEFORE, "fleet.boot_memory_before", ("A",))):
        for records, key in (("1000000", "m1"), ("2000000", "m2")):
            for side in sides:
                for db in ("SQLite", "PostgreSQL"):
                    line = (rf"^file: \S+, {records} records, \d+ MB\n(?:.*\n)*?{side} {db}: ([\d.]+) s, "
                            rf"(\d+) records/s, peak memory (\d+) MB")
                    k = f"{prefix}.{key}.{side.lower()}.{db.lower()}"
                    r.add(k + ".rate", path, lambda path=path, line=line: shown_number(r.file(path).grab(line, 2)),
                          optional=True)
                    r.add(k + ".peak_mb", path, lambda path=path, line=line: r.file(path).grab(line, 3), optional=True)


ANSWER_QUIET = M + "fleet-answer-100k-quiet-2026-12-07-b.txt"


def register_answer_quiet(r):
    """The 100,000-host answer with its boots, quiet, on databases filled as a fleet fills them:
    per database the median, lowest and highest of its rounds and its highest peak in MB."""
    def rounds(db):
        return [float(t) for t in re.findall(rf"^{db} round \d+: ([\d.]+) s", r.file(ANSWER_QUIET).body, re.M)]

    def peaks(db):
        return [int(k) for k in re.findall(rf"^{db} round \d+: [\d.]+ s, peak (\d+) kB", r.file(ANSWER_QUIET).body, re.M)]
    for db, key in (("PostgreSQL", "postgresql"), ("SQLite", "sqlite")):
        base = f"fleet.answer_100k_quiet_2026_12_07.{key}"
        r.add(base + ".median_s", ANSWER_QUIET, lambda db=db: median_text(rounds(db), 2))
        r.add(base + ".min_s", ANSWER_QUIET, lambda db=db: show(min(rounds(db)), 2))
        r.add(base + ".max_s", ANSWER_QUIET, lambda db=db: show(max(rounds(db)), 2))
        r.add(base + ".peak_mb", ANSWER_QUIET, lambda db=db: str(round(max(peaks(db)) / 1024)))


HUGE_HEAP_AB = M + "fleet-answer-100k-huge-heap-ab-2026-12-07.txt"
TALLY_BESIDE_AB = M + "fleet-answer-100k-tally-beside-huge-heap-ab-2026-12-07.txt"


def register_answer_ab_2026_12_07(r):
    """The 100,000-host answer with its boots, two binaries in turns on both databases
    (answer_ab.sh, the script in each file): the figures docs/fleet.md states of a side (a, b)
    and database: median, lowest and highest seconds, highest peak in MB, median thousands of
    minor page faults; per database its rounds and the ratio of the medians."""
    stated = {
        ("huge_heap_ab", "postgresql"): ["rounds", "ratio", "a.median_s", "a.faults_k", "b.median_s",
                                         "b.min_s", "b.max_s", "b.peak_mb", "b.faults_k"],
        ("huge_heap_ab", "sqlite"): ["ratio", "a.median_s", "b.median_s", "b.min_s", "b.max_s",
                                     "b.peak_mb"],
        ("tally_beside_ab", "postgresql"): ["rounds", "a.median_s", "b.median_s", "a.peak_mb",
                                            "b.peak_mb"],
        ("tally_beside_ab", "sqlite"): ["a.median_s", "b.median_s"],
    }
    paths = {"huge_heap_ab": HUGE_HEAP_AB, "tally_beside_ab": TALLY_BESIDE_AB}

    def rows(path, db, side):
        return [(float(t), int(mb), int(faults)) for t, mb, faults in re.findall(
            rf"^{db} round \d+ {side}: ([\d.]+) s, peak (\d+) MB, (\d+) minor faults",
            r.file(path).body, re.M)]

    def middle(values):
        return sorted(values)[len(values) // 2]

    def value(path, db, what):
        if what == "rounds":
            return str(len(rows(path, db, "B")))
        if what == "ratio":
            return show(middle([x[0] for x in rows(path, db, "B")]) /
                        middle([x[0] for x in rows(path, db, "A")]), 2)
        side, field = what.split(".")
        got = rows(path, db, side.upper())
        return {"median_s": lambda: median_text([x[0] for x in got], 2),
                "min_s": lambda: show(min(x[0] for x in got), 2),
                "max_s": lambda: show(max(x[0] for x in got), 2),
                "peak_mb": lambda: str(max(x[1] for x in got)),
                "faults_k": lambda: str(round(middle([x[2] for x in got]) / 1000))}[field]()

    for (name, db), whats in stated.items():
        for what in whats:
            r.add(f"fleet.answer_100k_2026_12_07.{name}.{db}.{what}", paths[name],
                  lambda path=paths[name], db=db, what=what: value(path, db, what))


DIGEST_READS = [M + f"bench-json-digest-2026-12-07-{x}.txt" for x in "ab"]


def register_digest_formats(r):
    """bench_json's read of a run's digest five ways, two runs (docs/fleet.md "Run digests"): the
    sizes, the plain reader's time, and each other way's time as a share of it, lowest to highest
    over the runs."""
    def times(path, way):
        return [float(t) for t in r.file(path).grab_all(rf"^run digest, {re.escape(way)} +([\d.]+) us,")]

    def shares(way):
        return [float(x) for path in DIGEST_READS for x in r.file(path).grab_all(
            rf"^run digest, {re.escape(way)} +[\d.]+ us, ([\d.]+) of the plain reader's time")]
    for name, group in (("json_bytes", 1), ("cbor_bytes", 2), ("msgpack_bytes", 3)):
        r.number(f"bench_json.digest.{name}", DIGEST_READS, lambda group=group: int(the_one(
            [r.file(p).grab(r"^run digest: (\d+) bytes of JSON, (\d+) of CBOR, (\d+) of MessagePack", group)
             for p in DIGEST_READS], "the digest's sizes")), thousands=True)
    plain = lambda: [t for p in DIGEST_READS for t in times(p, "plain reader")]  # noqa: E731
    r.number("bench_json.digest.plain_max_us", DIGEST_READS, lambda: max(plain()), 2)
    whole = lambda: [t for p in DIGEST_READS for t in times(p, "read_run_digest, whole")]  # noqa: E731
    r.number("bench_json.digest.whole_max_us", DIGEST_READS, lambda: max(whole()), 2)
    for key, way in (("json", "nlohmann/json parse"), ("cbor", "CBOR (nlohmann)"),
                     ("msgpack", "MessagePack (nlohmann)")):
        r.number(f"bench_json.digest.{key}_min_share", DIGEST_READS, lambda way=way: min(shares(way)), 2)
        r.number(f"bench_json.digest.{key}_max_share", DIGEST_READS, lambda way=way: max(shares(way)), 2)
