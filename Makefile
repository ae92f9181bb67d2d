# Thin wrapper around CMake; see README.md.
BUILD      ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

BUILD_PKGS = cmake make g++ pkg-config libboost-program-options-dev libeigen3-dev \
             nlohmann-json3-dev libhwloc-dev doctest-dev libsoci-dev libsqlite3-dev libpq-dev
TEST_PKGS  = python3 python3-jsonschema gnuplot-nox util-linux procps clang-format \
             postgresql postgresql-client
FUZZ_PKGS  = clang libclang-rt-14-dev
VM_PKGS    = qemu-system-x86 busybox-static cpio apt binutils python3 kexec-tools e2fsprogs xz-utils

.PHONY: all deps test-deps build run test test-build test-plain test-asan bench fuzz vmtest vmtest-accuracy format format-check clean

all: build

deps:
	@scripts/install-deps $(BUILD_PKGS)

test-deps:
	@scripts/install-deps $(BUILD_PKGS) $(TEST_PKGS)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/hugetune run

test: test-deps format-check test-plain test-asan

# The build users get (Release, -O3), with warnings as errors: some warnings appear only with
# -O3's inlining, so this is the build that must stay clean. Its own directory, so `make build`
# (warnings not errors) and `make test` do not rebuild each other's objects.
test-plain: test-build
	cd $(TEST_BUILD) && ctest --output-on-failure -j $(JOBS)

test-build: test-deps
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Release -DHUGETUNE_WERROR=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(TEST_BUILD) -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHUGETUNE_SANITIZE=ON -DHUGETUNE_WERROR=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	cmake --build $(BUILD) -j $(JOBS) --target benchmarks >/dev/null
	@for b in $(BUILD)/tests/bench_*; do echo "== $$b"; $$b || exit 1; done
	@echo "== fleet database"; bash tests/bench/fleet.sh $(BUILD)/hugetune . $(BUILD)/tests/gen-fleet \
	|| test $$? -eq 77

fuzz:
	@scripts/install-deps $(BUILD_PKGS) $(FUZZ_PKGS)
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DHUGETUNE_FUZZ=ON -DHUGETUNE_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
	scripts/run-fuzzers build-fuzz

# Boots Debian unstable's kernel under QEMU with hugetune in the initramfs (tests/vm/README.md),
# on the binary `make test` built. When the kernel cannot be fetched or QEMU is missing the lab
# exits 77, which fails this target unless VMTEST_ALLOW_SKIP=1 (then it says SKIPPED and why).
vmtest: test-build
	@scripts/install-deps $(VM_PKGS)
	@status=0; tests/vm/run-all.sh $(TEST_BUILD)/hugetune || status=$$?; \
	if [ $$status -eq 77 ] && [ "$(VMTEST_ALLOW_SKIP)" = 1 ]; then \
		echo "vmtest: SKIPPED: the boot lab cannot run on this machine (the reason is above)"; \
	else exit $$status; fi

# The prediction against real boots (tests/vm/README.md "Accuracy"); long, not part of vmtest.
vmtest-accuracy: test-build
	@scripts/install-deps $(VM_PKGS)
	tests/vm/accuracy.sh $(TEST_BUILD)/hugetune

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD) build-fuzz
