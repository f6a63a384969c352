// energy.json → RunRow, read through the original's field names (schema 1.0/1.1) so our reports,
// a strict superset, read the same way; our engine/build/meter blocks join the version stack.
// Parsed with JsonDoc (one flat array per report) rather than a nlohmann DOM: 100,000 reports.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>

#include "analysis/import.h"
#include "analysis/row_checks.h"
#include "core/error.h"
#include "report/validate.h"
#include "store/json_doc.h"

namespace ec::analysis {
namespace {

using store::JsonDoc;
using store::JsonSyntaxError;
using Ref = JsonDoc::Ref;

class ReportReader {
 public:
  ReportReader(const JsonDoc& doc, const std::filesystem::path& path) : doc_(doc), path_(path) {}

  const JsonDoc& doc() const { return doc_; }

  // The node at a dotted path, or 0 when any step is absent or null.
  Ref find(std::string_view dotted) const {
    Ref node = doc_.root();
    while (!dotted.empty()) {
      const size_t dot = dotted.find('.');
      node = doc_.member(node, dotted.substr(0, dot));
      if (node == 0) return 0;
      dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
    }
    return doc_.type(node) == JsonDoc::Type::null ? 0 : node;
  }

  [[noreturn]] void wrong_type(std::string_view field, std::string_view expected, Ref got) const {
    // Only scalars are echoed, as JSON text, cut to 40 bytes.
    const JsonDoc::Type t = doc_.type(got);
    const bool structured = t == JsonDoc::Type::array || t == JsonDoc::Type::object;
    fail("{}: field '{}': expected {}, got {} {}", path_.string(), field, expected,
         doc_.type_name(got), structured ? std::string() : scalar_json(got).substr(0, 40));
  }

  std::optional<double> number(std::string_view field) const {
    const Ref v = find(field);
    if (!v) return std::nullopt;
    if (!doc_.is_number(v)) wrong_type(field, "a number", v);
    const double d = doc_.number(v);
    if (!std::isfinite(d)) fail("{}: field '{}': not a finite number", path_.string(), field);
    // SQLite stores a whole REAL as an integer, so −0.0 would come back as 0.0: store 0.0 always.
    return d == 0.0 ? 0.0 : d;
  }

  std::optional<int64_t> integer(std::string_view field) const {
    const Ref v = find(field);
    if (!v) return std::nullopt;
    switch (doc_.type(v)) {
      case JsonDoc::Type::integer:
        return doc_.integer(v);
      case JsonDoc::Type::unsigned_integer:
        // Above 2^63 − 1 it does not fit the stored type; it is no count anyone measured.
        if (doc_.unsigned_integer(v) <= static_cast<uint64_t>(INT64_MAX)) {
          return static_cast<int64_t>(doc_.unsigned_integer(v));
        }
        break;
      case JsonDoc::Type::real: {
        const double d = doc_.real(v);
        // Whole and inside int64 (2^63 itself is not: the cast would be undefined).
        if (std::isfinite(d) && d == std::floor(d) && d >= -9.2233720368547758e18 &&
            d < 9.2233720368547758e18) {
          return static_cast<int64_t>(d);
        }
        break;
      }
      default:
        break;
    }
    wrong_type(field, "an integer", v);
  }

  std::string text(std::string_view field) const {
    const Ref v = find(field);
    if (!v) return {};
    if (doc_.type(v) != JsonDoc::Type::string) wrong_type(field, "a string", v);
    return std::string(doc_.string(v));
  }

  std::string required_text(std::string_view field) const {
    std::string s = text(field);
    if (s.empty()) fail("{}: missing required field '{}'", path_.string(), field);
    return s;
  }

  Ref object(std::string_view field) const {
    const Ref v = find(field);
    if (v && doc_.type(v) != JsonDoc::Type::object) wrong_type(field, "an object", v);
    return v;
  }

