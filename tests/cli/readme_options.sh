#!/usr/bin/env bash
# README.md against `hugetune --help` and `hugetune <command> --help`: the commands, each
# command's usage line and options (the Commands table), every default and range of the
# "Sweep options" paragraph, and the exit codes table must say what the binary prints. A range
# the README states is also tried on the binary: its bounds are accepted and the values just
# outside are refused while the options are read, before the machine is looked at.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it reads README.md and the help text"
python3 -S - "$bin" "$src" <<'EOF'
import re
import subprocess
import sys

binary, source = sys.argv[1], sys.argv[2]
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def words(text):
    return " ".join(text.split())


def parse_help(text):
    """usage line, options {flag: (takes_value, description)}, exit codes {code: meaning}."""
    usage, options, codes = [], {}, {}
    section, entry = "usage", None
    for line in text.splitlines():
        if line.startswith("usage: "):
            usage.append(line[len("usage: "):])
        elif section == "usage" and line.startswith("       ") and usage:
            usage.append(line)
        elif line and not line[0].isspace() and line.endswith(":"):
            section, entry = line[:-1], None
        elif section == "Exit codes" and line.strip():
            code, meaning = line.split(None, 1)
            codes[code] = meaning
        elif line.startswith("  -"):
            name, _, description = line.strip().partition("  ")
            flags = re.findall(r"--([a-z][a-z-]*)", name)
            takes_value = bool(re.search(r"--[a-z-]+ [^\s\]]", name))
            entry = flags[-1]
            options[entry] = [takes_value, description.strip(), section]
        elif entry and line.startswith("   ") and line.strip():
            options[entry][1] = words(options[entry][1] + " " + line)
        elif not line.strip():
            entry = None
            if section == "usage" and usage:
                section = "after usage"
    return words(" ".join(usage)), options, codes


def command_help(command):
    result = run(command, "--help")
    if result.returncode != 0:
        fail(f"'{command} --help' exited {result.returncode}: {result.stderr.strip()}")
    return parse_help(result.stdout)


readme = open(f"{source}/README.md", encoding="utf-8").read()
main_help = run("--help").stdout
commands = re.findall(r"^  ([a-z][a-z-]*) {2,}\S", main_help.split("Commands:")[1].split("Exit codes:")[0],
                      re.M)
_, _, help_codes = parse_help(main_help)


def readme_flags(text):
    """{flag: takes_value} of every `--flag [VALUE]` in a README usage text."""
    found = {}
    for flag, value in re.findall(r"--([a-z][a-z-]*)((?: [^\s\[\]|()]+)?)", text):
        found[flag] = bool(value.strip()) and not value.strip().startswith("--")
    return found


# The "Sweep options" paragraph: `--flag VALUE` (default D; RANGE), ...
paragraph = words(re.search(r"^Sweep options, shared by.*?(?=\n\n)", readme, re.M | re.S).group(0))
sweep_readme = {}
for flag, value, stated in re.findall(r"`--([a-z-]+)( [^`]*)?`[^(`]*\(([^()]*)\)", paragraph):
    sweep_readme[flag] = (bool(value.strip()), stated.replace("`", ""))
if not sweep_readme:
    fail("README.md: no sweep option found in the 'Sweep options' paragraph")

# The Commands table: | `command usage` | what it does | root |
table = re.search(r"^## Commands\n(.*?)(?=\n## |\n### )", readme, re.M | re.S).group(1)
rows = {}
for cell in re.findall(r"^\| `([a-z]+[^`]*)` \|", table, re.M):
    cell = cell.replace("\\|", "|")
    rows[cell.split()[0]] = cell
if sorted(rows) != sorted(commands):
    fail(f"README.md Commands table lists {sorted(rows)}, 'hugetune --help' lists {sorted(commands)}")

sweep_help_options = None
for command in commands:
    usage, options, codes = command_help(command)
    if codes != help_codes:
        fail(f"'{command} --help' prints other exit codes than 'hugetune --help'")
    cell = rows.get(command)
    if cell is None:
        continue
    if words(cell) != usage.removeprefix("hugetune "):
        fail(f"README.md '{cell}' but '{command} --help' says 'usage: {usage}'")
    documented = readme_flags(cell.replace("[sweep options]", ""))
    if "[sweep options]" in cell:
        documented.update({flag: value for flag, (value, _) in sweep_readme.items()})
    printed = {flag: entry[0] for flag, entry in options.items() if flag != "help"}
    for flag in sorted(set(documented) | set(printed)):
        if flag not in printed:
            fail(f"README.md gives '{command}' the option --{flag}, which its --help lacks")
        elif flag not in documented:
            fail(f"'{command} --help' has --{flag}, which README.md does not list for it")
        elif documented[flag] != printed[flag]:
            fail(f"--{flag} of '{command}': README.md and --help disagree on whether it takes a value")
    if command == "sweep":
        sweep_help_options = options

