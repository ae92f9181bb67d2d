"""Measurement-like numbers a document states without a marker.

A number followed by a unit of time, size or rate (0.36 s, 455 MB, 3,289 reports/s, 5%), or a
ratio (1.26 times, 2.0x), is measurement-like. Each one is either a figure (a marker right
before each of its numbers) or listed in not_figures.tsv as a phrase of that document with the
reason it is not a measurement (a page size, a default, a limit, a target). Anything else is
unmarked, and the check fails naming the document and line. Text a reader does not see as
prose is left out: code spans, fenced and indented code blocks, HTML comments and the blocks
`make figures` fills (docs/figures/README.md, "Numbers that are not figures")."""
import collections
import os
import re

NOT_FIGURES = "docs/figures/not_figures.tsv"
EVERY_DOCUMENT = "*"

_NUMBER = r"[-+]?\d+(?:,\d{3})*(?:\.\d+)?"
# Numbers joined into one range before their unit: 12-64 ms, 2.35 to 3.78 times.
_JOIN = r"(?:\s*[-–]\s*|\s+to\s+)"
# The unit may be on the next line of the paragraph.
_SPACE = r"(?:[ \t]*\n[ \t]*|[ \t]?)"
# A ratio's x is written against the number (2.0x); with a space it multiplies (2048 x 2 MiB).
_UNIT = (r"(?:" + _SPACE + r"(?:(?:ns|µs|us|ms|s|sec|seconds?|min|minutes?|h|hours?|days?"
         r"|[KMGTP]i?B|kB|bytes|%)(?![\w])"
         r"|[a-z]+(?:/s|\s+a\s+second|\s+per\s+second)(?![\w]))"
         r"|\s+times\b|[x×](?![\w]))")
CANDIDATE = re.compile(r"(?<![\w.,/^\-])(" + _NUMBER + r"(?:" + _JOIN + _NUMBER + r")*)" + _UNIT)
NUMBER = re.compile(r"(?<![\d.,])" + _NUMBER)
FIG_MARK = re.compile(r"<!-- fig:[a-z0-9_.]+ -->")
COMMENT = re.compile(r"<!--.*?-->", re.S)
# A code span may wrap onto the next line of its paragraph, never past a blank line.
CODE_SPAN = re.compile(r"`(?:[^`\n]|\n(?![ \t]*\n))*`")
BLOCK_BEGIN = re.compile(r"^<!-- figures:begin ([a-z0-9_.]+) -->$")


def _blank(text, start, end):
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def prose(text):
    """The document with everything but prose blanked (same length, same lines), and where
    each figure marker ends (the start of the number it marks)."""
    lines, out, fence, block, code = text.split("\n"), [], False, None, False
    for i, line in enumerate(lines):
        previous_blank = i == 0 or lines[i - 1].strip() == ""
        hide = fence or block is not None
        if line.startswith("```"):
            fence, hide = not fence, True
        elif block is not None:
            block = None if line == f"<!-- figures:end {block} -->" else block
        elif not fence and BLOCK_BEGIN.match(line):
            block, hide = BLOCK_BEGIN.match(line).group(1), True
        code = not hide and line.startswith(("    ", "\t")) and line.strip() != "" and (previous_blank or code)
        out.append(" " * len(line) if hide or code else line)
    masked = "\n".join(out)
    marks = {m.end() for m in FIG_MARK.finditer(masked)}
    for m in list(COMMENT.finditer(masked)):
        masked = _blank(masked, m.start(), m.end())
    for m in list(CODE_SPAN.finditer(masked)):
        masked = _blank(masked, m.start(), m.end())
    return masked, marks


