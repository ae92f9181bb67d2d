"""The registry's parts: a figure (a name, the stored files it comes from, how it is computed),
the registry that computes each once, and readers of the stored files.

A figure's value is the exact text a document shows: computing it formats it, so a document
and the registry are compared as text."""
import hashlib
import json
import os
import re
import statistics
import subprocess
import tempfile

# A number as the documents write it: 1,020 or 0.36 or -0.30.
NUMBER = r"[-+]?\d+(?:,\d{3})*(?:\.\d+)?"
# A commit as scripts/record-measurement writes it.
COMMIT = r"[0-9a-f]{7,40}"
# A list of whole numbers: 6, 3, 3, 3.
LIST = r"\d+(?:, \d+)+"
KINDS = (LIST, NUMBER, COMMIT)


class FigureError(Exception):
    """A figure that cannot be computed from its files: names the figure and the file."""


class Figure:
    def __init__(self, name, sources, compute, block, optional):
        self.name, self.sources, self.compute, self.block = name, list(sources), compute, block
        # An optional figure may be stated nowhere (the commit of each stored output).
        self.optional = optional


class Registry:
    """Every figure by name. `hugetune` is the binary that re-predicts stored sweeps with
    today's model; figures that need it fail without it."""

    def __init__(self, root, hugetune=None):
        self.root, self.hugetune = root, hugetune
        self.figures = {}
        self._values = {}
        self._files = {}
        self._fits = {}
        self._scratch = None

    # --- defining figures --------------------------------------------------------------

    def add(self, name, sources, compute, block=False, optional=False):
        if not re.fullmatch(r"[a-z0-9_]+(?:\.[a-z0-9_]+)+", name):
            raise ValueError(f"figure name {name!r}: lower-case words joined by dots")
        if name in self.figures:
            raise ValueError(f"figure {name} registered twice")
        sources = [sources] if isinstance(sources, str) else sources
        self.figures[name] = Figure(name, sources, compute, block, optional)

    def grab(self, name, path, pattern, group=1, nth=0):
        """A figure that is text of a stored file as it stands: the `group` of the `nth` match."""
        self.add(name, path, lambda: self.file(path).grab(pattern, group, nth))

    def number(self, name, sources, compute, digits=0, thousands=False, optional=False):
        """A figure computed as a number, shown with `digits` decimals."""
        self.add(name, sources, lambda: show(compute(), digits, thousands), optional=optional)

    # --- computing ---------------------------------------------------------------------

    def value(self, name):
        if name not in self._values:
            figure = self.figures.get(name)
            if figure is None:
                raise FigureError(f"{name}: no such figure in the registry (docs/figures)")
            try:
                text = figure.compute()
            except FigureError as e:
                raise FigureError(f"{name}: {e}") from None
            except (OSError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as e:
                raise FigureError(f"{name}: cannot be computed from {', '.join(figure.sources)}: "
                                  f"{type(e).__name__}: {e}") from None
            if not isinstance(text, str):
                raise FigureError(f"{name}: computed {text!r}, not text")
            if not figure.block and not any(re.fullmatch(kind, text) for kind in KINDS):
                raise FigureError(f"{name}: {text!r} is neither a number, a list of numbers nor a commit")
            self._values[name] = text
        return self._values[name]

    # --- stored files ------------------------------------------------------------------

    def path(self, relative):
        return os.path.join(self.root, relative)

    def file(self, relative):
        if relative not in self._files:
            self._files[relative] = StoredFile(relative, self.path(relative))
        return self._files[relative]

    def json(self, relative):
        with open(self.path(relative)) as f:
            return json.load(f)

    def scratch(self):
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="figures.")
        return self._scratch.name

    def fit(self, sweep, *extra):
        """`hugetune fit --json` of a stored file with today's model (each once per run)."""
        key = (sweep,) + extra
        if key not in self._fits:
            if not self.hugetune:
                raise FigureError(f"needs a hugetune binary (--hugetune) to fit {sweep}")
            args = [self.hugetune, "fit", "--input", self.path(sweep), "--json"]
            for i, arg in enumerate(extra):
                args.append(self.path(arg) if i % 2 else arg)
            done = subprocess.run(args, capture_output=True, text=True)
            if done.returncode != 0:
                raise FigureError(f"hugetune fit --input {sweep} {' '.join(extra)} failed: "
                                  f"{done.stderr.strip()}")
            self._fits[key] = json.loads(done.stdout)
        return self._fits[key]


    def fit_report(self, report, *extra):
        """Today's `fit` of the sweep a stored report carries: put back together with the probe
        the report keeps beside it, as `hugetune sweep --out` writes it (tests/vm/whatif-table.sh
        does the same), with the pool the run predicted for (its `--boot-pages`, the report's
        `boot_pool`) as the probe's pool, which `fit` predicts for, as the tuning run's stored
        sweeps hold theirs."""
        document = self.json(report)
        sweep = dict(document["sweep"], format="hugetune-sweep", format_version=1)
        sweep["probe"] = {k: document[k] for k in ("cpu", "host", "kernel", "topology", "virtualization") if k in document}
        pool = document["boot_pool"]
        for p in sweep["probe"]["kernel"]["pools"]:
            if p["size_kb"] == pool["page_size_kb"]:
                p["nr"] = pool["pages"]
        name = os.path.join(self.scratch(), report.replace("/", "_"))
        with open(name, "w") as f:
            json.dump(sweep, f)
        return self.fit(os.path.relpath(name, self.root), *extra)


class StoredFile:
    """A stored output: scripts/record-measurement's header (command, commit, machine, date),
    then the command's output; other files are all body."""

    def __init__(self, relative, path):
        self.relative = relative
        with open(path, encoding="utf-8", errors="replace") as f:
            self.text = f.read()
        self.header = {}
        head, sep, body = self.text.partition("\n---\n")
        if sep and head.startswith("command: "):
            for line in head.splitlines():
                key, _, value = line.partition(": ")
                self.header[key] = value
            self.body = body
        else:
            self.body = self.text

    def grab(self, pattern, group=1, nth=0):
        matches = list(re.finditer(pattern, self.body, re.M))
        if len(matches) <= nth:
            raise FigureError(f"{self.relative} has no line matching /{pattern}/"
                              + (f" (match {nth + 1} wanted, {len(matches)} found)" if nth else ""))
        m = matches[nth]
        return m.group(*group) if isinstance(group, tuple) else m.group(group)

    def grab_all(self, pattern, group=1):
        return [m.group(group) for m in re.finditer(pattern, self.body, re.M)]

    def commit(self):
        commit = self.header.get("commit", "").split(" ")[0]
        if not re.fullmatch(COMMIT, commit):
            raise FigureError(f"{self.relative} names no commit in its header")
        return commit


def show(x, digits=0, thousands=False):
    """A number as the documents write it: fixed decimals, thousands with commas when asked."""
    if isinstance(x, str):
        return x
    text = f"{x:,.{digits}f}" if thousands else f"{x:.{digits}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def the_one(values, what):
    """The value every one of `values` has, where a document says they are all the same."""
    if not values or len(set(values)) != 1:
        raise ValueError(f"{what} are not all the same: {sorted(set(values))}")
    return values[0]


def median(values):
    return statistics.median(values)


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]
