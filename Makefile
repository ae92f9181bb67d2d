# Thin wrapper around CMake; see README.md.
BUILD      ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
# Runs of each method in `make bench`'s side-by-side `run` comparison (the stored figure: 10).
RUN_ADAPTIVE_RUNS ?= 3
# Each library and test binary compiled as a few large translation units: the headers every file
# includes (nlohmann/json, Boost, Eigen) are parsed once a batch instead of once a file, which
# halves the compile (613 against 325 CPU seconds for the test build, measured 2026-12-01). A
# name defined twice in one library collides there, as it should: one fact, one owner.
UNITY      ?= ON
PREFIX     ?= /usr/local
DESTDIR    ?=
# The test and sanitizer builds of `make test` compile through ccache (Debian's, installed with
# the test packages) into a cache outside the checkout, so a CI run on a clean clone reuses what
# the last run on this machine compiled; a machine without a cache compiles everything, only
# slower. CCACHE_BASEDIR makes the checkout's paths relative, so a clone in another folder hits
# too, and CCACHE_NOHASHDIR keeps the working directory out of the key of the sanitizer build's
# objects (their line tables then name the folder that filled the cache). CCACHE=0 turns it off.
CCACHE     ?= 1
CCACHE_DIR ?= $(if $(filter 0,$(shell id -u)),/var/cache/hugetune-ccache,$(HOME)/.cache/hugetune-ccache)
export CCACHE_DIR
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_MAXSIZE ?= 2G
# Evaluated when a recipe runs, after test-deps installed ccache; empty clears an earlier one.
LAUNCHER    = -DCMAKE_CXX_COMPILER_LAUNCHER=$(if $(filter 1,$(CCACHE)),$(if $(shell command -v ccache),ccache))

# Debian's python3 first on PATH for every recipe (tests/debian-python/README.md): the tests,
# the boot lab, the figures and the benchmarks use the interpreter whose modules TEST_PKGS
# installs, not a shim that happens to come first.
export PATH := $(CURDIR)/tests/debian-python:$(PATH)

BUILD_PKGS = cmake make g++ pkg-config libboost-program-options-dev libeigen3-dev \
             nlohmann-json3-dev libhwloc-dev doctest-dev libsoci-dev libsqlite3-dev libpq-dev
TEST_PKGS  = python3 python3-jsonschema gnuplot-nox util-linux procps clang-format man-db strace \
             groff-base systemd postgresql postgresql-client ccache json-schema-test-suite \
             busybox-static python3-yaml ansible-core prometheus
# make package: CPack's dependencies from the shared libraries come from dpkg-shlibdeps;
# make test-package: lintian checks the package, and bash-completion, which the package
# recommends, loads its completion; make rpm: rpmbuild (Debian's rpm) builds the RHEL family's
# package, and make test-package: rpmlint checks it and rpm installs it into a scratch root.
PACKAGE_PKGS = dpkg-dev binutils lintian bash-completion rpm rpmlint
FUZZ_PKGS  = clang libclang-rt-14-dev
VM_PKGS    = qemu-system-x86 busybox-static cpio apt binutils python3 kexec-tools e2fsprogs xz-utils \
             postgresql postgresql-client
# The Debian lab (tests/vm/README.md "A real Debian system"): mmdebstrap builds the disk image,
# sfdisk partitions it, mkfs.ext4 and losetup/mount fill it; busybox-static and cpio make the
# KVM probe's initramfs, python3 reads the boot records off the disk.
VM_DEBIAN_PKGS = qemu-system-x86 mmdebstrap fdisk e2fsprogs util-linux mount busybox-static cpio \
                 python3