  // A scalar as JSON text (what nlohmann's dump() writes).
  std::string scalar_json(Ref v) const {
    switch (doc_.type(v)) {
      case JsonDoc::Type::null:
        return "null";
      case JsonDoc::Type::boolean:
        return doc_.boolean(v) ? "true" : "false";
      case JsonDoc::Type::integer:
        return std::to_string(doc_.integer(v));
      case JsonDoc::Type::unsigned_integer:
        return std::to_string(doc_.unsigned_integer(v));
      case JsonDoc::Type::real:
        return nlohmann::json(doc_.real(v)).dump();
      case JsonDoc::Type::string:
        return nlohmann::json(std::string(doc_.string(v))).dump();
      default:
        return {};
    }
  }

  // Version text the way the original's CSV writes it (Python's str(): True/False for booleans).
  std::optional<std::string> scalar_text(Ref v) const {
    switch (doc_.type(v)) {
      case JsonDoc::Type::string:
        return std::string(doc_.string(v));
      case JsonDoc::Type::boolean:
        return std::string(doc_.boolean(v) ? "True" : "False");
      case JsonDoc::Type::integer:
      case JsonDoc::Type::unsigned_integer:
      case JsonDoc::Type::real:
        return scalar_json(v);
      default:
        return std::nullopt;
    }
  }

  // Scalars of one of our blocks (and of its nested objects, one level down) as "prefix.key", in
  // key order.
  void add_block_versions(Ref block, std::string_view prefix,
                          std::map<std::string, std::string>& out,
                          std::string_view skip = {}) const {
    if (!block) return;
    for (const auto& [key, value] : doc_.members(block)) {
      if (key == skip) continue;
      if (auto s = scalar_text(value)) {
        out[fmt::format("{}.{}", prefix, key)] = std::move(*s);
      } else if (doc_.type(value) == JsonDoc::Type::object) {
        for (const auto& [key2, value2] : doc_.members(value)) {
          if (auto s2 = scalar_text(value2)) out[fmt::format("{}.{}.{}", prefix, key, key2)] = *s2;
        }
      }
    }
  }

 private:
  const JsonDoc& doc_;
  const std::filesystem::path& path_;
};

constexpr std::string_view kBases[] = {"measured", "interpolated", "extrapolated", "unavailable"};

JsonDoc parse_json(std::string_view text, const std::filesystem::path& path) {
  try {
    return JsonDoc::parse(text);
  } catch (const JsonSyntaxError& e) {
    const size_t at = std::min(e.offset(), text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    if (e.offset() >= text.size()) {
      fail("{}: not valid JSON: the text ends early (truncated file?) at line {}", path.string(),
           line);
    }
    const size_t col = at - (at == 0 ? 0 : text.rfind('\n', at - 1) + 1) + 1;
    const std::string_view here = text.substr(at, 9);
    if (here.starts_with("NaN") || here.starts_with("Infinity") || here.starts_with("-Infinity")) {
      fail("{}: not valid JSON: line {}, column {}: NaN/Infinity is not a JSON number",
           path.string(), line, col);
    }
    fail("{}: not valid JSON: line {}, column {}: {}", path.string(), line, col, e.what());
  } catch (const std::out_of_range& e) {  // a number too large for a double
    fail("{}: not usable JSON: {}", path.string(), e.what());
  }
}

}  // namespace

std::string utc_day(std::string_view timestamp) {
  if (timestamp.size() < 10 || timestamp[4] != '-' || timestamp[7] != '-') return {};
  return std::string(timestamp.substr(0, 10));
}

// What identifies a run (when, where, what, and what was measured), for reports without a run id.
std::string content_identity(const store::RunRow& row) {
  std::string identity;
  for (const char* name :
       {"timestamp_utc", "gpu", "gpu_arch", "model", "params_b", "precision", "weight_format",
        "batch_size", "basis", "energy_j_per_1k_tok", "fp16_energy_j_per_1k_tok",
        "vs_fp16_energy_pct", "total_energy_j", "throughput_tok_s", "avg_power_w", "perplexity"}) {
    const store::Value v = store::find_run_field(name)->get(row);
    identity += name;
    identity += '=';
    if (auto* t = std::get_if<std::string>(&v)) identity += *t;
    if (auto* d = std::get_if<double>(&v)) identity += fmt::format("{}", *d);
    if (auto* i = std::get_if<int64_t>(&v)) identity += std::to_string(*i);
    identity += '\x1f';
  }
  return identity;
}

store::RunRow read_report(std::string_view text, const std::filesystem::path& path) {
  if (text.size() > kMaxReportBytes) {
    fail("{}: {} bytes, more than the limit of {} bytes for an energy.json report", path.string(),
         text.size(), kMaxReportBytes);
  }
  const JsonDoc doc = parse_json(text, path);
  if (doc.type(doc.root()) != JsonDoc::Type::object) {
    fail("{}: expected a JSON object at the top level", path.string());
  }
  const ReportReader in(doc, path);
  in.required_text("schema_version");
  if (!in.object("results")) fail("{}: missing required object 'results'", path.string());

  store::RunRow row;
  row.source_path = path.string();
  const Ref engine = in.object("engine");
  const Ref build = in.object("build");
  const Ref meter = in.object("meter");
  row.source_format = engine || build || meter ? "ecocompute-report" : "original-report";

  row.run_id = in.text("run_id");
  if (row.run_id.empty()) row.run_id = in.text("run.id");
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
    // Ours only; the ranges are row checks, so a CSV carrying these columns is held to them too.
    row.mean_kl_vs_fp16 = in.number("quality.mean_kl_vs_fp16");
    row.top1_agreement_vs_fp16 = in.number("quality.top1_agreement_vs_fp16");
    row.quality_tokens_evaluated = in.integer("quality.tokens_evaluated");
    row.quality_seq_len = in.integer("quality.seq_len");
    row.quality_corpus_sha256 = in.text("quality.corpus.sha256");
  }
  row.n_trials = 1;  // one report is one run

