#!/usr/bin/env bash
# `make deps` (scripts/install-deps): nothing to do when every package is there; not root and
# something missing -> one line naming the packages and the command to install them, exit 1.
BIN=$1
SRC=$2
source "$(dirname "$0")/lib/common.bash"
deps=$SRC/scripts/install-deps

"$deps" dpkg coreutils >"$out" 2>"$err" || { echo "FAIL: installed packages: $(cat "$err")"; failures=$((failures + 1)); }
[[ ! -s $err ]] || { echo "FAIL: noise for installed packages: $(cat "$err")"; failures=$((failures + 1)); }

if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null; then
    # A copy nobody can reach, wherever the checkout lives.
    copy=$(mktemp -d)
    chmod 755 "$copy"
    cp "$deps" "$copy/install-deps" && chmod 755 "$copy/install-deps"
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$copy/install-deps" dpkg \
        hugetune-no-such-package >"$out" 2>"$err"
    code=$?
    if [[ $code -ne 1 ]] || [[ $(wc -l <"$err") -ne 1 ]] ||
        ! grep -q '^hugetune: error: missing Debian packages: hugetune-no-such-package; install them as root with: apt-get install hugetune-no-such-package$' "$err"; then
        echo "FAIL: not root, package missing: exit $code: $(cat "$err")"
        failures=$((failures + 1))
    else
        echo "ok: not root, package missing -> one line, exit 1"
    fi
    rm -rf "$copy"
else
    echo "SKIP: needs root and setpriv to run the check as another user"
    exit 77
fi
finish
