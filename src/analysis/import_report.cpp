// energy.json → RunRow, read through the original's field names (schema 1.0/1.1) so our reports,
// a strict superset, read the same way; our engine/build/meter blocks join the version stack.
#include <nlohmann/json.hpp>

#include <cmath>

#include "analysis/import.h"
#include "core/error.h"
#include "core/sha256.h"

namespace ec::analysis {
namespace {

using nlohmann::json;

class ReportReader {
 public:
  ReportReader(const json& root, const std::filesystem::path& path) : root_(root), path_(path) {}

  // The value at a dotted path, or nullptr when any step is absent or null.
  const json* find(std::string_view dotted) const {
    const json* node = &root_;
    while (!dotted.empty()) {
      const size_t dot = dotted.find('.');
      const std::string key(dotted.substr(0, dot));
      if (!node->is_object()) return nullptr;
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
      dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
    }
    return node->is_null() ? nullptr : node;
  }

  [[noreturn]] void wrong_type(std::string_view field, std::string_view expected,
                               const json& got) const {
    // Only scalars are echoed: dumping a deeply nested value would recurse once per level.
    fail("{}: field '{}': expected {}, got {} {}", path_.string(), field, expected, got.type_name(),
         got.is_structured() ? std::string() : got.dump().substr(0, 40));
  }

  std::optional<double> number(std::string_view field) const {
    const json* v = find(field);
    if (!v) return std::nullopt;
    if (!v->is_number()) wrong_type(field, "a number", *v);
    const double d = v->get<double>();
    if (!std::isfinite(d)) fail("{}: field '{}': not a finite number", path_.string(), field);
    return d;
  }

  std::optional<int64_t> integer(std::string_view field) const {
    const json* v = find(field);
    if (!v) return std::nullopt;
    if (v->is_number_integer()) return v->get<int64_t>();
    if (v->is_number_float()) {
      const double d = v->get<double>();
      if (std::isfinite(d) && d == std::floor(d)) return static_cast<int64_t>(d);
    }
    wrong_type(field, "an integer", *v);
  }

  std::string text(std::string_view field) const {
    const json* v = find(field);
    if (!v) return {};
    if (!v->is_string()) wrong_type(field, "a string", *v);
    return v->get<std::string>();
  }

  std::string required_text(std::string_view field) const {
    std::string s = text(field);
    if (s.empty()) fail("{}: missing required field '{}'", path_.string(), field);
    return s;
  }

  const json* object(std::string_view field) const {
    const json* v = find(field);
    if (v && !v->is_object()) wrong_type(field, "an object", *v);
    return v;
  }

 private:
  const json& root_;
  const std::filesystem::path& path_;
};

// Version text the way the original's CSV writes it (Python's str(): True/False for booleans).
std::optional<std::string> scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "True" : "False");
  if (v.is_number()) return v.dump();
  return std::nullopt;
}

// Scalars of one of our blocks (and of its nested objects, one level down) as "prefix.key".
void add_block_versions(const json* block, std::string_view prefix,
                        std::map<std::string, std::string>& out, std::string_view skip = {}) {
  if (!block) return;
  for (auto it = block->begin(); it != block->end(); ++it) {
    if (it.key() == skip) continue;
    if (auto s = scalar_text(it.value())) {
      out[fmt::format("{}.{}", prefix, it.key())] = *s;
    } else if (it.value().is_object()) {
      for (auto jt = it.value().begin(); jt != it.value().end(); ++jt) {
        if (auto s2 = scalar_text(jt.value())) {
          out[fmt::format("{}.{}.{}", prefix, it.key(), jt.key())] = *s2;
        }
      }
    }
  }
}

constexpr std::string_view kBases[] = {"measured", "interpolated", "extrapolated", "unavailable"};

json parse_json(std::string_view text, const std::filesystem::path& path) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    size_t line = 1;
    size_t col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    if (e.byte >= text.size()) {
      fail("{}: not valid JSON: the text ends early (truncated file?) at line {}", path.string(),
           line);
    }
    const std::string_view at = text.substr(e.byte > 0 ? e.byte - 1 : 0, 9);
    if (at.starts_with("NaN") || at.starts_with("Infinity") || at.starts_with("-Infinity")) {
      fail("{}: not valid JSON: line {}, column {}: NaN/Infinity is not a JSON number",
           path.string(), line, col);
    }
    fail("{}: not valid JSON: line {}, column {}: {}", path.string(), line, col, e.what());
  } catch (const json::exception& e) {  // e.g. a number too large for a double
    fail("{}: not usable JSON: {}", path.string(), e.what());
  }
}

}  // namespace