# The arm64 boot lab (tests/vm/README.md "arm64"): the arm64 emulator; the guest's busybox comes
# from the archive beside its kernel (tests/vm/fetch-kernel.sh), the cross binutils and qemu-user
# (which resolves the binary's arm64 libraries) with ARM64_PKGS.
VM_ARM64_PKGS = qemu-system-arm cpio apt python3 xz-utils
# The arm64 cross build (README "arm64"): Debian's cross compilers and the arm64 libraries
# through multiarch, beside the host's (scripts/install-deps adds the arm64 architecture to dpkg
# first). libpq-dev:arm64 cannot be installed beside the host's libpq-dev, so the arm64 build
# links libpq5:arm64 with the host's headers (cmake/toolchain-aarch64-linux-gnu.cmake). The
# header-only libraries (Eigen, nlohmann-json, doctest) are the host's BUILD_PKGS.
ARM64_BUILD ?= build-arm64
ARM64_PKGS = crossbuild-essential-arm64 qemu-user libboost-program-options-dev:arm64 \
             libhwloc-dev:arm64 libsoci-dev:arm64 libsqlite3-dev:arm64 libpq5:arm64

.PHONY: all deps test-deps build install run figures test test-build test-shipped test-plain test-package package rpm test-asan ccache-stats ccache-zero bench fuzz vmtest vmtest-debian vmtest-accuracy cross-arm64 test-arm64 vmtest-arm64 package-arm64 format format-check clean

all: build

deps:
	@scripts/install-deps $(BUILD_PKGS)

test-deps:
	@scripts/install-deps $(BUILD_PKGS) $(TEST_PKGS) $(PACKAGE_PKGS)

# The binary and what `make install` takes with it (man pages, completion, changelog: the target
# installable, cmake/Install.cmake); the tests are built by `make test`, in their own directory.
build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=$(UNITY) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target installable

# The binary, man pages, completion, systemd unit, schemas and docs under $(PREFIX); DESTDIR
# stages them elsewhere (`make install DESTDIR=/tmp/stage`).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD)

run: build
	$(BUILD)/hugetune run

# Every figure the documents state, written again from the stored outputs it comes from
# (docs/figures/README.md): after storing an output, run this instead of typing a number. The
# binary re-predicts the boot lab's stored sweeps with today's model; the test `figures` fails
# where a document and the stored files differ.
figures: build
	python3 docs/figures/figures.py --write --hugetune $(BUILD)/hugetune

# Each test runs once: the unit suites and the CLI scripts on the sanitizer build (test-asan),
# and on the Release build only what tests the shipped binary itself (test-shipped, the label
# shipped in tests/CMakeLists.txt) and its package (test-package).
test: test-deps format-check test-shipped test-package test-asan

# The build users get (Release, -O3), with warnings as errors: some warnings appear only with
# -O3's inlining, so this is the build that must stay clean. The product is built without unity,
# as packagers build it (dh_cmake, a spec file), so a missing include fails here; its own
# directory, so `make build` (warnings not errors) and `make test` do not rebuild each other's
# objects. It builds the product and the shipped tests' programs only (the target
# shipped_tests: the allocator's, the model's and fleet's trials, built from the few sources that
# hold one, and the fleet generator, a unity build);
# installing, as cpack does, needs no more (CMAKE_SKIP_INSTALL_ALL_DEPENDENCY). It also compiles
# alone each header that no source of the same name proves by including it first
# (HUGETUNE_HEADER_CHECK, cmake/HeaderCheck.cmake).
SHIPPED_UNITY ?= OFF
test-build: test-deps
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Release -DHUGETUNE_WERROR=ON -DHUGETUNE_HEADER_CHECK=ON -DCMAKE_UNITY_BUILD=$(SHIPPED_UNITY) -DHUGETUNE_TEST_UNITY=ON -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON $(LAUNCHER) $(CMAKE_ARGS) >/dev/null
	cmake --build $(TEST_BUILD) -j $(JOBS) --target shipped_tests

test-shipped: test-build
	cd $(TEST_BUILD) && ctest --output-on-failure -j $(JOBS) -L shipped

# Every test on the Release build, for a change whose behaviour may differ at -O3: builds the
# unit suites and helpers there too. Not part of `make test`.
test-plain: test-build
	cmake --build $(TEST_BUILD) -j $(JOBS)
	cd $(TEST_BUILD) && ctest --output-on-failure -j $(JOBS)