def load_not_figures(root):
    """Each row of not_figures.tsv: (document or *, phrase, why, line number)."""
    rows = []
    with open(os.path.join(root, NOT_FIGURES), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3 or not all(field.strip() for field in fields):
                raise ValueError(f"{NOT_FIGURES}:{number}: not `document<TAB>phrase<TAB>why`")
            rows.append((fields[0], fields[1], fields[2], number))
    return rows


def phrase_pattern(phrase):
    """A phrase as the document has it, wrapped anywhere it has a space."""
    words = [re.escape(word) for word in phrase.split()]
    return re.compile(r"(?<![\w.,])" + r"\s+".join(words) + r"(?![\w])")


# One measurement-like number (or range) of a document: kind is `figure`, `not-figure` or
# `unmarked`; why is the not_figures.tsv reason of a not-figure.
Finding = collections.namedtuple("Finding", "relative line text kind why")


def excusing_spans(relative, text, rows):
    """Where each not_figures.tsv phrase of this document stands: (start, end, why, row)."""
    spans = []
    for document, phrase, why, number in rows:
        if document in (relative, EVERY_DOCUMENT):
            spans += [(m.start(), m.end(), why, number) for m in phrase_pattern(phrase).finditer(text)]
    return spans


def scan(relative, text, rows):
    """Every measurement-like number of one document, as Findings; and the rows of
    not_figures.tsv that excused one."""
    masked, marks = prose(text)
    spans = excusing_spans(relative, text, rows)
    findings, used = [], set()
    for m in CANDIDATE.finditer(masked):
        line = masked.count("\n", 0, m.start()) + 1
        shown = FIG_MARK.sub("", " ".join(text[m.start():m.end()].split()))
        numbers = [(m.start(1) + n.start(), m.start(1) + n.end()) for n in NUMBER.finditer(m.group(1))]
        loose = [(a, b) for a, b in numbers if a not in marks]
        excused = [next((s for s in spans if s[0] <= a and b <= s[1]), None) for a, b in loose]
        if not loose:
            findings.append(Finding(relative, line, shown, "figure", None))
        elif all(excused):
            used.update(s[3] for s in excused)
            findings.append(Finding(relative, line, shown, "not-figure", excused[0][2]))
        else:
            findings.append(Finding(relative, line, shown, "unmarked", None))
    return findings, used


def check(root, documents, rows):
    """Every document scanned: (findings, problems as lines)."""
    findings, used, problems = [], set(), []
    for relative in documents:
        with open(os.path.join(root, relative), encoding="utf-8") as f:
            found, excused = scan(relative, f.read(), rows)
        findings += found
        used |= excused
    for f in findings:
        if f.kind == "unmarked":
            problems.append(f"{f.relative}:{f.line}: {f.text!r} looks measured but carries no marker: "
                            f"register it and mark it (<!-- fig:NAME -->), or, if it is not a "
                            f"measurement, list the phrase in {NOT_FIGURES} with the reason")
    for document, phrase, _, number in rows:
        if number not in used:
            problems.append(f"{NOT_FIGURES}:{number}: {phrase!r} excuses nothing in "
                            f"{'any document' if document == EVERY_DOCUMENT else document}: remove the row")
    return findings, problems


# What the scan must find in text of each kind, run before every check so that the test shows it
# still finds an unmarked number: (text, the numbers found and their kind).
M = "<!-- fig:x.y -->"
SELF_TEST = (
    ("took 0.37 s.", [("0.37 s", "unmarked")]),
    ("took 0.37\n  s, wrapped", [("0.37 s", "unmarked")]),
    ("took " + M + "0.37 s", [("0.37 s", "figure")]),
    ("from 864-" + M + "1200 ms", [("864-1200 ms", "unmarked")]),
    (M + "2.35 to " + M + "3.78 times", [("2.35 to 3.78 times", "figure")]),
    ("3,289 reports/s, 3,436 reports a second, 2.0x, 24%, 455 MB",
     [("3,289 reports/s", "unmarked"), ("3,436 reports a second", "unmarked"), ("2.0x", "unmarked"),
      ("24%", "unmarked"), ("455 MB", "unmarked")]),
    ("`0.37 s` and <!-- 0.37 s --> and x86-64 and 2048 x 2 and Linux 7.2", []),
    ("text:\n\n    run --timeout 0.37 s\n", []),
    ("the 4 KiB page", [("4 KiB", "not-figure")]),
)


def self_test():
    """Problems as lines: each SELF_TEST text whose findings differ."""
    rows = [("self-test.md", "4 KiB", "a page size", 0)]
    problems = []
    for text, expected in SELF_TEST:
        found = [(f.text, f.kind) for f in scan("self-test.md", text, rows)[0]]
        if found != expected:
            problems.append(f"docs/figures/unmarked.py: the scan of {text!r} found {found}, not {expected}")
    return problems
