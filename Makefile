# hplx: the commands a user types. `make run` and `make test` set everything up.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: all deps configure build run test test-sanitize fuzz-build fuzz-smoke fuzz bench format clean install

all: build

# What building and running needs (the run list of scripts/install-deps.sh);
# the targets that test add the test list (DEPS_FLAGS=--test below). Where it
# cannot install (not Debian, no root or sudo) it installs nothing, says in
# one line what it did not find, and the build goes on with what CMake finds.
DEPS_FLAGS ?=
deps:
	@bash scripts/install-deps.sh $(DEPS_FLAGS)

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Installs hplx, its examples, docs, man pages and modulefiles under PREFIX
# (docs/USAGE.md "Installing"): `make install PREFIX=/opt/hplx`.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The main job: hplx lu with its embedded default problem (about a minute).
# Builds the hplx program and the libraries it links, nothing else (not the
# test programs, benchmarks or the simulated cluster's rank program), so the
# first result comes as early as the build allows; `make build` and
# `make test` build everything. RUN_ARGS go to hplx lu (`make run
# RUN_ARGS="--n 4000"`: a shorter run).
RUN_ARGS ?=
run: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target hplx
	$(BUILD_DIR)/bin/hplx lu $(RUN_ARGS)

# Configures again with the tests required: a build/ that `make run` made
# before the test list was installed (no GoogleTest, no SimGrid) finds them.
test: DEPS_FLAGS = --test
test: configure
	cmake -S . -B $(BUILD_DIR) -DHPLX_BUILD_TESTS=on
	cmake --build $(BUILD_DIR) -j $(JOBS)
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The unit, device and MPI tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer (a second build in build-sanitize/ of the test
# programs only, without the CUDA backend); any report fails the test. CI
# runs it after `make test`. The end-to-end tests (they run the hplx
# program), the install test and the include-layering script are not rerun,
# nor the MPI tests' 3-, 4- and 8-rank runs (odd grids, 2 x 2 and
# oversubscription, which `make test` covers; the 1- and 2-rank runs stay:
# CI's 60 minutes). -O1 -g1 (ASan's advice is -O1 or more; -g1 keeps
# the file and line of each frame): the test programs compile in about
# 60% of -O2 -g's time (test_device_contract.cpp 31.6 s against 54.1).
SANITIZE_DIR ?= build-sanitize
test-sanitize: DEPS_FLAGS = --test
test-sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DHPLX_CUDA=off -DHPLX_SANITIZE=on -DHPLX_BUILD_TESTS=on
	cmake --build $(SANITIZE_DIR) -j $(JOBS) --target hplx_test_programs
	cd $(SANITIZE_DIR) && \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:fast_unwind_on_malloc=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  OMPI_MCA_mca_base_component_disable_dlclose=1 \
	  ctest --output-on-failure -j $(JOBS) -E '^(e2e_|install_|layers_)|_np[348]$$'

# libFuzzer targets of the input parsers (fuzz/, docs/TESTING.md "Fuzzing"):
# a clang build of only the parsers in build-fuzz/. fuzz-smoke runs each
# target FUZZ_SMOKE_SECONDS (CI); fuzz runs each FUZZ_SECONDS, one after
# the other. Any crash, leak, sanitizer report or timeout fails.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 30
fuzz-build: DEPS_FLAGS = --test
fuzz-build: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPLX_FUZZ=on
	cmake --build $(FUZZ_DIR) -j $(JOBS)

fuzz-smoke: fuzz-build
	bash fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SMOKE_SECONDS)

fuzz: fuzz-build
	bash fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# hplx lu against netlib HPL (Debian's hpcc) in one session: see bench/lu-vs-netlib.sh
# for the knobs (NS, NBS, GRIDS, REPS). Takes minutes; results on stdout.
bench: build
	bash bench/lu-vs-netlib.sh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD_DIR)