# The Debian package, from the Release build `make test` makes (no build of its own), into
# $(TEST_BUILD)/package/.
package: test-build
	rm -f $(TEST_BUILD)/package/*.deb
	cd $(TEST_BUILD) && cpack -G DEB
	@ls -l $(TEST_BUILD)/package/*.deb

# The RHEL family's package (packaging/rpm/hugetune.spec.in, which CMake writes into
# $(TEST_BUILD)/rpm/hugetune.spec) by Debian's rpmbuild, from the same Release tree as the .deb
# (hugetune_build_dir: no build of its own), into $(TEST_BUILD)/rpm/RPMS/. _topdir keeps
# rpmbuild's work in the build tree instead of ~/rpmbuild; --nodeps, because rpmbuild looks for
# the spec's BuildRequires (the RHEL family's package names) in an RPM database, and here the
# Debian packages of BUILD_PKGS provide them. Debian's /usr/lib/rpm/brp-compress (rpm
# 4.18.0+dfsg-1+deb12u1) is a #!/bin/sh script that uses bash's `read -d`: under Debian's dash it
# prints "Illegal option -d" and compresses nothing. It is left out, as the build compresses the
# man pages itself (cmake/Generated.cmake).
RPM_TOPDIR = $(abspath $(TEST_BUILD))/rpm
rpm: test-build
	rm -rf $(RPM_TOPDIR)/RPMS $(RPM_TOPDIR)/BUILDROOT $(RPM_TOPDIR)/BUILD
	rpmbuild -bb --nodeps --quiet --define '_topdir $(RPM_TOPDIR)' --define '__brp_compress %{nil}' \
		--define 'hugetune_build_dir $(abspath $(TEST_BUILD))' $(TEST_BUILD)/rpm/hugetune.spec
	@ls -l $(RPM_TOPDIR)/RPMS/*/hugetune-*.rpm

# lintian on the package, failing on any error, warning or information tag
# (tests/package/lintian.sh); then installs the package into this machine with dpkg -i, checks
# it and removes it with dpkg -r (tests/package/deb.sh). The install only as root: otherwise it
# says SKIPPED and why. Then the RPM: rpmlint, its files against the .deb's, and an install and
# erase in a scratch root (tests/package/rpm.sh), which leaves this machine alone. Both fit in
# make test: on the 2-CPU machine under a load of 10, make rpm took 26 s with its check that the
# Release tree is built, and the RPM's test 5 s (docs/measurements/rpm-package-2026-12-06.txt);
# make test-package, both packages, 85 s (docs/measurements/test-package-2026-12-06.txt).
test-package: package rpm
	tests/package/lintian.sh $(TEST_BUILD)/package/hugetune_*.deb
	@status=0; HUGETUNE_PACKAGE_TEST=1 tests/package/deb.sh $(TEST_BUILD)/package/hugetune_*.deb || status=$$?; \
	if [ $$status -eq 77 ]; then echo "test-package: SKIPPED (the reason is above)"; else exit $$status; fi
	tests/package/rpm.sh $(TEST_BUILD)/rpm/hugetune.spec $(RPM_TOPDIR)/RPMS/*/hugetune-*.rpm $(TEST_BUILD)/package/hugetune_*.deb

# The unit suites and the CLI scripts under AddressSanitizer and UBSan (Debug, unity), less the
# label shipped, which the Release build runs.
# Allocation stacks in a report 8 frames deep, not 30: a fleet trial under the sanitizers took
# 1.08 times as long with 30 (docs/measurements/asan-costs-2026-12-06.txt).
ASAN_TEST_OPTIONS ?= malloc_context_size=8
# Sixteen sources a batch there, not CMake's eight: at -O0 parsing the heavy headers is most of
# a batch's compile, so fewer batches compile faster, and there are still enough to keep every
# CPU busy. With UBSan's three checks left out and the header check moved to the Release tree,
# the tree's cold compile went from 711 s to 270 s (README "Building and testing"; the batch
# size not measured apart).
ASAN_UNITY_BATCH ?= 16
test-asan: test-deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHUGETUNE_SANITIZE=ON -DHUGETUNE_WERROR=ON -DCMAKE_UNITY_BUILD=$(UNITY) -DCMAKE_UNITY_BUILD_BATCH_SIZE=$(ASAN_UNITY_BATCH) $(LAUNCHER) $(CMAKE_ARGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=$(ASAN_TEST_OPTIONS) ctest --output-on-failure -j $(JOBS) -LE shipped

# What the compiler cache gave since ccache-zero (.ci/run prints it): hits and misses.
ccache-stats:
	@if command -v ccache >/dev/null; then ccache --show-stats | grep -E '^ *(Hits|Misses):' | sed 's/^ */ccache: /'; fi
