#!/usr/bin/env bash
# apply, rollback and restore with --json: one JSON object on stdout, also on failure, whose
# exit_code is the process's; and the boot configuration lock: a second apply or rollback while
# one holds it is refused with exit 5, changing nothing.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
require_command python3 "it reads the JSON objects"
require_command flock "it holds the boot configuration lock (util-linux)"

# json_check EXPRESSION: a Python expression over `j`, the object on stdout, must hold.
json_check() {
    python3 -S - "$out" "$1" <<'PY' || fail "stdout JSON: $1: $(cat "$out")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

root=$(copy_fixture debian)
expect 0 "$bin" apply --root "$root" --value 8 --json
json_check 'j["command"] == "apply" and j["exit_code"] == 0 and j["error"] is None'
json_check 'j["setting"] == "hugepage_alloc_threads=8" and j["bootloader"] == "grub"'
json_check 'j["files"] == ["/etc/default/grub"] and j["written"]'
json_check 'j["ledger"]["hugepage_alloc_threads"] == "8" and j["ledger"]["files"][0]["backup"].startswith("/etc/default/grub.hugetune-")'
json_check 'j["commands"] == [["update-grub"]] and j["commands_not_run"] == [["update-grub"]] and j["commands_run"] == []'
stderr_has "hugepage_alloc_threads=8 is written to the configuration"

# The lock: held by another process, apply and rollback are refused, and nothing changes.
before=$(tree_sum "$root")
expect 5 flock "$root" "$bin" apply --root "$root" --value 4 --json
error_line "is locked"
json_check 'j["exit_code"] == 5 and "is locked" in j["error"]["message"] and not j["written"]'
expect 5 flock "$root" "$bin" rollback --root "$root"
error_line "another hugetune apply or rollback"
[[ $(tree_sum "$root") == "$before" ]] || fail "a refused apply or rollback changed the tree"
# A dry run writes nothing, and beside a change in progress (its lock held) says so instead of
# reading the change half-written.
expect 5 flock "$root" "$bin" apply --root "$root" --value 4 --dry-run --json
error_line "is locked"
json_check 'j["exit_code"] == 5 and not j["written"]'
expect 0 "$bin" apply --root "$root" --value 4 --dry-run --json
json_check 'j["dry_run"] and not j["written"] and j["ledger"] is None'

expect 0 "$bin" rollback --root "$root" --json
json_check 'j["command"] == "rollback" and j["exit_code"] == 0 and j["written"]'
json_check 'j["setting"] == "hugepage_alloc_threads=8" and j["ledger"]["hugepage_alloc_threads"] == "8"'
cmp -s "$fixtures/debian/etc/default/grub" "$root/etc/default/grub" || fail "rollback: not byte for byte"

# Failures: still one object, exit code telling, one error line on stderr.
expect 1 "$bin" rollback --root "$root" --json
error_line "nothing to roll back"
json_check 'j["exit_code"] == 1 and "nothing to roll back" in j["error"]["message"] and j["ledger"] is None'
expect 2 "$bin" apply --root "$root" --value 0 --json
error_line "--value"
json_check 'j["exit_code"] == 2 and "--value" in j["error"]["message"]'
expect 2 "$bin" apply --root "$root" --report "$work/missing.json" --json
json_check 'j["exit_code"] == 2 and j["error"] is not None'

# restore: as a non-root user it is refused (exit 3) in one object too.
if ! is_root; then
    expect 3 "$bin" restore --json
else
    nobody_bin=$(nobody_copy "$bin")
    can_run_as_nobody "$nobody_bin" || skip "root cannot run a copy of the binary as nobody"
    expect 3 as_nobody "$nobody_bin" restore --json
fi
json_check 'j["command"] == "restore" and j["exit_code"] == 3 and not j["restored"]'
