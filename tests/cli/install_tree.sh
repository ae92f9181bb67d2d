#!/usr/bin/env bash
# `cmake --install` of this build into a DESTDIR: every file the package and `make install`
# carry is there, under the configured prefix, the unit runs the wrapper where it is
# installed, the installed binary runs, and there is a man page for every command, compressed
# (gzip -9n: no name or time in the header) and readable by man.
source "$(dirname "$0")/lib/harness.bash"
build=$(dirname "$bin")
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
[[ -n $prefix ]] || fail "no CMAKE_INSTALL_PREFIX in $build/CMakeCache.txt"
dest=$work/dest
DESTDIR=$dest cmake --install "$build" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install"; }
root=$dest$prefix
mapfile -t commands < <("$bin" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
want=(bin/hugetune share/man/man8/hugetune.8.gz share/bash-completion/completions/hugetune
      lib/systemd/system/hugetune-verify.service
      lib/systemd/system/multi-user.target.wants/hugetune-verify.service
      libexec/hugetune/verify-boot share/hugetune/schema/report.schema.json
      share/hugetune/schema/sweep.schema.json share/hugetune/schema/boot-record.schema.json
      share/hugetune/sql/boot-writer-role.sql
      share/hugetune/prometheus/hugetune-rules.yml
      share/doc/hugetune/README.md
      share/doc/hugetune/CHANGELOG.md share/doc/hugetune/kernel-facts.md
      share/doc/hugetune/sweep-format.md share/doc/hugetune/fleet.md
      share/doc/hugetune/copyright share/doc/hugetune/changelog.gz share/lintian/overrides/hugetune)
for c in "${commands[@]}"; do want+=("share/man/man8/hugetune-$c.8.gz"); done
for f in "${want[@]}"; do
    [[ -e $root/$f ]] || fail "not installed: $prefix/$f"
done
# Nothing else: a file added to the install is added to this list (and the package's).
got=$(cd "$root" && find . -type f -o -type l | sed 's|^\./||' | sort)
extra=$(comm -13 <(printf '%s\n' "${want[@]}" | sort) <(printf '%s\n' "$got"))
[[ -z $extra ]] || fail "installed but not expected: $extra"
outside=$(find "$dest" \( -type f -o -type l \) ! -path "$root/*")
[[ -z $outside ]] || fail "installed outside the prefix $prefix: $outside"
[[ $(readlink "$root/lib/systemd/system/multi-user.target.wants/hugetune-verify.service") == ../hugetune-verify.service ]] ||
    fail "the unit's wants link does not point at the unit"
grep -qx "ExecStart=$prefix/libexec/hugetune/verify-boot" "$root/lib/systemd/system/hugetune-verify.service" ||
    fail "the unit does not run the installed wrapper"
grep -q "^hugetune=\${HUGETUNE:-$prefix/bin/hugetune}" "$root/libexec/hugetune/verify-boot" ||
    fail "the wrapper does not run the installed binary"
[[ -x $root/libexec/hugetune/verify-boot ]] || fail "the wrapper is not executable"
for page in "$root"/share/man/man8/*.gz; do
    gzip -t "$page" || fail "$page is not gzip"
    # The header's flags (byte 4) and time (bytes 5-8): no name, time 0.
    [[ $(od -An -tx1 -j3 -N5 "$page" | tr -d ' \n') == 0000000000 ]] || fail "$page has a name or time in its gzip header (gzip -9n)"
done
if command -v man >/dev/null; then
    MANWIDTH=200 man -l "$root/share/man/man8/hugetune.8.gz" 2>/dev/null | grep hugepage_alloc_threads >/dev/null ||
        fail "man -l does not read the compressed hugetune.8.gz"
fi
expect 0 "$root/bin/hugetune" --version
stdout_matches '^hugetune [0-9]+\.[0-9]+\.[0-9]+ \('
echo "install: ${#want[@]} files under $prefix"
