"""Figures of building, CI, packaging and the arm64 cross build on the 2-CPU development
machine: docs/measurements/ outputs of `time`, ctest and the lab's run-all.sh."""
import os
import re

M = "docs/measurements/"


def wall_seconds(r, path, nth=0):
    """The `real` line of bash's `time`, in seconds."""
    m, s = r.file(path).grab(r"^real\t(\d+)m([\d.]+)s$", (1, 2), nth)
    return int(m) * 60 + float(s)


def add_duration(r, name, path, nth=0):
    """A wall time shown as minutes and seconds: NAME_min and NAME_s."""
    r.add(name + "_min", path, lambda: str(round(wall_seconds(r, path, nth)) // 60))
    r.add(name + "_s", path, lambda: str(round(wall_seconds(r, path, nth)) % 60))


def add_seconds(r, name, path, nth=0):
    r.add(name, path, lambda: str(round(wall_seconds(r, path, nth))))


def amd64_lab_cases(r):
    """The boot lab's amd64 cases today: tests/vm/cases/*.sh without a `# vmlab-arch:` line or
    with one naming amd64 (tests/vm/lib/arch.bash)."""
    cases = "tests/vm/cases"
    count = 0
    for name in os.listdir(r.path(cases)):
        if name.endswith(".sh"):
            text = open(r.path(f"{cases}/{name}")).read()
            arch = re.search(r"^# vmlab-arch:(.*)$", text, re.M)
            count += arch is None or "amd64" in arch.group(1).split()
    return str(count)


def stamp_at(r, path, pattern):
    """The seconds stamp scripts/ci-timed put on the first line matching PATTERN."""
    return int(r.file(path).grab(r"^ *(\d+) " + pattern))


def add_ci_phases(r, key, path):
    """Where the time of a timed .ci/run (scripts/ci-timed) went, from its lines' stamps: the
    packages, the Release tree's build, the sanitizer tree's build."""
    release = r"cmake --build build-test "
    asan = r"cmake --build build-asan "
    r.add(f"build.{key}.packages_s", path, lambda: str(stamp_at(r, path, release)))
    r.add(f"build.{key}.release_build_s", path,
          lambda: str(stamp_at(r, path, r"cd build-test && ctest") - stamp_at(r, path, release)))
    r.add(f"build.{key}.asan_build_s", path,
          lambda: str(stamp_at(r, path, r"cd build-asan && .*ctest") - stamp_at(r, path, asan)))


def add_ci_run(r, key, path, timed=False):
    """A .ci/run output: its step times, the shipped and sanitizer ctest runs, the cache's hits;
    TIMED for an output of scripts/ci-timed, each line headed by its seconds."""
    at = r"^ *\d+ " if timed else r"^"
    for part, pattern in (("make_test_s", at + r"ci: make test (\d+) s"), ("vmtest_s", r"make vmtest (\d+) s"),
                          ("arm64_s", r"make package-arm64 (\d+) s"), ("total_s", r"total (\d+) s")):
        r.add(f"build.{key}.{part}", path, lambda pattern=pattern: f"{int(r.file(path).grab(pattern)):,}")
    if timed:
        add_ci_phases(r, key, path)
    ctest_total = at + r"Total Test time \(real\) = +([\d.]+) sec"
    r.add(f"build.{key}.shipped_tests_s", path,
          lambda: str(round(float(r.file(path).grab(ctest_total, nth=0)))))
    r.add(f"build.{key}.asan_tests_s", path,
          lambda: f"{round(float(r.file(path).grab(ctest_total, nth=1))):,}")
    r.add(f"build.{key}.hits", path, lambda: r.file(path).grab(at + r"ccache: Hits: +(\d+) /"))


def register(r):
    ci, empty = M + "ci-run-2026-12-03.txt", M + "ci-run-empty-cache-2026-12-03.txt"
    for key, path in (("ci", ci), ("ci_empty_cache", empty)):
        for part, pattern in (("make_test_s", r"^ci: make test (\d+) s"), ("vmtest_s", r"make vmtest (\d+) s"),
                              ("total_s", r"total (\d+) s")):
            r.add(f"build.{key}.{part}", path,
                  lambda path=path, pattern=pattern: f"{int(r.file(path).grab(pattern)):,}")
        r.add(f"build.{key}.lab_cases", path,
              lambda path=path: str(len(r.file(path).grab_all(r"^vmlab: (PASS|FAIL) ", 1))), optional=True)
    r.add("build.lab_cases_amd64", "tests/vm/cases", lambda: amd64_lab_cases(r))
    # .ci/run from a fresh clone, each test once: with an empty compiler cache, and with the
    # cache the runs before filled after the slow tests moved (2026-12-06).
    add_ci_run(r, "ci_cold_2026_12_06", M + "ci-run-cold-2026-12-06.txt")
    add_ci_run(r, "ci_warm_2026_12_06_c", M + "ci-run-warm-2026-12-06-c.txt")
    add_ci_run(r, "ci_warm_2026_12_06_d", M + "ci-run-warm-2026-12-06-d.txt")
    # Timed by scripts/ci-timed: a fresh clone on a new machine (no test packages, no cache).
    add_ci_run(r, "ci_cold_2026_12_06_b", M + "ci-run-cold-2026-12-06-b.txt", timed=True)
    # The same after the lighter sanitizer build, the test packages installed, the cache empty.
    add_ci_run(r, "ci_cold_2026_12_06_c", M + "ci-run-cold-2026-12-06-c.txt", timed=True)
    # And again from a fresh clone with the cache that run filled.
    add_ci_run(r, "ci_warm_2026_12_06_g", M + "ci-run-warm-2026-12-06-g.txt", timed=True)
    # A machine new to the session: no packages, no cache (2026-12-07).
    add_ci_run(r, "ci_cold_2026_12_07", M + "ci-run-cold-2026-12-07.txt", timed=True)
    # The boot lab two cases at a time (2026-12-07): the lab side by side with one at a time, then
    # a fresh clone's .ci/run with it, and the CPUs that run kept busy.
    jobs = M + "vmtest-jobs-2026-12-07.txt"
    for nth, side in ((0, "two"), (1, "one")):
        r.grab(f"build.lab_jobs_2026_12_07.{side}_s", jobs,
               r"^vmlab: \d+ passed, 0 failed, wall time (\d+) s", nth=nth)
    j = M + "ci-run-warm-2026-12-07-j.txt"
    for part, pattern in (("total_s", r"^ *\d+ ci: .*total (\d+) s"),
                          ("vmtest_s", r"^ *\d+ ci: .*make vmtest (\d+) s")):
        r.grab(f"build.ci_warm_2026_12_07_j.{part}", j, pattern)
    busy = M + "ci-run-warm-2026-12-07-j-cpu.txt"
    r.grab("build.ci_warm_2026_12_07_j.busy_cpus", busy, r"^the whole run \(0-790 s\): ([\d.]+) of 2 CPUs busy")
    r.grab("build.ci_warm_2026_12_07_j.busy_cpus_asan", busy,
           r"^the sanitizer tree's tests \(\d+-\d+ s\): ([\d.]+) of 2 CPUs busy")
    # The sanitizer tree's cold compile without and with precompiled headers, in turns.
    pch = M + "asan-tree-pch-2026-12-07.txt"
    for side in ("OFF", "ON"):
        r.add(f"build.asan_pch.{side.lower()}_s", pch,
              lambda side=side: str(round(float(r.file(pch).grab(rf"^round 1 pch {side}: build ([\d.]+) s, exit 0")))))
    ubsan = M + "asan-ubsan-checks-2026-12-06.txt"
    r.grab("build.ubsan_checks.start_with_s", ubsan, r"^with +the three checks: binary .* start median ([\d.]+) s")
    r.grab("build.ubsan_checks.start_without_s", ubsan, r"^without +the three checks: binary .* start median ([\d.]+) s")
    py = M + "python-start-2026-12-05.txt"
    r.grab("build.python_start.shim_s", py, r"^shim: ([\d.]+) s a start")
    r.grab("build.python_start.debian_s", py, r"/usr/bin/python3: ([\d.]+) s a start")
    cold = M + "test-build-cold-2026-12-03.txt"
    r.add("build.test_build_cold_s", cold, lambda: str(round(float(r.file(cold).grab(r"^/tmp/ci-clone: wall ([\d.]+) s")))))
    r.add("build.test_build_cold_before_s", cold, lambda: str(round(float(r.file(cold).grab(r"^/tmp/old-tree: wall ([\d.]+) s")))))
    failed = "tests/vm/findings/placement-2026-12-04/ci-vmtest-f0b19cf.txt"
    r.grab("build.ci_failed_lab.wall_s", failed, r"^vmlab: \d+ passed, 1 failed, wall time (\d+) s")
    r.grab("build.ci_failed_lab.passed", failed, r"^vmlab: (\d+) passed, 1 failed")
    after = "tests/vm/findings/placement-2026-12-04/vmtest-all-after.txt"
    r.grab("build.lab_after_silent_guest.wall_s", after, r"^vmlab: \d+ passed, 0 failed, wall time (\d+) s")
    r.grab("build.lab_after_silent_guest.passed", after, r"^vmlab: (\d+) passed, 0 failed")
    objects = M + "make-build-objects-2026-12-03.txt"
    r.grab("build.objects_installable", objects, r"target installable \(make build\): (\d+)")
    r.grab("build.objects_all", objects, r"target all \(make test builds\): (\d+)")

    suite = M + "schema-suite-2026-12-03.txt"
    r.grab("schema_suite.agree", suite, r"^schema suite: (\d+) agree")
    r.grab("schema_suite.not_supported", suite, r"(\d+) not supported, \d+ wrong")
    r.grab("schema_suite.wrong", suite, r"not supported, (\d+) wrong")
    unsupported = lambda: r.file(suite).grab_all(r"^not supported: (.*)$")  # noqa: E731
    r.add("schema_suite.pattern_properties", suite,
          lambda: str(sum("keyword 'patternProperties'" in u for u in unsupported())))
    r.add("schema_suite.tuple_items", suite,
          lambda: str(sum(u.startswith("items.json") and "keyword '0'" in u for u in unsupported())))
    r.add("schema_suite.max_items", suite, lambda: str(sum("keyword 'maxItems'" in u for u in unsupported())))
    r.add("schema_suite.references", suite,
          lambda: str(sum(u.startswith("ref.json") and "maxItems" not in u for u in unsupported())))

    register_arm64(r)
    register_compile_ab(r)
    register_compile_costs(r)


def register_compile_ab(r):
    """tests/bench/compile_ab.sh: the product's cold compile of two commits side by side."""
    path = M + "compile-ab-2026-12-06-json-fwd.txt"
    for what in ("wall", "cpu"):
        for side in ("old", "new"):
            r.add(f"build.compile_ab_json_fwd.{side}_{what}_s", path,
                  lambda what=what, side=side: str(round(float(
                      r.file(path).grab(rf"^median {what}: old ([\d.]+) s, new ([\d.]+) s", 1 if side == "old" else 2)))))
        r.grab(f"build.compile_ab_json_fwd.{what}_ratio", path, rf"^median {what}: .*, new/old ([\d.]+)$")
    includes = M + "json-includes-2026-12-06.txt"
    r.grab("build.json_includes.sources", includes, r"^new: sources of the product: (\d+);")
    for side in ("old", "new"):
        r.grab(f"build.json_includes.{side}", includes, rf"^{side}: .*; including nlohmann/json.hpp: (\d+)$")


def register_compile_costs(r):
    """tests/bench/compile_costs.sh: each source of the product compiled cold and timed, grouped
    by the heavy headers it reaches."""
    path = M + "compile-costs-2026-12-07.txt"
    r.grab("build.compile_costs.wall_s", path, r"^build: wall (\d+)\.\d+ s")
    r.grab("build.compile_costs.cpu_s", path, r"^build: wall [\d.]+ s, cpu (\d+)\.\d+ s")
    r.grab("build.compile_costs.json_sources", path, r"^sources reaching nlohmann/json.hpp: (\d+) of")
    r.grab("build.compile_costs.sources", path, r"^sources reaching nlohmann/json.hpp: \d+ of (\d+),")
    r.grab("build.compile_costs.json_cpu_s", path, r"^sources reaching nlohmann/json.hpp: .*, (\d+) of \d+ CPU s")
    r.grab("build.compile_costs.compile_cpu_s", path, r"^sources reaching nlohmann/json.hpp: .*, \d+ of (\d+) CPU s")
    r.grab("build.compile_costs.json_share", path, r"^sources reaching nlohmann/json.hpp: .* \((\d+)%\)$")
    for key, group in (("json", "json"), ("json_boost", "json \\+ boost"), ("no_json", "no json")):
        r.grab(f"build.compile_costs.{key}_each_s", path, rf"^{group} +\d+ sources .*, ([\d.]+) s each$")
        r.grab(f"build.compile_costs.{key}_count", path, rf"^{group} +(\d+) sources")


def register_arm64(r):
    counts = M + "arm64-unit-case-counts-2026-12-03.txt"
    suites = ("model", "reports", "tuner", "fleet_db", "cli", "fleet")
    for suite in suites:
        r.grab(f"arm64.cases_2026_12_03.{suite}", counts, rf"^unit_{suite}: .*: (\d+)$")
    r.add("arm64.cases_2026_12_03.total", counts,
          lambda: str(sum(int(r.value(f"arm64.cases_2026_12_03.{s}")) for s in suites)))
    cross = M + "arm64-cross-and-test-2026-12-03.txt"
    add_duration(r, "arm64.test_2026_12_03.wall", cross)
    r.add("arm64.test_2026_12_03.suites_s", cross,
          lambda: str(round(float(r.file(cross).grab(r"Total Test time \(real\) = +([\d.]+) sec")))))
    r.add("arm64.test_2026_12_03.suites", cross, lambda: r.file(cross).grab(r"tests passed, 0 tests failed out of (\d+)"))
    test = M + "test-arm64-2026-12-05.txt"
    add_duration(r, "arm64.test_2026_12_05.wall", test)
    r.add("arm64.test_2026_12_05.suites_s", test,
          lambda: str(round(float(r.file(test).grab(r"Total Test time \(real\) = +([\d.]+) sec")))))
    r.grab("arm64.test_2026_12_05.suites", test, r"^test-arm64: (\d+) unit suites")
    for suite in ("unit_model", "unit_fleet"):
        r.add(f"arm64.test_2026_12_05.{suite}_s", test,
              lambda suite=suite: str(round(float(r.file(test).grab(rf"Test +#\d+: {suite} \.+ +Passed +([\d.]+) sec")))))
    fresh = M + "arm64-fresh-clone-2026-12-05.txt"
    add_duration(r, "arm64.fresh_clone.vmtest_wall", fresh, 0)
    add_duration(r, "arm64.fresh_clone.test_wall", fresh, 1)
    r.add("arm64.fresh_clone.suites_s", fresh,
          lambda: str(round(float(r.file(fresh).grab(r"Total Test time \(real\) = +([\d.]+) sec")))))
    for day, path in (("2026_12_03", M + "vmtest-arm64-2026-12-03.txt"), ("2026_12_05", M + "vmtest-arm64-2026-12-05.txt"),
                      ("2026_12_05_failed", M + "vmtest-arm64-2026-12-05-cpu-identity-failed.txt")):
        add_seconds(r, f"arm64.vmtest_{day}.wall_s", path)
        r.grab(f"arm64.vmtest_{day}.run_all_s", path, r"^vmlab: \d+ passed, \d+ failed, wall time (\d+) s")
        r.add(f"arm64.vmtest_{day}.guests", path,
              lambda path=path: str(len(r.file(path).grab_all(r"^vmlab: (PASS|FAIL) ", 1))))
    cold, warm = M + "package-arm64-cold-2026-12-05.txt", M + "package-arm64-warm-2026-12-05.txt"
    add_duration(r, "arm64.package_cold.wall", cold)
    add_seconds(r, "arm64.package_warm.wall_s", warm)
    r.grab("arm64.package_warm.cache_hits", warm, r"^ccache: Hits: +(\d+) /")
    r.grab("arm64.package_warm.cache_misses", warm, r"^ccache: Misses: +(\d+) /")
