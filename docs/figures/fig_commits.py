"""The commit each stored output was measured at, from the header scripts/record-measurement
writes: `at.<file name>` (dots and dashes as underscores) for docs/measurements/, `at.<folder>`
for a lab run's output.txt. A figure of history names the commit beside it."""
import os
import re

from core import FigureError


def key(path):
    folder, name = os.path.split(path)
    stem = os.path.basename(folder) if name == "output.txt" else name[:-4]
    return "at." + re.sub(r"[^a-z0-9]+", "_", stem.lower())


def register(r):
    paths = [f"docs/measurements/{n}" for n in sorted(os.listdir(r.path("docs/measurements"))) if n.endswith(".txt")]
    paths.append("tests/vm/findings/accuracy-2026-12-03/output.txt")
    for path in paths:
        try:
            r.file(path).commit()
        except FigureError:
            continue  # a stored output without the header: nothing to name
        r.add(key(path), path, lambda path=path: r.file(path).commit(), optional=True)
