#!/usr/bin/env bash
# The fleet database suite (tests/cli/lib/fleet.bash) on a real PostgreSQL server: Debian's
# postgresql package, initdb into the scratch directory as `nobody`, a unix socket there only,
# stopped by its PID when the script ends, also on failure. When it cannot start: a skip that
# says why, never a pass.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
require_command python3 "the suite edits reports with it"
start_postgres
fleet_suite "$pg_url"
echo "fleet on PostgreSQL: all passed"
