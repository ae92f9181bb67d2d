#!/usr/bin/env python3
"""Swaps directories of a tree for links that lead out of it, again and again, until SIGTERM:
for each PATH (a directory under ROOT) a link ROOT/PATH.swap -> DECOY/PATH is made, and
renameat2(RENAME_EXCHANGE) trades the two names atomically, so that a lookup of ROOT/PATH by
name finds the directory one moment and a link to DECOY/PATH (an absolute path on this machine)
the next. READY is created once the swapping starts. On SIGTERM every directory is put back in
its place and the links are removed; the number of swaps is printed on stdout.
Usage: swap_links.py READY ROOT DECOY PATH..."""
import ctypes
import os
import signal
import sys

AT_FDCWD = -100
RENAME_EXCHANGE = 2

ready, root, decoy, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
libc = ctypes.CDLL(None, use_errno=True)
stop = False


def on_term(_signum, _frame):
    global stop
    stop = True


def exchange(a, b):
    if libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), a)


signal.signal(signal.SIGTERM, on_term)
pairs = []
for path in paths:
    here = os.path.join(root, path)
    link = here + ".swap"
    os.symlink(os.path.join(decoy, path), link)
    pairs.append((here, link))
swaps = 0
open(ready, "w").close()
while not stop:
    for here, link in pairs:
        exchange(here, link)
        swaps += 1
for here, link in pairs:
    if os.path.islink(here):
        exchange(here, link)
    os.unlink(link)
print(swaps)
