#!/usr/bin/env bash
# One reader per document type: a document's own keys are read (["key"]) only in its reader and
# written ({"key", ...}, doc["key"] = ...) only by its writer, so every consumer takes the reader's type. Prints
# each type with its reader and the places that call it; a key read or written anywhere else is
# printed with the owner to ask, and the script exits 1.
set -uo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2

sources() {
    git ls-files --cached --others --exclude-standard 'model/*.[ch]pp' 'reports/*.[ch]pp' \
        'fleet_db/*.[ch]pp' 'cli/*.[ch]pp' 'tuner/*.[ch]pp'
}

bad=0
# document TYPE READER_FILE READER_FUNCTION WRITERS KEYS: KEYS (an alternation) are the type's
# own members; WRITERS a space-separated list of files.
document() {
    local type=$1 reader=$2 function=$3 writers=$4 keys=$5 hit file callers
    while IFS= read -r hit; do
        file=${hit%%:*}
        [[ $file == "$reader" || " $writers " == *" $file "* ]] && continue
        echo "$hit: reads a $type by its keys; ask $function ($reader)"
        bad=1
    done < <(sources | xargs grep -nE "\[\"($keys)\"\]" /dev/null)
    while IFS= read -r hit; do
        file=${hit%%:*}
        [[ $file == "$reader" || " $writers " == *" $file "* ]] && continue
        echo "$hit: names a $type's key; only $reader and its writer ($writers) do"
        bad=1
    done < <(sources | grep -v '\.hpp$' | xargs grep -nE "\"($keys)\"" /dev/null)
    callers=$(sources | grep -v -e "^${reader%.*}\." -e '\.hpp$' |
        xargs grep -lE "[^a-z_]($function)\(" | tr '\n' ' ')
    printf '%-14s read by %s (%s); parsed at: %s\n' "$type" "$function" "$reader" "${callers:-none}"
}

document report model/documents/report.cpp read_report "model/documents/report_writer.cpp" \
    'memory_per_node_gib|hardware_threads_per_node|first_touch'
# The report's recommendation block repeats the fit's, and the report's reader reads it (a short
# form has no fit).
document fit model/documents/fit.cpp read_fit "model/documents/report.cpp" \
    'predicted_seconds_interval|default_threads_per_node|predicted_default_seconds|measured_boot_seconds'
document sweep model/documents/sweep.cpp 'read_measured_sweep|parse_sweep_json' \
    "model/documents/sweep_block.cpp tuner/sweep/sweep_output.cpp" 'samples_seconds|gib_per_second|shortfall_pages'
document verification model/documents/verification.cpp read_verification "" \
    'pool_predicted_ms|ratio_refused|expected_threads|cmdline_value|log_line'
# A boot record is a document of its own (docs/fleet.md "Boots"), told apart from a report by
# its kind.
document boot-record model/documents/boot_record.cpp read_boot_record "" \
    'allocation_line|absent_reason|expected_alloc_threads'
document boot-sweep model/input/boot_sweep_json.cpp parse_boot_sweep_json \
    "tuner/boot_sweep/result.cpp" 'by_threads|median_ms'
document fleet-answer model/documents/fleet_answer.cpp read_fleet_answer "" \
    'status_reason|verified_boots|sku_fields'
# A run's facts as the fleet database keeps them beside the report (docs/fleet.md "Run digests").
document run-digest model/fleet/run_digest.cpp read_run_digest "" 'samples_digest'

# Every key of the report (each member name its shipped schema has, at any depth) is read or
# written as JSON (["key"], .at("key"), .value("key", {"key", ...) only by the files that own a
# document: the report's blocks, and the other documents hugetune reads or writes, some of which
# share a member name with it ("threads", "pages"). A file that digs into a report by its keys
# anywhere else is printed with the key.
report_owners="model/documents/report.cpp model/documents/report_writer.cpp model/documents/fit.cpp
    model/documents/probe_record.cpp model/documents/breakdown.cpp model/documents/sweep.cpp
    model/documents/sweep_block.cpp model/documents/verification.cpp
    tuner/sweep/sweep_output.cpp tuner/probe/probe_output.cpp model/input/sweep_json.cpp
    model/documents/boot_comparison.cpp"
other_documents=(
    "model/documents/fleet_answer.cpp model/fleet/to_json.cpp: the fleet's answers"
    "cli/fleet_db_option.cpp cli/cmd_fleet_forget.cpp cli/cmd_fleet_hosts.cpp: fleet --json results"
    "tuner/boot_sweep/result.cpp tuner/boot_sweep/state.cpp model/input/boot_sweep_json.cpp: the boot sweep's result and state"
    "tuner/sweep/plan.cpp: the sweep plan (--dry-run --json)"
    "tuner/boot/ledger.cpp: apply's ledger"
    "tuner/sweep/pool_state.cpp cli/cmd_restore.cpp: the saved pools and restore's result"
    "cli/json_result.cpp cli/cmd_boot_sweep.cpp cli/cmd_verify.cpp cli/cmd_fleet_ingest.cpp: the commands' --json results"
    "reports/prometheus.cpp: the Prometheus labels"
    "fleet_db/report_intake.cpp: the intake's version check before the reader"
    "cli/setting_flags.cpp cli/commands.cpp: setting and command names, not JSON"
    "fleet_db/db_target.cpp: libpq's connection keywords, not JSON"
    "model/fleet/run_facts.cpp: a stored verification's name in messages"
    "model/fleet/run_digest.cpp: a run's digest, the facts of its report the fleet keeps"
    "model/documents/boot_record.cpp: the boot record"
)
# shellcheck disable=SC2086
allowed=" $(echo $report_owners) "
for entry in "${other_documents[@]}"; do
    allowed+=" ${entry%%:*} "
done
while IFS=$'\t' read -r file keys; do
    [[ $allowed == *" $file "* ]] && continue
    echo "$file: names the report's keys $keys as JSON; ask read_report (model/documents/report.cpp) or the reader of the document it means"
    bad=1
done < <(
    python3 - "$(git ls-files --cached --others --exclude-standard 'model/*.[ch]pp' \
        'reports/*.[ch]pp' 'fleet_db/*.[ch]pp' 'cli/*.[ch]pp' 'tuner/*.[ch]pp')" <<'PY'
import json, re, sys
keys = set()
def walk(node):
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            keys.add(key)
            walk(value)
        for key, value in node.items():
            if key != "properties":
                walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
walk(json.load(open("model/documents/schema/report.schema.json")))
access = re.compile(r'(?:\[|\.at\(|\.value\(|\.contains\(|\{)\s*"([a-z_0-9]+)"\s*[\],)]')
for path in sys.argv[1].split():
    code = re.sub(r"//[^\n]*", "", open(path).read())
    named = sorted({m.group(1) for m in access.finditer(code)} & keys)
    if named:
        print(path + "\t" + " ".join(named))
PY
)
printf '%-14s %d keys from model/documents/schema/report.schema.json\n' "report keys" \
    "$(python3 -c 'import json,re;print(len(set(re.findall(r"\"([a-z_0-9]+)\": *\{", json.dumps(json.load(open("model/documents/schema/report.schema.json"))["properties"]))) ))')"
exit "$bad"
