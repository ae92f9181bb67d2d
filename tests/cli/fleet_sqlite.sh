#!/usr/bin/env bash
# The fleet database suite (tests/cli/lib/fleet.bash) on an embedded SQLite file; HUGETUNE_DB
# names it where --db is not given.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
require_command python3 "the suite edits reports and reads the database with it"
fleet_suite "$work/fleet.db"
HUGETUNE_DB=$work/fleet.db expect 0 "$bin" fleet skus --json
[[ $(json_field "$out" 'len(d)') == 2 ]] || fail "HUGETUNE_DB not used: $(cat "$out")"
echo "fleet on SQLite: all passed"