  if (const Ref sw = in.object("software")) {
    for (const char* key : {"python", "torch_cuda", "nvidia_driver", "matches_reference_pins"}) {
      if (const Ref v = doc.member(sw, key)) {
        if (auto s = in.scalar_text(v)) row.versions[key] = std::move(*s);
      }
    }
    if (const Ref packages = in.object("software.packages")) {
      for (const auto& [key, value] : doc.members(packages)) {
        if (auto s = in.scalar_text(value)) row.versions[std::string(key)] = std::move(*s);
      }
    }
  }
  in.add_block_versions(build, "ecocompute", row.versions);
  in.add_block_versions(engine, "engine", row.versions, "weight_format");
  if (meter) {
    // Only how energy was obtained belongs to the version stack, not per-run readings.
    for (const char* key : {"method", "source", "backend", "kind"}) {
      if (const Ref v = doc.member(meter, key)) {
        if (auto s = in.scalar_text(v)) row.versions[std::string("meter.") + key] = std::move(*s);
      }
    }
  }
  refuse_unless_valid(text, path, row);
  return row;
}

void refuse_unless_valid(std::string_view text, const std::filesystem::path& path,
                         const store::RunRow& row) {
  std::vector<std::string> failures;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", path.string(), e.what());
  }
  // Ours carry report_format; the original's are held to its schema 1.1. Either way the same
  // consistency checks as `validate`.
  const report::ValidationResult checked =
      doc.contains("report_format") ? report::validate_report(doc, path.string())
                                    : report::validate_against_original(doc, path.string());
  // The validators start each failure with the file name, given once below.
  const std::string prefix = path.string() + ": ";
  for (const auto& f : checked.failures) {
    failures.push_back(f.starts_with(prefix) ? f.substr(prefix.size()) : f);
  }
  for (const auto& f : row_check_failures(row)) failures.push_back(f);
  if (failures.empty()) return;
  // Each failure names the field; the first few are enough to act on.
  constexpr size_t kShown = 4;
  std::string why;
  for (size_t i = 0; i < failures.size() && i < kShown; ++i) {
    why += (i ? "; " : "") + failures[i];
  }
  if (failures.size() > kShown) why += fmt::format("; and {} more", failures.size() - kShown);
  fail("{}: rejected, not stored: {}", path.string(), why);
}

}  // namespace ec::analysis
