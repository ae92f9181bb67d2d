#!/usr/bin/env python3
"""Reads an `strace -f -s 4096 -e trace=%file` log and prints every path a command named that lies
outside its --root tree: each path argument of a file system call must be inside the root, an
ancestor of it (resolving the root's own path), or one of the process's own files (its binary,
shared libraries, locale, time zone). With --by-descriptor, a path inside the root counts too:
every file of the tree must be reached from the root's descriptor (openat2 from it, *at() calls
on descriptors held from there), never by a path string that the host's own lookup resolves.
Usage: contained.py LOG ROOT BINARY [--by-descriptor]. Exit 1 when any is found."""
import re
import sys

log, root, binary = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
by_descriptor = sys.argv[4:] == ["--by-descriptor"]
OWN = ("/etc/ld.so.", "/lib/", "/lib64/", "/usr/lib/", "/etc/gnutls/", "/etc/localtime",
       "/usr/share/zoneinfo/", "/usr/share/locale/", "/proc/self/", "/dev/null", "/dev/tty",
       "/dev/urandom")
# Calls whose later string arguments are not paths it opens: readlink's buffer, execve's argv.
FIRST_ONLY = {"readlink", "readlinkat", "execve", "execveat"}
call = re.compile(r'^(?:\[pid\s+)?\d*\]?\s*([a-z0-9_]+)\((.*)')
quoted = re.compile(r'"((?:[^"\\]|\\.)*)"')

def ancestors(path):
    parts = path.split("/")
    return {"/".join(parts[:i]) or "/" for i in range(1, len(parts) + 1)}

allowed_exact = ancestors(root) | {binary}
bad = []
for line in open(log, errors="replace"):
    m = call.match(line.strip())
    if not m:
        continue
    name, args = m.groups()
    paths = quoted.findall(args)
    if name in FIRST_ONLY:
        paths = paths[:1]
    dirfd_relative = re.match(r'\d+,', args) is not None  # openat(3, "name"): under a resolved dir
    for p in paths:
        if not p.startswith("/"):
            if dirfd_relative:
                continue
            bad.append(line.strip())
            break
        inside = p.startswith(root + "/")
        if inside and by_descriptor:
            bad.append(line.strip())
            break
        if p == root or inside or p in allowed_exact or p.startswith(OWN):
            continue
        bad.append(line.strip())
        break
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
