// The RunRow field table: one list drives the CSV layout, the SQLite columns and the printers.
#include "store/run_row.h"

#include <array>
#include <type_traits>

#include "report/measurement_rule.h"

namespace ec::store {
namespace {

template <auto Member>
Value get_member(const RunRow& row) {
  const auto& v = row.*Member;
  using T = std::remove_cvref_t<decltype(v)>;
  if constexpr (std::is_same_v<T, std::string>) {
    return v.empty() ? Value{} : Value{v};
  } else {
    return v ? Value{*v} : Value{};
  }
}

template <auto Member>
void set_member(RunRow& row, const Value& value) {
  auto& v = row.*Member;
  using T = std::remove_cvref_t<decltype(v)>;
  if constexpr (std::is_same_v<T, std::string>) {
    v = std::holds_alternative<std::string>(value) ? std::get<std::string>(value) : std::string{};
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    if (auto* d = std::get_if<double>(&value)) {
      v = *d;
    } else if (auto* i = std::get_if<int64_t>(&value)) {
      v = static_cast<double>(*i);
    } else {
      v.reset();
    }
  } else {
    if (auto* i = std::get_if<int64_t>(&value)) {
      v = *i;
    } else {
      v.reset();
    }
  }
}

template <auto Member>
constexpr FieldKind kind_of() {
  using T = std::remove_cvref_t<decltype(std::declval<RunRow>().*Member)>;
  if constexpr (std::is_same_v<T, std::string>) return FieldKind::text;
  if constexpr (std::is_same_v<T, std::optional<double>>) return FieldKind::real;
  return FieldKind::integer;
}

template <auto Member>
constexpr RunField field(std::string_view name, int since_schema = 1) {
  return {name, kind_of<Member>(), false, &get_member<Member>, &set_member<Member>, since_schema};
}

// Version fields are looked up by name in RunRow::versions; the name is captured by a template
// parameter because the table holds plain function pointers.
template <const std::string_view& Name>
Value get_version(const RunRow& row) {
  auto it = row.versions.find(std::string(Name));
  return it == row.versions.end() ? Value{} : Value{it->second};
}
template <const std::string_view& Name>
void set_version(RunRow& row, const Value& value) {
  if (auto* s = std::get_if<std::string>(&value)) {
    row.versions[std::string(Name)] = *s;
  } else {
    row.versions.erase(std::string(Name));
  }
}
template <const std::string_view& Name>
constexpr RunField version_field() {
  return {Name, FieldKind::text, true, &get_version<Name>, &set_version<Name>};
}

constexpr std::string_view kTorch = "torch";
constexpr std::string_view kTorchCuda = "torch_cuda";
constexpr std::string_view kTransformers = "transformers";
constexpr std::string_view kBitsandbytes = "bitsandbytes";
constexpr std::string_view kAccelerate = "accelerate";
constexpr std::string_view kDriver = "nvidia_driver";
constexpr std::string_view kPython = "python";
constexpr std::string_view kPins = "matches_reference_pins";

const std::array kFields = {
    field<&RunRow::run_id>("run_id"),
    field<&RunRow::timestamp_utc>("timestamp_utc"),
    field<&RunRow::replicate>("replicate"),
    field<&RunRow::gpu>("gpu"),
    field<&RunRow::gpu_arch>("gpu_arch"),
    field<&RunRow::model>("model"),
    field<&RunRow::params_b>("params_b"),
    field<&RunRow::precision>("precision"),
    field<&RunRow::quantization_backend>("quantization_backend"),
    field<&RunRow::batch_size>("batch_size"),
    field<&RunRow::context_length>("context_length"),
    field<&RunRow::generated_tokens_per_iter>("generated_tokens_per_iter"),
    field<&RunRow::decode_iterations>("decode_iterations"),
    field<&RunRow::warmup>("warmup"),
    field<&RunRow::sampling_rate_hz>("sampling_rate_hz"),
    field<&RunRow::energy_j_per_1k_tok>("energy_j_per_1k_tok"),
    field<&RunRow::fp16_energy_j_per_1k_tok>("fp16_energy_j_per_1k_tok"),
    field<&RunRow::vs_fp16_energy_pct>("vs_fp16_energy_pct"),
    field<&RunRow::throughput_tok_s>("throughput_tok_s"),
    field<&RunRow::avg_power_w>("avg_power_w"),
    field<&RunRow::total_energy_j>("total_energy_j"),
    field<&RunRow::perplexity>("perplexity"),
    field<&RunRow::fp16_perplexity>("fp16_perplexity"),
    field<&RunRow::delta_perplexity_pct>("delta_perplexity_pct"),
    field<&RunRow::quality_tokens_evaluated>("quality_tokens_evaluated"),
    field<&RunRow::quality_seq_len>("quality_seq_len"),
    field<&RunRow::quality_corpus_sha256>("quality_corpus_sha256"),
    field<&RunRow::basis>("basis"),
    field<&RunRow::measurement_source>("measurement_source"),
    field<&RunRow::n_trials>("n_trials"),
    version_field<kTorch>(),
    version_field<kTorchCuda>(),
    version_field<kTransformers>(),
    version_field<kBitsandbytes>(),
    version_field<kAccelerate>(),
    version_field<kDriver>(),
    version_field<kPython>(),
    version_field<kPins>(),
    field<&RunRow::session>("session"),
    field<&RunRow::source_path>("source_path"),
    field<&RunRow::source_format>("source_format"),
    field<&RunRow::weight_format>("weight_format"),
    // Not in the published layout: the original's quality is perplexity alone.
    field<&RunRow::mean_kl_vs_fp16>("mean_kl_vs_fp16", 2),
    field<&RunRow::top1_agreement_vs_fp16>("top1_agreement_vs_fp16", 2),
};

constexpr std::array<std::string_view, 39> kPublishedRepeats = {
    "run_id",
    "timestamp_utc",
    "replicate",
    "gpu",
    "gpu_arch",
    "model",
    "params_b",
    "precision",
    "quantization_backend",
    "batch_size",
    "context_length",
    "generated_tokens_per_iter",
    "decode_iterations",
    "warmup",
    "sampling_rate_hz",
    "energy_j_per_1k_tok",
    "fp16_energy_j_per_1k_tok",
    "vs_fp16_energy_pct",
    "throughput_tok_s",
    "avg_power_w",
    "total_energy_j",
    "perplexity",
    "fp16_perplexity",
    "delta_perplexity_pct",
    "quality_tokens_evaluated",
    "quality_seq_len",
    "quality_corpus_sha256",
    "basis",
    "measurement_source",
    "n_trials",
    "torch",
    "torch_cuda",
    "transformers",
    "bitsandbytes",
    "accelerate",
    "nvidia_driver",
    "python",
    "matches_reference_pins",
    "session",
};

const std::array<std::string_view, 38> kPublished = [] {
  std::array<std::string_view, 38> out{};
  size_t j = 0;
  for (auto name : kPublishedRepeats) {
    if (name != "replicate") out[j++] = name;
  }
  return out;
}();

}  // namespace

bool RunRow::is_run_without_energy() const {
  return report::is_run_without_energy(basis);
}

std::string RunRow::why_not_measured() const {
  return report::why_not_a_measurement(basis, measurement_source);
}

std::span<const RunField> run_fields() {
  return kFields;
}

std::span<const std::string_view> published_columns(bool with_replicate) {
  if (with_replicate) return kPublishedRepeats;
  return kPublished;
}

const RunField* find_run_field(std::string_view name) {
  for (const auto& f : kFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace ec::store
