#!/usr/bin/python3
"""How many of the product's sources include nlohmann/json.hpp, directly or through a header:
each source of a CMake build tree's compile_commands.json (not the tests' or the header check's)
preprocessed for its dependencies alone (-M), two at a time.
    usage: tests/bench/json_includes.py BUILD_DIR"""
import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def dependencies(command):
    args = shlex.split(command["command"])
    if args[0].endswith("ccache"):
        args = args[1:]
    i = args.index("-o")
    args = args[:i] + args[i + 2:]
    out = subprocess.run(args + ["-M", "-MF", "/dev/stdout", "-E", "-o", "/dev/null"],
                         cwd=command["directory"], capture_output=True, text=True, check=True).stdout
    return out.replace("\\\n", " ").split()[2:]


commands = json.load(open(sys.argv[1] + "/compile_commands.json"))
product = [c for c in commands if "/tests/" not in c["file"] and "/header_check/" not in c["file"]]
with ThreadPoolExecutor(2) as pool:
    found = list(pool.map(dependencies, product))
including = sum(any(h.endswith("nlohmann/json.hpp") for h in deps) for deps in found)
print(f"sources of the product: {len(product)}; including nlohmann/json.hpp: {including}")
