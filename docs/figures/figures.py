#!/usr/bin/env python3
"""The figures the documents state, computed from the stored files they come from.

Every measured figure in a document carries a marker with the name of a registered figure:

    <!-- fig:fleet.answer_1000_hosts_s -->0.36 s

and a table or output made from stored files sits between

    <!-- figures:begin NAME -->
    ...
    <!-- figures:end NAME -->

The figures are defined in docs/figures/fig_*.py (each figure: its name, the stored files it
reads, how it is computed); docs/figures/values.tsv holds every value as computed, generated.

    figures.py --check [--hugetune BIN]   every marker and block of every document, and
                                          values.tsv, against the stored files; exit 1 naming
                                          each figure that differs, its file and both values
    figures.py --write [--hugetune BIN]   rewrites the documents' figures and values.tsv from
                                          the stored files (`make figures`)
    figures.py --list [--hugetune BIN]    each figure, its value and its files
    figures.py --audit                    per document: figures marked, blocks, and the
                                          measurement-like numbers that are figures, that are
                                          not (not_figures.tsv) and that carry no marker; then
                                          each number that is not a figure, with its reason

--check also fails on a number with a unit of time, size or rate, or a ratio, that carries no
marker and is not listed in docs/figures/not_figures.tsv (unmarked.py).
"""
import argparse
import importlib
import os
import re
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from core import COMMIT, KINDS, LIST, NUMBER, FigureError, Registry  # noqa: E402
import unmarked  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
VALUES = "docs/figures/values.tsv"
MODULES = sorted(f[:-3] for f in os.listdir(HERE) if f.startswith("fig_") and f.endswith(".py"))
MARK = re.compile(r"<!-- fig:([a-z0-9_.]+) -->")
BEGIN = re.compile(r"^<!-- figures:begin ([a-z0-9_.]+) -->$")
END = "<!-- figures:end {} -->"
SKIP_DIRS = {".git", "shared"}


def registry(hugetune):
    r = Registry(ROOT, hugetune)
    for name in MODULES:
        importlib.import_module(name).register(r)
    return r


def documents(root):
    """Every Markdown file of the tree, build folders left out."""
    found = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                         and not d.startswith("."))
        found += [os.path.relpath(os.path.join(top, f), root) for f in sorted(files) if f.endswith(".md")]
    return found


def kind_of(value):
    return next(kind for kind in KINDS if re.fullmatch(kind, value))


def token_after(text, at, expected):
    """The figure's text in the document at `at`: a number, a list or a commit, of the
    expected's kind."""
    kind = kind_of(expected)
    end = {COMMIT: r"(?![0-9a-f])", LIST: r"(?!\d|[.,]\d|, \d)", NUMBER: r"(?!\d|[.,]\d)"}[kind]
    m = re.compile(kind + end).match(text, at)
    return m.group(0) if m else text[at:at + len(expected)]


class Problems:
    def __init__(self):
        self.lines = []

    def add(self, where, name, said, computed, sources):
        self.lines.append(f"{where}: figure {name}: it says {said!r}, the stored files give "
                          f"{computed!r} ({', '.join(sources)})")


