#!/usr/bin/env bash
# What UBSan's null, alignment and pointer-overflow checks cost the sanitizer build (the top
# CMakeLists.txt leaves them out), side by side in one run: the tuner's first unity batch of
# ASAN_BUILD compiled with the build's own command, once with the three checks and once
# without, each object's code and writable data (`size`) and its compile time; then, given a
# binary of a build made with the three checks (an older tree), both binaries' writable data
# and their start (`--version`, 10 of each, alternating), whose exit scans that data for leaks.
#     usage: tests/bench/ubsan_checks.sh ASAN_BUILD [BINARY_WITH_THE_CHECKS]
set -euo pipefail
asan=$(realpath "${1:?usage: ubsan_checks.sh ASAN_BUILD}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "uptime: $(uptime)"
command=$(/usr/bin/python3 - "$asan/compile_commands.json" <<'EOF'
import json, sys
for entry in json.load(open(sys.argv[1])):
    if "/tuner/" in entry["file"] and "/Unity/unity_0_" in entry["file"]:
        print(entry["directory"] + "\t" + entry["command"])
        break
EOF
)
[[ -n $command ]] || { echo "ubsan_checks: no tuner unity batch in $asan/compile_commands.json" >&2; exit 1; }
directory=${command%%$'\t'*}
command=${command#*$'\t'}
[[ $command == *-fno-sanitize=null,alignment,pointer-overflow* ]] ||
    { echo "ubsan_checks: $asan does not leave the three checks out" >&2; exit 1; }
without=$command
with=${command//-fno-sanitize=null,alignment,pointer-overflow/}
compile() {
    local name=$1 cmd=$2 t
    t=$EPOCHREALTIME
    cmd=$(sed -E "s# -o [^ ]+ # -o $work/$name.o #" <<<"$cmd")
    (cd "$directory" && eval "$cmd") >/dev/null
    /usr/bin/python3 -c "print(f'{$EPOCHREALTIME - $t:.1f}')"
}
for side in with without; do
    seconds=$(compile "$side" "${!side}")
    read -r text data _ < <(size "$work/$side.o" | tail -1)
    printf '%-8s the three checks: code %9d bytes, data %9d bytes, compile %5s s\n' \
        "$side" "$text" "$data" "$seconds"
done
[[ $# -ge 2 ]] || exit 0
old=$(realpath "$2")
seconds() {
    local t=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || { echo "ubsan_checks: failed: $*" >&2; exit 1; }
    /usr/bin/python3 -c "print($EPOCHREALTIME - $t)"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "%.3f", v[int((NR + 1) / 2)]}'; }
a=() b=()
for _ in $(seq 10); do
    a+=("$(seconds "$old" --version)")
    b+=("$(seconds "$asan/hugetune" --version)")
done
for side in old new; do
    binary=$old list=("${a[@]}")
    [[ $side == new ]] && binary=$asan/hugetune list=("${b[@]}")
    read -r text data _ < <(size "$binary" | tail -1)
    printf '%-8s the three checks: binary code %10d bytes, data %10d bytes, start median %s s\n' \
        "$([[ $side == old ]] && echo with || echo without)" "$text" "$data" "$(median "${list[@]}")"
done
