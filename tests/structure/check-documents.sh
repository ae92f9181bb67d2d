#!/usr/bin/env bash
# One reader per document type: a document's own keys are read (["key"]) only in its reader and
# written ({"key", ...}) only by its writer, so every consumer takes the reader's type. Prints
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
        [[ $file == "$reader" ]] && continue
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
    'schema_version|boot_pool|what_if|first_touch|boot_sweep'
document fit model/documents/fit.cpp read_fit "" \
    'predicted_seconds_interval|default_threads_per_node|predicted_default_seconds|measured_boot_seconds'
document sweep model/documents/sweep.cpp 'read_measured_sweep|parse_sweep_json' \
    "tuner/sweep/sweep_output.cpp" 'samples_seconds|gib_per_second|shortfall_pages'
document verification model/documents/verification.cpp read_verification "" \
    'pool_predicted_ms|ratio_refused|expected_threads|cmdline_value|log_line'
document boot-sweep model/input/boot_sweep_json.cpp parse_boot_sweep_json \
    "tuner/boot_sweep/result.cpp" 'by_threads|median_ms'
document fleet-answer model/documents/fleet_answer.cpp read_fleet_answer "" \
    'status_reason|verified_boots|sku_fields'
exit "$bad"
