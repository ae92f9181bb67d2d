"""The compile times tests/bench/compile_costs.sh took, grouped by the heavy headers each source
reaches through the project's own includes: nlohmann/json.hpp (or only json_fwd.hpp), Boost,
SOCI, Eigen. Prints each group's sources and CPU seconds, then the costliest sources.
    usage: compile_costs.py SOURCE_TREE TIMES_FILE"""
import collections
import os
import re
import sys

root, times_file = sys.argv[1], sys.argv[2]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def reached(path, seen):
    """Every header `path` includes, following the project's own headers."""
    out = set()
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return out
    for header in INCLUDE.findall(text):
        out.add(header)
        own = os.path.join(root, header)
        if os.path.isfile(own) and own not in seen:
            seen.add(own)
            out |= reached(own, seen)
    return out


def group(headers):
    if "nlohmann/json.hpp" in headers:
        name = "json"
    elif "nlohmann/json_fwd.hpp" in headers:
        name = "json_fwd only"
    else:
        name = "no json"
    for prefix, label in (("boost/", "boost"), ("soci/", "soci"), ("Eigen/", "eigen")):
        if any(h.startswith(prefix) for h in headers):
            name += " + " + label
    return name


rows = []
for line in open(times_file):
    parts = line.split()
    if len(parts) == 4 and parts[3].endswith(".cpp"):
        rows.append((float(parts[0]) + float(parts[1]), parts[3]))
total = sum(cpu for cpu, _ in rows)
print(f"{len(rows)} sources, {total:.0f} CPU s of compiling")
groups = collections.defaultdict(list)
for cpu, source in rows:
    groups[group(reached(source, set()))].append(cpu)
for name, cpus in sorted(groups.items(), key=lambda g: -sum(g[1])):
    print(f"{name:24s} {len(cpus):4d} sources {sum(cpus):7.1f} CPU s ({sum(cpus) / total:.0%}), "
          f"{sum(cpus) / len(cpus):.2f} s each")
json_cpus = [cpu for name, cpus in groups.items() if name.startswith("json +") or name == "json"
             for cpu in cpus]
print(f"sources reaching nlohmann/json.hpp: {len(json_cpus)} of {len(rows)}, "
      f"{sum(json_cpus):.0f} of {total:.0f} CPU s ({sum(json_cpus) / total:.0%})")
print("costliest sources:")
for cpu, source in sorted(rows, reverse=True)[:20]:
    print(f"{cpu:7.1f} {os.path.relpath(source, root)}")
