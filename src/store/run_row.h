// RunRow: one run (one energy measurement) normalised from any input format, and the table of its
// fields that the store, the CSV writer and the printers share.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace ec::store {

// One cell: absent, text, real or integer. Absent is never written as 0.
using Value = std::variant<std::monostate, std::string, double, int64_t>;

struct RunRow {
  std::string run_id;
  std::string source_path;
  std::string source_format;  // "published-csv", "original-report", "ecocompute-report"
  std::string session;        // groups runs measured together (the CSV's `session`, or the UTC day)
  std::string timestamp_utc;
  std::optional<int64_t> replicate;

  std::string gpu;
  std::string gpu_arch;
  std::string model;
  std::optional<double> params_b;
  std::string precision;      // FP16 / INT8 / NF4, as the original names it
  std::string weight_format;  // ours: int8-llm, int8-wo, nf4, ...; empty in the original's data
  std::string quantization_backend;
  std::optional<int64_t> batch_size;
  std::optional<int64_t> context_length;
  std::optional<int64_t> generated_tokens_per_iter;
  std::optional<int64_t> decode_iterations;
  std::optional<int64_t> warmup;
  std::optional<int64_t> sampling_rate_hz;

  std::optional<double> energy_j_per_1k_tok;
  std::optional<double> fp16_energy_j_per_1k_tok;
  std::optional<double> vs_fp16_energy_pct;
  std::optional<double> throughput_tok_s;
  std::optional<double> avg_power_w;
  std::optional<double> total_energy_j;

  std::optional<double> perplexity;
  std::optional<double> fp16_perplexity;
  std::optional<double> delta_perplexity_pct;
  std::optional<double> mean_kl_vs_fp16;  // nats, ≥ 0: KL(P_fp16 ‖ P_this) per scored token
  std::optional<double> top1_agreement_vs_fp16;  // 0..1: positions whose argmax equals FP16's
  std::optional<int64_t> quality_tokens_evaluated;
  std::optional<int64_t> quality_seq_len;
  std::string quality_corpus_sha256;

  std::string basis;  // measured / interpolated / extrapolated / unavailable
  std::string measurement_source;
  std::optional<int64_t> n_trials;

  // The version stack: the original's columns (torch, transformers, bitsandbytes, nvidia_driver,
  // ...) plus ours (ecocompute.*, engine.*, meter.*). Two sessions compare only when these agree.
  std::map<std::string, std::string> versions;

  // The one measurement rule (report/measurement_rule.h) on basis and measurement_source: what
  // every statistic, fit, chart and regression check admits.
  bool is_measured() const { return why_not_measured().empty(); }
  // A run without an energy meter (report::is_run_without_energy): its throughput and quality
  // count, its energy never does.
  bool is_run_without_energy() const;
  // Why this run is kept but never used as a measurement; empty when it is one.
  std::string why_not_measured() const;
};

enum class FieldKind { text, real, integer };

// A named field of RunRow. `version` fields live in RunRow::versions under the same name.
// `since_schema`: the store schema version that added its column (store.h migrates older files).
struct RunField {
  std::string_view name;
  FieldKind kind;
  bool version;
  Value (*get)(const RunRow&);
  void (*set)(RunRow&, const Value&);
  int since_schema = 1;
};

// Every field, in the published CSV's column order first (`replicate` right after `timestamp_utc`),
// then ours (source_path, source_format, weight_format, mean_kl_vs_fp16, top1_agreement_vs_fp16).
std::span<const RunField> run_fields();

// The published CSV layout's columns; `with_replicate` gives the repeats file's layout.
std::span<const std::string_view> published_columns(bool with_replicate);

const RunField* find_run_field(std::string_view name);

}  // namespace ec::store