ccache-zero:
	@if command -v ccache >/dev/null; then ccache --zero-stats >/dev/null; fi

bench: build
	cmake --build $(BUILD) -j $(JOBS) --target benchmarks >/dev/null
	@for b in $(BUILD)/tests/bench_*; do echo "== $$b"; $$b || exit 1; done
	@echo "== fleet database"; bash tests/bench/fleet.sh $(BUILD)/hugetune . $(BUILD)/tests/gen-fleet \
	|| test $$? -eq 77
	@echo "== boot records at fleet size"; bash tests/bench/fleet_boots.sh $(BUILD)/hugetune . \
	$(BUILD)/tests/gen-fleet $(BUILD)/tests/boot-tally || test $$? -eq 77
	@echo "== verify's log reader"; bash tests/bench/verify_log.sh $(BUILD)/hugetune .
	@echo "== run: the adaptive rule against --repetitions 5 ($(RUN_ADAPTIVE_RUNS) runs each)"; \
	bash tests/bench/run_adaptive.sh $(BUILD)/hugetune $(RUN_ADAPTIVE_RUNS) || test $$? -eq 77

# The fuzzers (scripts/run-fuzzers), after the --root race (tests/cli/root_race.sh) for two
# minutes instead of the suite's few seconds, on the binary `make test` builds. Not in .ci/run.
fuzz: test-build
	ROOT_RACE_SECONDS=120 bash tests/cli/root_race.sh $(TEST_BUILD)/hugetune $(CURDIR)
	@scripts/install-deps $(BUILD_PKGS) $(FUZZ_PKGS)
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DHUGETUNE_FUZZ=ON -DHUGETUNE_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
	scripts/run-fuzzers build-fuzz

# Boots Debian unstable's kernel under QEMU with hugetune in the initramfs (tests/vm/README.md),
# on the binary `make test` built. When the kernel cannot be fetched or QEMU is
# missing the lab exits 77, which fails this target unless VMTEST_ALLOW_SKIP=1 (then it says
# SKIPPED and why).
vmtest: test-build
	@scripts/install-deps $(VM_PKGS)
	@status=0; tests/vm/run-all.sh $(TEST_BUILD)/hugetune || status=$$?; \
	if [ $$status -eq 77 ] && [ "$(VMTEST_ALLOW_SKIP)" = 1 ]; then \
		echo "vmtest: SKIPPED: the boot lab cannot run on this machine (the reason is above)"; \
	else exit $$status; fi

# The whole flow on a real Debian 12 system booted through its own GRUB (tests/vm/README.md "A
# real Debian system"): minutes under the emulator, so not part of vmtest or .ci/run. Exits as
# vmtest does (77, a skip, fails it unless VMTEST_ALLOW_SKIP=1).
vmtest-debian: package
	@scripts/install-deps $(VM_DEBIAN_PKGS)
	@status=0; tests/vm/debian/run.sh $(TEST_BUILD)/package/hugetune_*.deb $(VMTEST_DEBIAN_VARIANTS) || status=$$?; \
	if [ $$status -eq 77 ] && [ "$(VMTEST_ALLOW_SKIP)" = 1 ]; then \
		echo "vmtest-debian: SKIPPED: the Debian lab cannot run on this machine (the reason is above)"; \
	else exit $$status; fi

