#!/usr/bin/env bash
# A SKU's boot tally by the database, two builds side by side: boot-tally (tests/support/
# boot_tally.cpp) of OLD and of NEW on the same databases, in turns, ROUNDS times each, each
# round's time as boot-tally prints it; then whether the two tallies are the same bytes, and
# whether the last database's tally is the same bytes as the first's. Each DB is a SQLite file or
# a postgresql:// URL holding the SKU's reports and boots (tests/bench/fleet_boots.sh makes such
# a fleet), or two of them as OLD_DB::NEW_DB, each build's own (where NEW's schema is one that
# OLD refuses: the same reports and boots, ingested by each). Asserts nothing but that every
# tally ran.
#     usage: tests/bench/boot_tally_ab.sh OLD_BOOT_TALLY NEW_BOOT_TALLY SKU ROUNDS DB...
set -euo pipefail
old=${1:?usage: boot_tally_ab.sh OLD_BOOT_TALLY NEW_BOOT_TALLY SKU ROUNDS DB...}
new=${2:?usage: boot_tally_ab.sh OLD_BOOT_TALLY NEW_BOOT_TALLY SKU ROUNDS DB...}
sku=${3:?usage: boot_tally_ab.sh OLD_BOOT_TALLY NEW_BOOT_TALLY SKU ROUNDS DB...}
rounds=${4:?usage: boot_tally_ab.sh OLD_BOOT_TALLY NEW_BOOT_TALLY SKU ROUNDS DB...}
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "SKU: $sku; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
first=""
for db in "$@"; do
    old_db=${db%%::*} new_db=${db##*::}
    case $db in postgresql*) echo "PostgreSQL:" ;; *) echo "SQLite:" ;; esac
    for ((i = 1; i <= rounds; i++)); do
        for side in old new; do
            db_of=${side}_db
            "${!side}" "${!db_of}" "$sku" database >"$work/$side.out" 2>"$work/$side.err" || {
                echo "boot_tally_ab: the $side tally failed: $(cat "$work/$side.err")"
                exit 1
            }
            echo "$side $(tail -1 "$work/$side.err")"
        done
    done
    cmp -s "$work/old.out" "$work/new.out" && echo "the tallies: the same bytes" ||
        echo "the tallies: DIFFERENT"
    if [[ -z $first ]]; then
        first=$work/first.out
        cp "$work/new.out" "$first"
    elif cmp -s "$first" "$work/new.out"; then
        echo "the same bytes as the first database's"
    else
        echo "DIFFERENT from the first database's"
    fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