# Every default and range of a sweep option: the README's "(default D; RANGE)" is the help's.
sweep_help_options = sweep_help_options or {}
for flag, (_, stated) in sweep_readme.items():
    entry = sweep_help_options.get(flag)
    if entry is None:
        fail(f"--{flag}: in README.md's 'Sweep options', missing from 'sweep --help'")
        continue
    if entry[2] != "Sweep options":
        fail(f"--{flag}: 'sweep --help' lists it under '{entry[2]}', not 'Sweep options'")
    if [stated] != re.findall(r"\((default [^()]*)\)", entry[1]):
        fail(f"--{flag}: README.md says '({stated})', --help says '{entry[1]}'")
for flag, entry in sweep_help_options.items():
    if entry[2] == "Sweep options" and flag not in sweep_readme:
        fail(f"--{flag}: a sweep option in --help, missing from README.md's 'Sweep options'")

# A stated range holds on the binary: --root names no directory, so a value refused there was
# refused while the options were read, and one accepted gets as far as the --root check.
fixture = f"{source}/tests/fixtures/skylake-4node"
for flag, (_, stated) in sweep_readme.items():
    bounds = re.search(r"(?:^|; )(?:each )?(-?\d+) to (\d+)$", stated)
    above = re.search(r"; above ([\d.]+), at most ([\d.]+)$", stated)
    if bounds:
        low, high = int(bounds.group(1)), int(bounds.group(2))
        inside, outside = [low, high], [low - 1, high + 1]
    elif above:
        low, high = float(above.group(1)), float(above.group(2))
        inside, outside = [high], [low, round(high + (high - low) / 10, 6)]
    else:
        continue
    for value in inside:
        result = run("sweep", "--dry-run", "--root", fixture, f"--{flag}", str(value))
        if result.returncode != 0:
            fail(f"--{flag} {value} is within the stated range ({stated}) but refused: "
                 f"{result.stderr.strip()}")
    for value in outside:
        result = run("sweep", "--dry-run", "--root", "/nonexistent/hugetune-tree", f"--{flag}",
                     str(value))
        if result.returncode != 2 or not result.stderr.startswith(f"hugetune: error: --{flag}: "):
            fail(f"--{flag} {value} is outside the stated range ({stated}) but not refused when "
                 f"the options are read: {result.stderr.strip()}")

# The exit codes table: the same codes, each meaning starting as the help's does.
codes_table = re.search(r"^### Exit codes\n\n(.*?)(?=\n\n)", readme, re.M | re.S).group(1)
readme_codes = dict(re.findall(r"^\| (\d+) \| (.*?) \|$", codes_table, re.M))
if sorted(readme_codes, key=int) != sorted(help_codes, key=int):
    fail(f"exit codes: README.md has {sorted(readme_codes, key=int)}, --help has "
         f"{sorted(help_codes, key=int)}")
for code, meaning in help_codes.items():
    head = re.split(r"[(:;,]", meaning)[0].strip()
    if code in readme_codes and not readme_codes[code].startswith(head):
        fail(f"exit code {code}: --help says '{meaning}', README.md '{readme_codes[code]}'")

# Every --sku example in README.md, docs/ and the man pages is a whole key as reports write it
# (model/fleet/fleet.hpp "<microarch>/<nodes>n/<threads>t/<gib>g/<page kB>k/ioa<0|1>"): one
# without its /ioa part matches no SKU of a current database.
import glob
for path in [source + "/README.md"] + glob.glob(source + "/docs/*.md") + glob.glob(
        source + "/docs/man/*.in"):
    text = open(path).read().replace("\\-", "-")
    for key in re.findall(r"--sku ([^\s`'\"|\])]+)", text):
        if key in ("KEY", "SKU") or key.startswith("$"):
            continue
        if not re.fullmatch(r"[a-z0-9_.+-]+/\d+n/\d+t/\d+g/\d+k/ioa[01]", key):
            fail(f"{path[len(source) + 1:]}: --sku {key} is not a whole SKU key (.../ioa0 or /ioa1)")

# The same of every example in the fleet commands' --help (the man pages are made from it).
for sub in ("ingest", "skus", "recommend", "hosts", "export", "runs", "forget", "plan"):
    text = words(run("fleet", sub, "--help").stdout)
    for key in re.findall(r"e\.g\. ([^\s`'\"|\])]+/[^\s`'\"|\])]+)", text):
        if not re.fullmatch(r"[a-z0-9_.+-]+/\d+n/\d+t/\d+g/\d+k/ioa[01]", key):
            fail(f"hugetune fleet {sub} --help: the example {key} is not a whole SKU key (.../ioa0 or /ioa1)")

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
EOF
