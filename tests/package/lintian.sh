#!/usr/bin/env bash
# lintian on a package `make package` or `make package-arm64` built: any error, warning or
# information tag fails it (the hardening, stripping and spelling checks are information tags in
# Debian 12's lintian), and every tag is printed. A tag wrong for this package is overridden in
# packaging/lintian-overrides, which the package carries, each with the reason. It reads the
# package only, so it needs no root; `make test-package` runs it before tests/package/deb.sh.
#   tests/package/lintian.sh build-test/package/hugetune_0.2.0_amd64.deb
set -euo pipefail
deb=${1:?usage: tests/package/lintian.sh PACKAGE.deb}
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -f $deb ]] || fail "no package $deb: run make package"
command -v lintian >/dev/null || fail "no lintian: make test-deps installs it (PACKAGE_PKGS)"

# Tags lintian finds in the bytes the compiler produced, not in anything written here: whether a
# build has one depends on the compiler, its flags and the architecture, so its override
# (packaging/lintian-overrides) goes unused in some builds, and lintian then says
# unused-override (an information tag). That is no failure for these tags only; an unused
# override of any other tag still fails, as it means the override is stale.
build_dependent_tags=(spelling-error-in-binary)

echo "$(lintian --version) on $deb"
# lintian judges nothing itself here (--fail-on none): it fails only if it could not check the
# package, and the tags it prints are judged below.
status=0
output=$(lintian --display-info --fail-on none "$deb" 2>&1) || status=$?
# Its note to root says nothing of the package.
output=$(grep -v '^running with root privileges is not recommended!$' <<<"$output" || true)
[[ -z $output ]] || echo "$output"
((status == 0)) || fail "lintian could not check $deb (exit $status)"

package=$(dpkg-deb -f "$deb" Package)
accepted='^I: '$package': unused-override ('$(
    IFS='|'
    echo "${build_dependent_tags[*]}"
)')( |$)'
tags=$(grep -E '^[EWI]: ' <<<"$output" | grep -Ev "$accepted" || true)
[[ -z $tags ]] ||
    fail "lintian reports $(wc -l <<<"$tags") tag(s) above: fix them, or override one that is wrong for this package in packaging/lintian-overrides with the reason"
if grep -Eq "$accepted" <<<"$output"; then
    echo "lintian: no errors, warnings or information tags (an override of ${build_dependent_tags[*]} unused: this build's bytes hold none)"
else
    echo "lintian: no errors, warnings or information tags"
fi
