#!/usr/bin/env bash
# lintian on the package `make package` built: any error, warning or information tag fails it
# (the hardening, stripping and spelling checks are information tags in Debian 12's lintian),
# and every tag is printed. A tag wrong for this package is overridden in
# packaging/lintian-overrides, which the package carries, each with the reason. It reads the
# package only, so it needs no root; `make test-package` runs it before tests/package/deb.sh.
#   tests/package/lintian.sh build-test/package/hugetune_0.2.0_amd64.deb
set -euo pipefail
deb=${1:?usage: tests/package/lintian.sh PACKAGE.deb}
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -f $deb ]] || fail "no package $deb: run make package"
command -v lintian >/dev/null || fail "no lintian: make test-deps installs it (PACKAGE_PKGS)"

echo "$(lintian --version) on $deb"
status=0
output=$(lintian --display-info --fail-on error,warning,info "$deb" 2>&1) || status=$?
# Its note to root says nothing of the package.
grep -v '^running with root privileges is not recommended!$' <<<"$output" || true
((status == 0)) || fail "lintian reports the tags above (exit $status): fix them, or override one that is wrong for this package in packaging/lintian-overrides with the reason"
echo "lintian: no errors, warnings or information tags"