# The prediction against real boots (tests/vm/README.md "Accuracy"); long, not part of vmtest.
vmtest-accuracy: test-build
	@scripts/install-deps $(VM_PKGS)
	tests/vm/accuracy.sh $(TEST_BUILD)/hugetune

# hugetune for arm64 (aarch64) and what its package takes with it (the target installable: the
# man pages and completion come from running the arm64 binary under qemu-user), cross-built into
# $(ARM64_BUILD)/; not the unit suites, which test-arm64 builds, so that the package and its
# checks (package-arm64, which .ci/run runs) compile the binary's code only. Installing the
# package needs what it holds, not everything the build directory defines
# (CMAKE_SKIP_INSTALL_ALL_DEPENDENCY), or cpack would build the unit suites first.
cross-arm64:
	@scripts/install-deps $(BUILD_PKGS) $(ARM64_PKGS)
	cmake -S . -B $(ARM64_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release -DHUGETUNE_WERROR=ON -DCMAKE_UNITY_BUILD=$(UNITY) -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON $(LAUNCHER) $(CMAKE_ARGS) >/dev/null
	cmake --build $(ARM64_BUILD) -j $(JOBS) --target installable
	@file $(ARM64_BUILD)/hugetune

# Every unit suite of the arm64 build under qemu-user (the toolchain file's emulator): the target
# unit_suites builds them and the label unit selects them, both defined in tests/CMakeLists.txt.
test-arm64: cross-arm64
	cmake --build $(ARM64_BUILD) -j $(JOBS) --target unit_suites
	@status=0; cd $(ARM64_BUILD) && ctest --output-on-failure -j $(JOBS) -L '^unit$$' || status=$$?; \
	suites=$$(ctest -N -L '^unit$$' | sed -n 's/^ *Test *#[0-9]*: *//p'); \
	echo "test-arm64: $$(echo $$suites | wc -w) unit suites of $(ARM64_BUILD) under qemu-aarch64," \
	"$$( [ $$status -eq 0 ] && echo passed || echo FAILED): "$$suites; exit $$status

# The Debian package for arm64 by the same CPack rules (cmake/Package.cmake), from the cross build,
# into $(ARM64_BUILD)/package/; lintian checks it as it checks the amd64 package
# (tests/package/lintian.sh) and tests/package/arm64.sh with dpkg-deb. .ci/run runs it, so a
# change that breaks the arm64 build or its package does not land unseen.
package-arm64: cross-arm64
	@scripts/install-deps $(PACKAGE_PKGS)
	rm -f $(ARM64_BUILD)/package/*.deb
	cd $(ARM64_BUILD) && cpack -G DEB
	tests/package/lintian.sh $(ARM64_BUILD)/package/hugetune_*_arm64.deb
	tests/package/arm64.sh $(ARM64_BUILD)/package/hugetune_*_arm64.deb

# The boot lab's arm64 cases (tests/vm/README.md "arm64") on the cross-built binary: Debian sid's
# cloud-arm64 kernel under qemu-system-aarch64, emulated on an x86-64 host; the package_arm64 case
# runs the package in a guest. Exits as vmtest does (77, a skip, fails it unless
# VMTEST_ALLOW_SKIP=1). Not in .ci/run, which checks the arm64 build and package only
# (package-arm64): run it before each release.
vmtest-arm64: package-arm64
	@scripts/install-deps $(VM_ARM64_PKGS)
	@status=0; tests/vm/run-all.sh $(ARM64_BUILD)/hugetune || status=$$?; \
	if [ $$status -eq 77 ] && [ "$(VMTEST_ALLOW_SKIP)" = 1 ]; then \
		echo "vmtest-arm64: SKIPPED: the boot lab cannot run on this machine (the reason is above)"; \
	else exit $$status; fi

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD) $(ARM64_BUILD) build-fuzz
