#!/usr/bin/env bash
# Every Prometheus writer against one definition per metric (reports/prometheus.hpp): the files
# of `verify --prometheus` (verified, not verified, could not judge), of the verify unit's
# wrapper run with the real hugetune, and of `fleet export --format prometheus` are gathered,
# and each metric name must have one HELP text, one TYPE and one set of label names across all
# of them. A small parser checks the text format; promtool (Debian: prometheus), the
# Prometheus project's own checker, then lints each file.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "the checks parse the files with it (Debian: python3)"
gen=$(dirname "$bin")/tests/gen-fleet
[[ -x $gen ]] || skip "no $gen: the build makes it beside hugetune"
wrapper=$(dirname "$bin")/systemd/verify-boot
[[ -x $wrapper ]] || fail "no $wrapper: cmake configures it"
logs=$src/tests/fixtures/boot/logs
mkdir "$work/prom"

# verify: a verified boot, a boot short of its pool (with a report: the sku label), and one it
# cannot judge (a log without its command line), which still replaces the textfile.
"$gen" --seed 3 --out "$work/fleet" --skus 2 --hosts-per-sku 6 --outliers 1 --verify-share 0.5 >/dev/null 2>&1
rm "$work/fleet/truth.json"
expect 0 "$bin" verify --log "$logs/dmesg-6.15-threads32.log" --prometheus "$work/prom/verified.prom"
cp "$work/fleet/skylake-sp-0-host00.json" "$work/report.json"
expect 1 "$bin" verify --log "$logs/dmesg-6.15-shortfall.log" --report "$work/report.json" \
    --prometheus "$work/prom/shortfall.prom"
cp "$work/prom/verified.prom" "$work/prom/unjudged.prom"
expect 2 "$bin" verify --log "$logs/dmesg-rotated.log" --prometheus "$work/prom/unjudged.prom"
grep -qx 'hugetune_verify_exit_code 2' "$work/prom/unjudged.prom" ||
    fail "a verify that could not judge left: $(cat "$work/prom/unjudged.prom")"
grep -q '^hugetune_boot_verified' "$work/prom/unjudged.prom" &&
    fail "the last boot's verdict stands after a verify that could not judge"

# The unit's wrapper, with the real hugetune reading a saved log.
cat >"$work/hugetune" <<SHIM
#!/bin/sh
exec "$bin" "\$@" --log "$logs/dmesg-6.15-threads32.log"
SHIM
chmod +x "$work/hugetune"
mkdir "$work/state"
echo '{"value": "32"}' >"$work/state/applied.json"
HUGETUNE=$work/hugetune HUGETUNE_STATE_DIR=$work/state HUGETUNE_TEXTFILE=$work/prom/unit.prom \
    expect 0 "$wrapper"

# fleet export.
expect 0 "$bin" fleet ingest --db "$work/fleet.db" "$work/fleet"
expect 0 "$bin" fleet export --db "$work/fleet.db" --format prometheus --out "$work/prom/fleet.prom"
expect 0 "$bin" fleet export --db "$work/fleet.db" --format json
cp "$out" "$work/answers.json"

python3 -S - "$work/prom" "$work/fleet" "$work/answers.json" <<'PY' || fail "the metrics above disagree"
import glob, json, os, re, sys, calendar, time
prom_dir, reports_dir, answers_file = sys.argv[1:4]
name = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
label = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
sample = re.compile(rf"^({name})(?:\{{({label}(?:,{label})*)?\}})? (\S+)$")
helps, types, label_sets, errors = {}, {}, {}, []
series = {}
for path in sorted(glob.glob(os.path.join(prom_dir, "*.prom"))):
    file = os.path.basename(path)
    text = open(path).read()
    if not text.endswith("\n"):
        errors.append(f"{file}: no newline at the end")
    typed, seen = set(), set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            metric, _, help_text = line[7:].partition(" ")
            helps.setdefault(metric, set()).add(help_text)
        elif line.startswith("# TYPE "):
            metric, _, kind = line[7:].partition(" ")
            if kind not in ("gauge", "counter", "untyped", "summary", "histogram"):
                errors.append(f"{file}: {line}: unknown type")
            if metric in typed:
                errors.append(f"{file}: {metric} typed twice")
            typed.add(metric)
            types.setdefault(metric, set()).add(kind)
        else:
            m = sample.match(line)
            if not m:
                errors.append(f"{file}: not a sample: {line}")
                continue
            metric, labels_text, value = m.group(1), m.group(2) or "", m.group(m.lastindex)
            float(value)
            pairs = re.findall(label, labels_text)
            if metric not in typed:
                errors.append(f"{file}: {metric} sampled before its TYPE")
            if (metric, tuple(pairs)) in seen:
                errors.append(f"{file}: {line}: a series twice")
            seen.add((metric, tuple(pairs)))
            label_sets.setdefault(metric, set()).add(tuple(k for k, _ in pairs))
            series.setdefault(metric, []).append((file, dict(pairs), float(value)))
