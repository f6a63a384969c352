// The fit input layout (the original's measured.csv) → RunRow: each row is one configuration with
// its n, measured in a session named from its provenance (GPU and the date its note gives), so the
// published anchors can be aggregated and compared like any other session.
#include <array>

#include "analysis/import.h"
#include "analysis/row_checks.h"
#include "core/error.h"
#include "core/sha256.h"

namespace ec::analysis {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// "2026-08-06" or "July 2026" from a note, else "".
std::string date_in(std::string_view note) {
  for (size_t i = 0; i + 10 <= note.size(); ++i) {
    const std::string_view s = note.substr(i, 10);
    if (is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) && s[4] == '-' &&
        is_digit(s[5]) && is_digit(s[6]) && s[7] == '-' && is_digit(s[8]) && is_digit(s[9])) {
      return std::string(s);
    }
  }
  static constexpr std::array<std::string_view, 12> kMonths = {
      "January", "February", "March",     "April",   "May",      "June",
      "July",    "August",   "September", "October", "November", "December"};
  for (auto month : kMonths) {
    for (size_t at = note.find(month); at != std::string_view::npos;
         at = note.find(month, at + 1)) {
      const size_t year = at + month.size() + 1;
      if (year + 4 <= note.size() && note[year - 1] == ' ' && is_digit(note[year]) &&
          is_digit(note[year + 1]) && is_digit(note[year + 2]) && is_digit(note[year + 3])) {
        return fmt::format("{} {}", month, note.substr(year, 4));
      }
    }
  }
  return {};
}

}  // namespace

std::string fit_input_session(const std::string& gpu, std::string_view note,
                              const std::string& file_name) {
  const std::string date = date_in(note);
  return fmt::format("{}{}{} ({})", gpu, date.empty() ? "" : " ", date, file_name);
}

std::vector<store::RunRow> import_fit_input_csv(const CsvTable& table,
                                                std::vector<std::string>& problems) {
  const size_t c_gpu = table.require_column("gpu");
  const size_t c_arch = table.require_column("arch");
  const size_t c_model = table.require_column("model");
  const size_t c_n = table.require_column("params_b");
  const size_t c_prec = table.require_column("precision");
  const size_t c_fp16 = table.require_column("energy_fp16_j1k");
  const size_t c_quant = table.require_column("energy_quant_j1k");
  const auto c_trials = table.column("n_trials");
  const auto c_note = table.column("note");
  const std::string file_name = table.path().filename().string();
  std::vector<store::RunRow> rows;
  for (size_t r = 0; r < table.row_count(); ++r) {
    try {
      store::RunRow row;
      row.gpu = table.text(r, c_gpu);
      row.gpu_arch = table.text(r, c_arch);
      row.model = table.text(r, c_model);
      row.params_b = table.required_number(r, c_n);
      row.precision = table.text(r, c_prec);
      row.fp16_energy_j_per_1k_tok = table.required_number(r, c_fp16);
      row.energy_j_per_1k_tok = table.required_number(r, c_quant);
      row.n_trials = c_trials ? table.integer(r, *c_trials).value_or(1) : 1;
      const std::string note = c_note ? table.text(r, *c_note) : std::string();
      for (auto [name, value] : {std::pair{"gpu", &row.gpu}, std::pair{"arch", &row.gpu_arch},
                                 std::pair{"model", &row.model}}) {
        if (value->empty()) {
          fail("{}: line {}, column '{}': empty", table.path().string(), table.line(r), name);
        }
      }
      if (*row.fp16_energy_j_per_1k_tok > 0) {
        row.vs_fp16_energy_pct =
            (*row.energy_j_per_1k_tok / *row.fp16_energy_j_per_1k_tok - 1.0) * 100.0;
      }
      // The original published these rows as GPU measurements made with NVML (the file is the
      // input of its fitted curves); it records no per-row meter, so the source says where the
      // label comes from.
      row.basis = "measured";
      row.measurement_source = "nvml (as published in " + file_name + ")";
      if (const auto failures = row_check_failures(row); !failures.empty()) {
        std::string why;
        for (const auto& f : failures) why += (why.empty() ? "" : "; ") + f;
        fail("{}: line {}: rejected, not stored: {}", table.path().string(), table.line(r), why);
      }
      row.session = fit_input_session(row.gpu, note, file_name);
      std::string identity;
      for (size_t c = 0; c < table.header().size(); ++c) {
        identity += table.header()[c] + "=" + table.text(r, c) + "\x1f";
      }
      row.run_id = "fit-input:" + sha256_hex(identity).substr(0, 16);
      row.source_path = table.path().string();
      row.source_format = "fit-input-csv";
      rows.push_back(std::move(row));
    } catch (const Error& e) {
      problems.push_back(e.what());
    }
  }
  return rows;
}

}  // namespace ec::analysis