def scan(r, relative, text, problems, used, write):
    """Checks (or rewrites) one document's markers and blocks; returns its new text."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line, number = lines[i], i + 1
        begin = BEGIN.match(line)
        if begin:
            name = begin.group(1)
            try:
                end = lines.index(END.format(name), i + 1)
            except ValueError:
                problems.lines.append(f"{relative}:{number}: block {name} has no line {END.format(name)}")
                return text
            used.add(name)
            said = "\n".join(lines[i + 1:end])
            try:
                computed = r.value(name)
            except FigureError as e:
                problems.lines.append(f"{relative}:{number}: {e}")
                computed = said
            if said != computed:
                if write:
                    said = computed
                else:
                    first = next((k for k, (a, b) in enumerate(zip(said.split("\n"), computed.split("\n"))) if a != b),
                                 min(said.count("\n"), computed.count("\n")))
                    problems.add(f"{relative}:{number + 1 + first}", name,
                                 (said.split("\n") + [""])[first], (computed.split("\n") + [""])[first],
                                 r.figures[name].sources)
            out += [line] + ([said] if said != "" else []) + [lines[end]]
            i = end + 1
            continue
        pieces, at = [], 0
        for m in MARK.finditer(line):
            name = m.group(1)
            used.add(name)
            pieces.append(line[at:m.end()])
            at = m.end()
            try:
                computed = r.value(name)
            except FigureError as e:
                problems.lines.append(f"{relative}:{number}: {e}")
                continue
            said = token_after(line, at, computed)
            if said != computed:
                if write:
                    pieces.append(computed)
                    at += len(said) if any(re.fullmatch(kind, said) for kind in KINDS) else 0
                    continue
                problems.add(f"{relative}:{number}", name, said, computed, r.figures[name].sources)
        out.append("".join(pieces) + line[at:])
        i += 1
    return "\n".join(out)


def escape(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def stated(r, used):
    """The figures values.tsv holds: every one a document states, and every one that is not
    optional (those are stated somewhere, or the check says they are not)."""
    return sorted(n for n in r.figures if n in used or not r.figures[n].optional)


def values_table(r, used, problems):
    rows = ["# name\tvalue\tstored files (generated by docs/figures/figures.py --write; do not edit)"]
    for name in stated(r, used):
        try:
            rows.append(f"{name}\t{escape(r.value(name))}\t{' '.join(r.figures[name].sources)}")
        except FigureError as e:
            problems.lines.append(str(e))
    return "\n".join(rows) + "\n"


def write_atomically(path, text):
    tmp = f"{path}.figures-tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def check_values_file(r, used, problems):
    try:
        stored = open(os.path.join(ROOT, VALUES)).read().split("\n")
    except OSError:
        problems.lines.append(f"{VALUES}: missing; make it with `make figures`")
        return
    said = {}
    for line in stored[1:]:
        if line:
            name, value, _ = (line.split("\t") + ["", ""])[:3]
            said[name] = value
    for name in sorted(set(said) | set(stated(r, used))):
        if name not in r.figures:
            problems.lines.append(f"{VALUES}: figure {name} is not in the registry; run `make figures`")
            continue
        try:
            computed = escape(r.value(name))
        except FigureError:
            continue  # said where the document uses it
        if said.get(name) != computed:
            problems.add(VALUES, name, said.get(name, "(missing)"), computed, r.figures[name].sources)


def unmarked_problems(problems):
    """Measurement-like numbers without a marker, and not_figures.tsv rows that excuse none."""
    try:
        rows = unmarked.load_not_figures(ROOT)
    except (OSError, ValueError) as e:
        problems.lines.append(str(e))
        return
    problems.lines += unmarked.self_test() + unmarked.check(ROOT, documents(ROOT), rows)[1]


def audit():
    """Counts per document, for a reviewer: what is marked, what is listed as no figure."""
    findings = unmarked.check(ROOT, documents(ROOT), unmarked.load_not_figures(ROOT))[0]
    print("document\tfigure markers\tblocks\tmeasurement-like: figures\tnot figures\tunmarked")
    for relative in documents(ROOT):
        text = open(os.path.join(ROOT, relative), encoding="utf-8").read()
        kinds = [f.kind for f in findings if f.relative == relative]
        counts = [len(MARK.findall(text)), sum(bool(BEGIN.match(line)) for line in text.split("\n"))]
        counts += [kinds.count(kind) for kind in ("figure", "not-figure", "unmarked")]
        if any(counts):
            print(relative + "".join(f"\t{n}" for n in counts))
    print("\nnumbers with a unit that are not figures (docs/figures/not_figures.tsv), and unmarked ones")
    for f in findings:
        if f.kind != "figure":
            print(f"{f.relative}:{f.line}: {f.text}: {f.why or 'UNMARKED'}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--list", action="store_true")
    mode.add_argument("--audit", action="store_true")
    p.add_argument("--hugetune", help="the hugetune binary that re-predicts stored sweeps")
    args = p.parse_args()
    try:
        r = registry(args.hugetune)
    except ValueError as e:
        print(f"figures: {e}", file=sys.stderr)
        return 2
    if args.audit:
        return audit()
    if args.list:
        for name in sorted(r.figures):
            try:
                value = r.value(name)
            except FigureError as e:
                value = f"ERROR {e}"
            print(f"{name}\t{escape(value)[:60]}\t{' '.join(r.figures[name].sources)}")
        return 0
    problems, used = Problems(), set()
    for relative in documents(ROOT):
        path = os.path.join(ROOT, relative)
        text = open(path, encoding="utf-8").read()
        new = scan(r, relative, text, problems, used, args.write)
        if args.write and new != text:
            write_atomically(path, new)
            print(f"figures: rewrote {relative}")
    for name in sorted(n for n in set(r.figures) - used if not r.figures[n].optional):
        problems.lines.append(f"docs/figures: figure {name} is registered but no document states it")
    if args.write:
        write_atomically(os.path.join(ROOT, VALUES), values_table(r, used, problems))
    else:
        check_values_file(r, used, problems)
        unmarked_problems(problems)
    for line in problems.lines:
        print(f"figures: {line}", file=sys.stderr)
    if problems.lines:
        if not args.write:
            print("figures: the documents' figures are made from the stored files: run `make figures` "
                  "after changing a stored file, never edit a marked figure by hand", file=sys.stderr)
        return 1
    print(f"figures: {len(r.figures)} figures, every one as the stored files give it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
