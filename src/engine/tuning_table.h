// The tuning table: which decode GEMV variant runs for each (GPU, weight format, role, matrix
// shape, model), measured once by `ecocompute tune` and read at every load, so that every process
// on one kind of GPU runs the same kernels. Host code; the file layout is in docs/gpu-machine.md.
#pragma once

#include <array>
#include <compare>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quant/format.h"

namespace ec::engine {

// The GEMV roles of a decode step, in the order a kernel_variant string lists them.
inline constexpr std::array<std::string_view, 5> kDecodeRoles = {"qkv", "o", "gu", "down", "head"};

// One GEMV of a decode step: the engine's weight format (an NF4 engine's lm_head stays fp16 but is
// keyed under nf4, since it was timed in that engine's chain), its role and its shape.
struct TuningKey {
  quant::Format format = quant::Format::fp16;
  std::string role;  // one of kDecodeRoles
  int rows = 0;      // outputs (q|k|v together; gate_up: the intermediate size)
  int cols = 0;      // input features
  auto operator<=>(const TuningKey&) const = default;
};

struct TuningEntry {
  TuningKey key;
  std::string variant;  // a GEMV variant without "+pdl" (PDL is the engine's), e.g. "r2p-dbuf-u2"
  std::string model;    // the model whose decode steps chose it
  double step_us = 0;   // that model's decode step with the chosen set, µs
};

struct TuningTable {
  std::string gpu_name;  // as the driver names it (cudaDeviceProp::name), e.g. "NVIDIA H200"
  int cc_major = 0;      // compute capability
  int cc_minor = 0;
  std::string tool;                  // the ecocompute that measured it (free text)
  std::vector<TuningEntry> entries;  // sorted by key, then model; one per (key, model)
  // Where it was read from (a path, or "shipped:<file>"), and the SHA-256 of its bytes: what a
  // report records, so two reports say whether their kernels came from the same table.
  std::string name;
  std::string sha256;

  // The entry for `key` that `model` runs: its own where the table has one, else the entry of that
  // shape measured for another model (the first by model name), else nullptr. Models that share a
  // shape (Qwen2.5-3B's q|k|v and o are TinyLlama's) keep their own choices: a tune of one does
  // not change the other's kernels.
  const TuningEntry* find(const TuningKey& key, std::string_view model) const;
  // Adds `more`, replacing entries of the same key and model (a later tune of the same model and
  // shape wins); another model's entry of the same shape stays.
  void merge(std::vector<TuningEntry> more);
  bool for_gpu(std::string_view gpu, int major, int minor) const {
    return gpu == gpu_name && major == cc_major && minor == cc_minor;
  }
};

// Parses the JSON text of a table; ec::Error naming `source`, the field and what was expected.
// name and sha256 are set from `source` and the text.
TuningTable parse_tuning_table(std::string_view text, std::string_view source);
// The table as JSON, entries in key order (what write_tuning_table writes).
std::string tuning_table_json(const TuningTable& table);
TuningTable read_tuning_table(const std::filesystem::path& path);
// Writes atomically; returns the table as written (with its name and sha256).
TuningTable write_tuning_table(const std::filesystem::path& path, TuningTable table);

// The tables compiled into this binary (data/tuning/*.json), in file name order.
std::span<const TuningTable> shipped_tuning_tables();
// The first table of `tables` for this GPU, or nullptr.
const TuningTable* find_table_for_gpu(std::span<const TuningTable> tables, std::string_view gpu,
                                      int major, int minor);

// The file name a table for this GPU ships under: "nvidia-h200-cc9.0.json".
std::string tuning_table_file_name(std::string_view gpu, int major, int minor);

}  // namespace ec::engine
