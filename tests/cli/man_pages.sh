#!/usr/bin/env bash
# The man pages the build generated (build/man/) against the binary: every command `hugetune
# --help` lists has its page hugetune-COMMAND(8), named in hugetune(8); each page's OPTIONS
# (each subcommand's, for a command made of them) are exactly the options of `--help`; every
# option a page mentions anywhere exists; and groff renders every page without a warning.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it compares the pages with the help text"
require_command man "it renders the pages (man-db)"
require_command groff "it checks the pages for roff warnings (groff-base)"
man_dir=$(dirname "$bin")/man
[[ -d $man_dir ]] || fail "no man pages in $man_dir: the build generates them (target generated_docs)"
python3 -S - "$bin" "$man_dir" <<'PY' || fail "the man pages and --help differ (above)"
import os, re, subprocess, sys

binary, man_dir = sys.argv[1], sys.argv[2]
failures = []
GLOBAL = {"help", "version"}


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True).stdout


def help_options(text):
    """The long options of a --help text's option lines ("  -h [ --help ]", "  --report FILE")."""
    return {re.findall(r"--([a-z][a-z0-9-]*)", line.strip().split("  ")[0])[-1]
            for line in text.splitlines() if re.match(r"^  -", line)}


def listed(text, heading):
    """Names of a 'Heading:' list of a --help text (commands, subcommands)."""
    if heading not in text:
        return []
    block = text.split(heading, 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  ([a-z][a-z-]*) {2,}\S", block, re.M)


def render(page):
    env = dict(os.environ, MANWIDTH="250", LC_ALL="C")
    result = subprocess.run(["man", "--nh", "--nj", "-E", "ascii", "-l", page],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        fail(f"man -l {page}: {result.stderr.strip()}")
    return result.stdout


def sections(rendered):
    """{section heading: text} of a rendered page."""
    out, name = {}, None
    for line in rendered.splitlines():
        if re.match(r"^[A-Z][A-Z ]+$", line):
            name = line.strip()
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def page_options(text):
    """The options of a rendered OPTIONS text: tag lines of 7 spaces then a dash."""
    return {re.findall(r"--([a-z][a-z0-9-]*)", line)[0]
            for line in text.splitlines() if re.match(r"^ {7}-", line) and "--" in line}


def subsections(text):
    """{subsection: text} of a rendered OPTIONS section (.SS lines are indented 3)."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^   ([a-z][a-z-]*)$", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def warnings_of(page):
    result = subprocess.run(["groff", "-man", "-ww", "-z", page], capture_output=True, text=True)
    return result.stderr.strip()


commands = listed(run("--help"), "Commands:")
if not commands:
    fail("hugetune --help lists no commands")
pages = {f for f in os.listdir(man_dir) if f.endswith(".8")}
main = os.path.join(man_dir, "hugetune.8")
if "hugetune.8" not in pages:
    fail("no hugetune.8")
else:
    main_text = render(main)
    for c in commands:
        if f"hugetune-{c}(8)" not in main_text:
            fail(f"hugetune(8) does not name hugetune-{c}(8)")
for page in sorted(pages - {"hugetune.8"}):
    if page[len("hugetune-"):-len(".8")] not in commands:
        fail(f"{page} is the page of no command hugetune --help lists")

for c in commands:
    page = os.path.join(man_dir, f"hugetune-{c}.8")
    if not os.path.exists(page):
        fail(f"command {c} has no man page: add docs/man/hugetune-{c}.8.in")
        continue
    if w := warnings_of(page):
        fail(f"groff warns on {page}: {w}")
    rendered = render(page)
    parts = sections(rendered)
    help_text = run(c, "--help")
    subs = listed(help_text, "Subcommands")
    every = set(GLOBAL)
    if subs:
        pieces = subsections(parts.get("OPTIONS", ""))
        if sorted(pieces) != sorted(subs):
            fail(f"hugetune-{c}(8) has OPTIONS for {sorted(pieces)}, --help lists {sorted(subs)}")
        for s in subs:
            want = help_options(run(c, s, "--help"))
            got = page_options(pieces.get(s, ""))
            every |= want
            if want != got:
                fail(f"hugetune-{c}(8) {s}: only in --help {sorted(want - got)}, only in the page {sorted(got - want)}")
    else:
        want = help_options(help_text)
        got = page_options(parts.get("OPTIONS", ""))
        every |= want
        if want != got:
            fail(f"hugetune-{c}(8): only in --help {sorted(want - got)}, only in the page {sorted(got - want)}")
    # The prose: an option it names must be one of this command's (the options' own help may
    # name another command's, as `fit --input` names the file of `sweep --out`).
    prose = parts.get("DESCRIPTION", "") + parts.get("EXAMPLES", "")
    for mentioned in sorted(set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", prose)) - every):
        fail(f"hugetune-{c}(8) mentions --{mentioned}, which hugetune {c} does not take")
sys.exit(1 if failures else 0)
PY
echo "man pages: ${man_dir}: every command's page agrees with its --help"
