#!/usr/bin/env bash
# Builds bench/meter/meter_probe as a standalone binary for the GPU machine: only libc, libdl,
# libpthread and libm stay dynamic (NVML is dlopen'd there). Usage: bench/meter/build.sh [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/build/h-meter/probe}"
mkdir -p "$out"
g++ -std=c++20 -O2 -Wall -Wextra -Werror -DFMT_HEADER_ONLY -I"$root/src" \
  "$root/bench/meter/meter_probe.cpp" "$root"/src/meter/*.cpp "$root/src/core/file_io.cpp" \
  -static-libstdc++ -static-libgcc -ldl -pthread -o "$out/meter_probe"
ldd "$out/meter_probe" || true
