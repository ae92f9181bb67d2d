#!/usr/bin/env bash
# hugetune-verify.service's sandbox, for real: the wrapper runs under the unit's own [Service]
# properties (ProtectHome=yes, PrivateTmp=yes, ...) as a transient service of the system
# manager, with a report under /root and one under /var/lib/hugetune/. The one under /root is
# out of its sight: the boot is verified without it and a line says so; the one under
# /var/lib/hugetune/ is read. A stand-in plays hugetune. Skips where systemd cannot start a
# transient service (no systemd as PID 1, a container, not root): every machine the suite runs
# on here. `make vmtest-debian` runs this script in a Debian guest with systemd as PID 1, on the
# installed unit and wrapper, where a skip fails (tests/vm/README.md "A real Debian system").
source "$(dirname "$0")/lib/harness.bash"
require_root "systemd-run starts a transient service of the system manager"
require_command systemd-run "it runs the wrapper in the unit's sandbox (Debian: systemd)"
units=$(realpath "$(dirname "$bin")")/systemd
unit=$units/hugetune-verify.service
[[ -f $unit && -x $units/verify-boot ]] || fail "no unit or wrapper in $units: cmake configures them"
if ! probe=$(systemd-run --wait --pipe --quiet --collect -p ProtectHome=yes true 2>&1); then
    skip "systemd-run cannot start a transient service here: $(head -n 1 <<<"$probe")"
fi

# The unit's [Service] properties, less what the test gives itself (the command, the settings).
props=()
while IFS= read -r line; do
    case $line in
    ExecStart=* | EnvironmentFile=* | '' | '#'* | '['*) ;;
    *) props+=(-p "$line") ;;
    esac
done < <(sed -n '/^\[Service\]/,/^\[/p' "$unit")
[[ " ${props[*]} " == *" ProtectHome=yes "* ]] || fail "$unit lacks ProtectHome=yes"

# Everything the service runs lies outside what the sandbox hides (not under /tmp or a home).
state_base=/var/lib/hugetune
if [[ ! -d $state_base ]]; then
    mkdir -p "$state_base"
    at_exit "rmdir '$state_base'"
fi
dir=$(mktemp -d "$state_base/sandbox-test.XXXXXX")
at_exit "rm -rf '$dir'"
home=$(mktemp -d /root/.hugetune-sandbox-test.XXXXXX)
at_exit "rm -rf '$home'"
cp "$units/verify-boot" "$dir/verify-boot"
cat >"$dir/hugetune" <<'STUB'
#!/bin/sh
echo "$*" >>"$STANDIN_LOG"
while [ $# -gt 0 ]; do
    [ "$1" = --report ] && echo "read: $(cat "$2")"
    shift
done
printf '{\n  "measured_ms": 1532,\n  "threads": 2,\n  "problems": []\n}\n'
STUB
chmod 755 "$dir/hugetune" "$dir/verify-boot"
echo '{"value": "2"}' >"$dir/applied.json"

# in_sandbox REPORT: the wrapper as the unit runs it, with HUGETUNE_REPORT=REPORT.
in_sandbox() {
    rm -f "$dir/verified" "$dir/calls"
    expect 0 systemd-run --wait --pipe --quiet --collect "${props[@]}" \
        -E HUGETUNE="$dir/hugetune" -E HUGETUNE_STATE_DIR="$dir" -E STANDIN_LOG="$dir/calls" \
        -E HUGETUNE_REPORT="$1" "$dir/verify-boot"
}

echo '"the report under /root"' >"$home/report.json"
in_sandbox "$home/report.json"
stdout_has "HUGETUNE_REPORT=$home/report.json is not a file this unit can read and write"
[[ $(cat "$dir/calls") == "verify --json" ]] || fail "ran: $(cat "$dir/calls")"

echo '"the report under /var/lib/hugetune"' >"$dir/report.json"
in_sandbox "$dir/report.json"
stdout_has 'read: "the report under /var/lib/hugetune"'
[[ $(cat "$dir/calls") == "verify --json --report $dir/report.json" ]] || fail "ran: $(cat "$dir/calls")"
echo "systemd sandbox: a report under /root is out of the unit's reach, one under /var/lib/hugetune is read"