for metric in sorted(set(helps) | set(types) | set(label_sets)):
    for what, table in (("HELP texts", helps), ("TYPEs", types), ("label sets", label_sets)):
        if len(table.get(metric, ())) != 1:
            errors.append(f"{metric}: {len(table.get(metric, ()))} {what}: {sorted(table.get(metric, ()))}")

def files_of(metric):
    return sorted({f for f, _, _ in series.get(metric, [])})

# The metrics both verify and the unit write are the same ones.
for metric in ("hugetune_boot_allocation_threads", "hugetune_boot_verified",
               "hugetune_verify_exit_code", "hugetune_verify_timestamp_seconds"):
    if "unit.prom" not in files_of(metric) or "verified.prom" not in files_of(metric):
        errors.append(f"{metric}: written by {files_of(metric)}, not by verify and the unit")
if [v for f, _, v in series.get("hugetune_verify_exit_code", []) if f == "unit.prom"] != [0]:
    errors.append("the unit's textfile does not hold verify's exit code 0")
# The value expected, here the report's recommendation; a verify without ledger or report has none.
recommended = json.load(open(os.path.join(reports_dir, "skylake-sp-0-host00.json")))["recommendation"]["hugepage_alloc_threads"]
expected = [(f, v) for f, _, v in series.get("hugetune_boot_expected_threads", [])]
if expected != [("shortfall.prom", recommended)]:
    errors.append(f"expected threads {expected}, not the report's {recommended} for shortfall.prom alone")
now = time.time()
for f, _, v in series.get("hugetune_verify_timestamp_seconds", []):
    if not now - 600 < v <= now + 1:
        errors.append(f"{f}: verify's time {v} is not now")
if [l["sku"].startswith("skylake-sp/4n/28t/192g/2048k") for f, l, _ in
        series.get("hugetune_boot_verified", []) if f == "shortfall.prom"] != [True]:
    errors.append("the shortfall's samples lack the report's SKU")

# fleet: one status sample per status value, one of them 1; confidence; the newest report's time.
answers = {a["sku"]: a for a in json.load(open(answers_file))}
status_sets = {frozenset(l["status"] for _, l, _ in series.get("hugetune_fleet_sku_status", [])
                         if l["sku"] == key) for key in answers}
if len(status_sets) != 1:
    errors.append(f"the SKUs list other status values: {status_sets}")
newest = {}
for path in glob.glob(os.path.join(reports_dir, "*.json")):
    d = json.load(open(path))
    s = d["sku"]
    ioa = s.get("init_on_alloc", d.get("kernel", {}).get("init_on_alloc"))
    key = f'{s["microarch"]}/{s["nodes"]}n/{s["hardware_threads_per_node"]}t/{s["memory_per_node_gib"]}g/{s["page_size_kb"]}k' + {True: "/ioa1", False: "/ioa0"}.get(ioa, "")
    t = calendar.timegm(time.strptime(d["generated_at"], "%Y-%m-%dT%H:%M:%SZ"))
    newest[key] = max(newest.get(key, 0), t)
for key, a in answers.items():
    status = {l["status"]: v for _, l, v in series.get("hugetune_fleet_sku_status", []) if l["sku"] == key}
    if not {"settled", "needs_more_hosts", "disagrees_with_verification"} <= set(status) or \
            [s for s, v in status.items() if v == 1] != [a["status"]] or sum(status.values()) != 1:
        errors.append(f"{key}: status samples {status}, the answer says {a['status']}")
    conf = [v for _, l, v in series.get("hugetune_fleet_confidence_ratio", []) if l["sku"] == key]
    if conf != [a["confidence"]]:
        errors.append(f"{key}: confidence {conf}, the answer {a['confidence']}")
    latest = [v for _, l, v in series.get("hugetune_fleet_latest_report_timestamp_seconds", []) if l["sku"] == key]
    if latest != [newest[key]]:
        errors.append(f"{key}: newest report at {latest}, the reports say {newest[key]}")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY

require_command promtool "the Prometheus project's checker of the text format (Debian: prometheus)"
for f in "$work"/prom/*.prom; do
    promtool check metrics <"$f" >"$work/promtool.out" 2>&1 ||
        fail "promtool check metrics $(basename "$f"): $(cat "$work/promtool.out")"
done
echo "prometheus: $(ls "$work/prom" | wc -l) files, every metric defined once; promtool accepts them"