store::RunRow import_report(std::string_view text, const std::filesystem::path& path) {
  const json root = parse_json(text, path);
  if (!root.is_object()) fail("{}: expected a JSON object at the top level", path.string());
  const ReportReader in(root, path);
  in.required_text("schema_version");
  if (!in.object("results")) fail("{}: missing required object 'results'", path.string());

  store::RunRow row;
  row.source_path = path.string();
  const json* engine = in.object("engine");
  const json* build = in.object("build");
  const json* meter = in.object("meter");
  row.source_format = engine || build || meter ? "ecocompute-report" : "original-report";

  row.run_id = in.text("run_id");
  if (row.run_id.empty()) row.run_id = in.text("run.id");
  // The original's reports carry no id: the content hash makes re-ingesting the same file a no-op.
  if (row.run_id.empty()) row.run_id = "sha256:" + sha256_hex(text).substr(0, 16);
  row.timestamp_utc = in.text("timestamp_utc");
  row.session = in.text("session");
  if (row.session.empty()) row.session = utc_day(row.timestamp_utc);
  row.replicate = in.integer("replicate");

  row.gpu = in.required_text("system_under_test.gpu");
  row.gpu_arch = in.text("system_under_test.gpu_arch");
  row.model = in.required_text("workload.model_name");
  row.params_b = in.number("workload.params_b");
  row.precision = in.required_text("workload.precision");
  row.batch_size = in.integer("workload.batch_size");
  row.context_length = in.integer("workload.context_length");
  row.weight_format = in.text("engine.weight_format");
  row.quantization_backend = in.text("workload.quantization_backend");
  if (row.quantization_backend.empty() && engine) row.quantization_backend = "ecocompute";

  row.generated_tokens_per_iter = in.integer("measurement.tokens_per_run");
  row.decode_iterations = in.integer("measurement.iterations");
  row.warmup = in.integer("measurement.warmup");
  row.sampling_rate_hz = in.integer("measurement.sample_rate_hz");
  row.measurement_source = in.text("measurement_source");

  row.basis = in.required_text("results.basis");
  if (std::find(std::begin(kBases), std::end(kBases), row.basis) == std::end(kBases)) {
    fail(
        "{}: field 'results.basis': expected measured/interpolated/extrapolated/unavailable, got "
        "'{}'",
        path.string(), row.basis);
  }
  row.energy_j_per_1k_tok = in.number("results.energy_per_token_mj");
  row.fp16_energy_j_per_1k_tok = in.number("results.fp16_energy_per_token_mj");
  row.vs_fp16_energy_pct = in.number("results.vs_fp16_energy_pct");
  row.throughput_tok_s = in.number("results.throughput_tokens_per_s");
  row.avg_power_w = in.number("results.avg_power_watts");
  row.total_energy_j = in.number("results.total_energy_joules");
  if (row.is_measured() && !row.energy_j_per_1k_tok) {
    fail("{}: basis is 'measured' but 'results.energy_per_token_mj' is missing", path.string());
  }

  if (in.object("quality")) {
    row.perplexity = in.number("quality.value");
    row.fp16_perplexity = in.number("quality.fp16_value");
    row.delta_perplexity_pct = in.number("quality.delta_vs_fp16_pct");
    row.quality_tokens_evaluated = in.integer("quality.tokens_evaluated");
    row.quality_seq_len = in.integer("quality.seq_len");
    row.quality_corpus_sha256 = in.text("quality.corpus.sha256");
  }
  row.n_trials = 1;  // one report is one run

  if (const json* sw = in.object("software")) {
    for (const char* key : {"python", "torch_cuda", "nvidia_driver", "matches_reference_pins"}) {
      auto it = sw->find(key);
      if (it != sw->end()) {
        if (auto s = scalar_text(*it)) row.versions[key] = *s;
      }
    }
    if (const json* packages = in.object("software.packages")) {
      for (auto it = packages->begin(); it != packages->end(); ++it) {
        if (auto s = scalar_text(it.value())) row.versions[it.key()] = *s;
      }
    }
  }
  add_block_versions(build, "ecocompute", row.versions);
  add_block_versions(engine, "engine", row.versions, "weight_format");
  if (meter) {
    // Only how energy was obtained belongs to the version stack, not per-run readings.
    for (const char* key : {"method", "source", "backend", "kind"}) {
      auto it = meter->find(key);
      if (it != meter->end()) {
        if (auto s = scalar_text(*it)) row.versions[std::string("meter.") + key] = *s;
      }
    }
  }
  return row;
}

}  // namespace ec::analysis
