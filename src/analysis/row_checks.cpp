// Plausibility and consistency of one run's fields, shared by every importer.
#include "analysis/row_checks.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <optional>

#include "report/consistency.h"

namespace ec::analysis {
namespace {

bool digits(const std::string& s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

void positive(std::vector<std::string>& out, const char* name, const std::optional<double>& v) {
  if (v && !(*v > 0))
    out.push_back(fmt::format("field '{}': expected a positive number, got {}", name, *v));
}

void at_least(std::vector<std::string>& out, const char* name, const std::optional<int64_t>& v,
              int64_t minimum) {
  if (v && *v < minimum) {
    out.push_back(fmt::format("field '{}': expected an integer ≥ {}, got {}", name, minimum, *v));
  }
}

}  // namespace

bool is_known_precision(const std::string& precision) {
  constexpr std::array<std::string_view, 7> kKnown = {"FP16", "BF16",   "INT8", "INT8-WO",
                                                      "NF4",  "NF4-DQ", "FP8"};
  for (auto k : kKnown) {
    if (precision == k) return true;
  }
  return false;
}

bool is_iso8601(const std::string& t) {
  // YYYY-MM-DD
  if (!digits(t, 0, 4) || t.size() < 10 || t[4] != '-' || !digits(t, 5, 2) || t[7] != '-' ||
      !digits(t, 8, 2)) {
    return false;
  }
  const int month = std::stoi(t.substr(5, 2));
  const int day = std::stoi(t.substr(8, 2));
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (t.size() == 10) return true;
  // [T ]HH:MM[:SS[.fraction]]
  if ((t[10] != 'T' && t[10] != ' ') || !digits(t, 11, 2) || t.size() < 16 || t[13] != ':' ||
      !digits(t, 14, 2)) {
    return false;
  }
  if (std::stoi(t.substr(11, 2)) > 23 || std::stoi(t.substr(14, 2)) > 59) return false;
  size_t i = 16;
  if (i < t.size() && t[i] == ':') {
    if (!digits(t, i + 1, 2) || std::stoi(t.substr(i + 1, 2)) > 60) return false;
    i += 3;
    if (i < t.size() && t[i] == '.') {
      const size_t start = ++i;
      while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
      if (i == start) return false;
    }
  }
  // Z, ±HH:MM, ±HHMM or nothing (read as UTC, as the original writes it).
  if (i == t.size()) return true;
  if (t[i] == 'Z') return i + 1 == t.size();
  if (t[i] != '+' && t[i] != '-') return false;
  if (!digits(t, i + 1, 2)) return false;
  if (t.size() == i + 3) return true;
  const size_t minutes = t[i + 3] == ':' ? i + 4 : i + 3;
  return digits(t, minutes, 2) && t.size() == minutes + 2;
}

std::vector<std::string> row_check_failures(const store::RunRow& r) {
  std::vector<std::string> out;
  if (!is_known_precision(r.precision)) {
    out.push_back(fmt::format(
        "field 'precision': expected FP16, BF16, INT8, INT8-WO, NF4, NF4-DQ or FP8, got '{}'",
        r.precision));
  }
  if (!r.timestamp_utc.empty() && !is_iso8601(r.timestamp_utc)) {
    out.push_back(fmt::format(
        "field 'timestamp_utc': expected an ISO-8601 date-time such as 2026-08-19T06:05:13Z, got "
        "'{}'",
        r.timestamp_utc));
  }
  positive(out, "params_b", r.params_b);
  positive(out, "energy_j_per_1k_tok", r.energy_j_per_1k_tok);
  positive(out, "fp16_energy_j_per_1k_tok", r.fp16_energy_j_per_1k_tok);
  positive(out, "throughput_tok_s", r.throughput_tok_s);
  positive(out, "avg_power_w", r.avg_power_w);
  positive(out, "total_energy_j", r.total_energy_j);
  positive(out, "perplexity", r.perplexity);
  positive(out, "fp16_perplexity", r.fp16_perplexity);
  if (r.mean_kl_vs_fp16 && !(*r.mean_kl_vs_fp16 >= 0.0)) {
    out.push_back(
        fmt::format("field 'mean_kl_vs_fp16': expected a KL divergence ≥ 0 (nats), got {}",
                    *r.mean_kl_vs_fp16));
  }
  if (r.top1_agreement_vs_fp16 &&
      !(*r.top1_agreement_vs_fp16 >= 0.0 && *r.top1_agreement_vs_fp16 <= 1.0)) {
    out.push_back(
        fmt::format("field 'top1_agreement_vs_fp16': expected a fraction from 0 to 1, got {}",
                    *r.top1_agreement_vs_fp16));
  }
  at_least(out, "replicate", r.replicate, 1);
  at_least(out, "batch_size", r.batch_size, 1);
  at_least(out, "context_length", r.context_length, 1);
  at_least(out, "generated_tokens_per_iter", r.generated_tokens_per_iter, 1);
  at_least(out, "decode_iterations", r.decode_iterations, 1);
  at_least(out, "warmup", r.warmup, 0);
  at_least(out, "sampling_rate_hz", r.sampling_rate_hz, 0);  // 0: no meter sampled (CPU runs)
  at_least(out, "n_trials", r.n_trials, 1);
  at_least(out, "quality_tokens_evaluated", r.quality_tokens_evaluated, 1);
  at_least(out, "quality_seq_len", r.quality_seq_len, 1);
  if (r.vs_fp16_energy_pct && *r.vs_fp16_energy_pct <= -100.0) {
    out.push_back(fmt::format(
        "field 'vs_fp16_energy_pct': expected more than −100 (no run uses negative energy), got {}",
        *r.vs_fp16_energy_pct));
  }
  // The delta against its own two energies, each known only to the decimals it was written with.
  const auto& e = r.energy_j_per_1k_tok;
  const auto& f = r.fp16_energy_j_per_1k_tok;
  const auto& d = r.vs_fp16_energy_pct;
  if (e && f && d && *e > 0 && *f > 0) {
    const double expected = (*e / *f - 1.0) * 100.0;
    const double tolerance =
        report::rounding_half_unit(*d) +
        100.0 * (*e / *f) *
            (report::rounding_half_unit(*e) / *e + report::rounding_half_unit(*f) / *f) +
        1e-9 * std::fabs(expected);
    if (std::fabs(expected - *d) > tolerance) {
      out.push_back(fmt::format(
          "field 'vs_fp16_energy_pct': {} contradicts its own energies ({} / {} J per 1k tokens "
          "give {:.4f})",
          *d, *e, *f, expected));
    }
  }
  return out;
}

}  // namespace ec::analysis
