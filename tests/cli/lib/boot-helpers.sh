# Shared by the apply/rollback/verify scripts: a scratch directory, stand-ins for the boot
# loader tools that record their argument vectors, and assertions.
# shellcheck shell=bash
bin=$1
src=$2
fixtures=$src/tests/fixtures/boot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record=$work/argv.log
: >"$record"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Stand-ins only for the external boot loader tools; each appends "tool [arg] [arg]..." to
# $record. STANDIN_EXIT makes them fail; grub2-mkconfig --help advertises
# --update-bls-cmdline unless STANDIN_OLD_MKCONFIG is set.
stubs=$work/stubs
mkdir -p "$stubs"
for tool in update-grub grub2-mkconfig grubby; do
    cat >"$stubs/$tool" <<STUB
#!/bin/sh
if [ "$tool" = grub2-mkconfig ] && [ "\$1" = --help ]; then
    echo "Usage: grub2-mkconfig [OPTION]"
    [ -n "\$STANDIN_OLD_MKCONFIG" ] || echo "      --update-bls-cmdline  update BLS entries"
    exit 0
fi
line="$tool"
for a in "\$@"; do line="\$line [\$a]"; done
echo "\$line" >>"$record"
[ -n "\$STANDIN_EXIT" ] && { echo "stand-in failure" >&2; exit "\$STANDIN_EXIT"; }
exit 0
STUB
    chmod +x "$stubs/$tool"
done
export PATH=$stubs:$PATH

# copy_fixture NAME: a writable copy of tests/fixtures/boot/NAME; prints its path.
copy_fixture() {
    cp -a "$fixtures/$1" "$work/$1"
    echo "$work/$1"
}

# expect RC CMD...: runs CMD, stdout in $work/out, stderr in $work/err; fails unless RC.
expect() {
    local want=$1
    shift
    local rc=0
    "$@" >"$work/out" 2>"$work/err" || rc=$?
    if [[ $rc -ne $want ]]; then
        cat "$work/out" "$work/err" >&2
        fail "exit $rc, expected $want: $*"
    fi
}

stderr_has() { grep -qF -- "$1" "$work/err" || { cat "$work/err" >&2; fail "stderr lacks: $1"; }; }
stdout_has() { grep -qF -- "$1" "$work/out" || { cat "$work/out" >&2; fail "stdout lacks: $1"; }; }
recorded() { grep -qxF -- "$1" "$record" || { cat "$record" >&2; fail "not run: $1"; }; }
one_error_line() {
    [[ $(wc -l <"$work/err") -eq 1 ]] && grep -q '^hugetune: error: ' "$work/err" ||
        { cat "$work/err" >&2; fail "expected one 'hugetune: error:' line"; }
}

# tree_sum DIR: one checksum over every file's path and bytes.
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
