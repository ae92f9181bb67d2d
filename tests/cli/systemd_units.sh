#!/usr/bin/env bash
# hugetune-verify.service and its wrapper as the build configured them (build/systemd/):
# `systemd-analyze verify` accepts the unit; it stays out of the boot's way (oneshot, after the
# local file systems and the network, a time limit); the wrapper verifies once per apply (and,
# with a fleet database, records every boot, applied or not), passes the configured report and Prometheus textfile (which verify writes: see
# prometheus_metrics.sh), and exits with verify's status. A stand-in plays hugetune, so no boot
# log is needed.
source "$(dirname "$0")/lib/harness.bash"
require_command systemd-analyze "it checks the unit (Debian: systemd)"
units=$(realpath "$(dirname "$bin")")/systemd
unit=$units/hugetune-verify.service
wrapper=$units/verify-boot
[[ -f $unit && -x $wrapper ]] || fail "no unit or wrapper in $units: cmake configures them"

# The unit names the installed wrapper; a copy names the built one, which systemd-analyze needs
# to find executable.
mkdir -p "$work/units"
sed "s|^ExecStart=.*|ExecStart=$wrapper|" "$unit" >"$work/units/hugetune-verify.service"
expect 0 systemd-analyze verify --man=no "$work/units/hugetune-verify.service"
[[ ! -s $err ]] || fail "systemd-analyze verify warns: $(cat "$err")"

property() { grep -qx -- "$1" "$unit" || fail "$unit lacks $1"; }
property "Type=oneshot"
property "After=local-fs.target systemd-journald.service network-online.target"
property "Wants=network-online.target"
property "TimeoutStartSec=2min"
property "WantedBy=multi-user.target"
grep -Eq '^(Before|RequiredBy|Requires)=' "$unit" && fail "$unit would hold up other units"
grep -Eq '^ExecStart=/.*/hugetune/verify-boot$' "$unit" || fail "$unit does not run the installed wrapper"

# A stand-in hugetune: records its arguments, prints what verify --json prints, exits
# $STANDIN_EXIT.
cat >"$work/hugetune" <<'STUB'
#!/bin/sh
echo "$*" >>"$STANDIN_LOG"
cat <<'JSON'
{
  "boot_id": "x",
  "measured_ms": 1532,
  "threads": 2,
  "problems": []
}
JSON
exit "${STANDIN_EXIT:-0}"
STUB
chmod +x "$work/hugetune"
export HUGETUNE=$work/hugetune HUGETUNE_STATE_DIR=$work/state STANDIN_LOG=$work/calls
export HUGETUNE_TEXTFILE=$work/hugetune.prom HUGETUNE_REPORT=$work/report.json
mkdir -p "$work/state"
echo '{"schema_version": 1}' >"$HUGETUNE_REPORT"
: >"$STANDIN_LOG"

expect 0 "$wrapper"
stdout_has "nothing applied"
[[ ! -s $STANDIN_LOG ]] || fail "verify ran without a ledger"
# With a fleet database, a boot without a ledger is recorded: verify reads the database from
# its environment (no URL on its command line), and its verdict is not the unit's status.
HUGETUNE_FLEET_DB=$work/fleet.db STANDIN_EXIT=1 expect 0 "$wrapper"
stdout_has "recording the boot in the fleet database"
[[ $(cat "$STANDIN_LOG") == "verify --json" ]] || fail "ran: $(cat "$STANDIN_LOG")"
[[ ! -f $work/state/verified ]] || fail "a recorded boot left a stamp"
: >"$STANDIN_LOG"

echo '{"value": "2"}' >"$work/state/applied.json"
expect 0 "$wrapper"
[[ $(cat "$STANDIN_LOG") == "verify --json --report $work/report.json --prometheus $HUGETUNE_TEXTFILE" ]] ||
    fail "ran: $(cat "$STANDIN_LOG")"
[[ ! -e $HUGETUNE_TEXTFILE ]] || fail "the wrapper wrote the textfile itself: $(cat "$HUGETUNE_TEXTFILE")"
[[ -f $work/state/verified ]] || fail "no stamp after a verified boot"

# Verified once per apply: the next boot does nothing, or with a fleet database only records.
: >"$STANDIN_LOG"
expect 0 "$wrapper"
stdout_has "verified at an earlier boot"
[[ ! -s $STANDIN_LOG ]] || fail "verify ran again for the same apply"
HUGETUNE_FLEET_DB=$work/fleet.db expect 0 "$wrapper"
[[ $(cat "$STANDIN_LOG") == "verify --json" ]] || fail "ran: $(cat "$STANDIN_LOG")"
: >"$STANDIN_LOG"

# A new apply is verified again; a failed verify is the unit's status and is tried next boot.
echo '{"value": "4"}' >"$work/state/applied.json"
STANDIN_EXIT=1 expect 1 "$wrapper"
[[ -s $STANDIN_LOG ]] || fail "verify did not run after a new apply"
: >"$STANDIN_LOG"
expect 0 "$wrapper"
[[ -s $STANDIN_LOG ]] || fail "a failed verify was not tried again"
# A report the unit cannot reach (README's example was under /root, which ProtectHome=yes
# hides): the boot is verified without it, a line says so, and the unit succeeds.
echo '{"value": "8"}' >"$work/state/applied.json"
: >"$STANDIN_LOG"
HUGETUNE_REPORT=$work/absent/report.json expect 0 "$wrapper"
stdout_has "HUGETUNE_REPORT=$work/absent/report.json is not a file this unit can read and write"
stdout_has "verifying the boot without it"
[[ $(cat "$STANDIN_LOG") == "verify --json --prometheus $HUGETUNE_TEXTFILE" ]] || fail "ran: $(cat "$STANDIN_LOG")"
[[ -f $work/state/verified ]] || fail "no stamp after a boot verified without its report"
# A textfile verify would refuse (another suffix, a directory that does not exist) is left out,
# a line says so, and the boot is verified all the same.
for textfile in "$work/hugetune.txt" "$work/absent/hugetune.prom"; do
    echo "{\"value\": \"$textfile\"}" >"$work/state/applied.json"
    : >"$STANDIN_LOG"
    HUGETUNE_TEXTFILE=$textfile expect 0 "$wrapper"
    stdout_has "HUGETUNE_TEXTFILE=$textfile is not a *.prom file in a directory this unit can write"
    [[ $(cat "$STANDIN_LOG") == "verify --json --report $work/report.json" ]] || fail "ran: $(cat "$STANDIN_LOG")"
done
# The README's setting names a path the unit can reach.
grep -q '^    HUGETUNE_REPORT=/var/lib/hugetune/' "$src/README.md" ||
    fail "README's HUGETUNE_REPORT example is not under /var/lib/hugetune/"
echo "systemd: the unit verifies and the wrapper runs verify once per apply"
