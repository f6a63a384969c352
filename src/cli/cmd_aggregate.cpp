// `ecocompute aggregate [PATH…]`: per-configuration n, mean, SD, CV and 95 % t-intervals.
#include "analysis/aggregate.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"

namespace ec::cli {
namespace {

// The terminal table: the columns a person reads first; machine formats get every column.
analysis::Table brief_table(const analysis::AggregateResult& r) {
  analysis::Table t;
  t.name = "aggregate";
  t.columns = {"session",      "gpu",           "model", "precision", "n",
               "ΔE vs FP16 %", "± 95 %",        "SD",    "CV %",      "J/1k tok",
               "CV %",         "FP16 J/1k tok", "tok/s", "W",         "KL vs FP16",
               "top-1",        "ppl identical"};
  // NaN (no run gave the metric) prints as an empty cell.
  auto mean = [](const analysis::MetricSummary& m) { return m.n == 0 ? NAN : m.mean; };
  for (const auto& s : r.configs) {
    std::string precision = s.key.precision;
    if (!s.key.weight_format.empty()) precision += "/" + s.key.weight_format;
    store::Value identical;
    if (s.perplexity_identical) identical = std::string(*s.perplexity_identical ? "yes" : "no");
    t.rows.push_back(
        {s.key.session, s.key.gpu, s.key.model, precision, static_cast<int64_t>(s.n_trials),
         s.vs_fp16_energy_pct.mean, s.vs_fp16_energy_pct.ci95.half_width, s.vs_fp16_energy_pct.sd,
         s.vs_fp16_energy_pct.cv_pct, s.energy_j_per_1k_tok.mean, s.energy_j_per_1k_tok.cv_pct,
         s.fp16_energy_j_per_1k_tok.mean, s.throughput_tok_s.mean, s.avg_power_w.mean,
         mean(s.mean_kl_vs_fp16), mean(s.top1_agreement_vs_fp16), identical});
  }
  return t;
}

}  // namespace

void add_aggregate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "aggregate",
      "Summarise replicates per configuration: n, mean, SD (ddof=1), CV, 95 % interval");
  struct Options {
    std::vector<std::string> paths;
    analysis_cli::CommonOptions common;
    std::string session;
    std::string summary_csv;
    std::string raw_csv;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("paths", o->paths, "Reports, CSVs or directories (default: the results store)");
  analysis_cli::add_common_options(cmd, o->common);
  cmd->add_option("--session", o->session, "Session name for the runs read from PATHs");
  cmd->add_option("--summary-csv", o->summary_csv,
                  "Write the summary as the original publishes it (its columns, value formats, "
                  "CRLF): diff against a published .summary.csv is empty for the same runs");
  cmd->add_option("--raw-csv", o->raw_csv,
                  "Write the measured runs in the published CSV layout (CRLF, as published)");
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    const analysis::LoadedRuns runs = analysis_cli::load(o->paths, o->common, o->session);
    const analysis::AggregateResult result = analysis::aggregate(runs.rows);
    if (!result.left_out.empty()) {
      print_note(analysis::left_out_line(result.left_out));
    }
    if (result.without_energy > 0) {
      print_note(fmt::format(
          "{} run(s) without an energy meter (basis 'unavailable'): in throughput and quality, "
          "not in energy",
          result.without_energy));
    }
    // Before any file is written: a failed command leaves every existing file as it was.
    if (result.configs.empty()) analysis_cli::nothing_left("aggregate", runs.problems);
    if (!o->summary_csv.empty()) {
      write_file_atomic(o->summary_csv,
                        analysis::render_published_csv(analysis::summary_table(result)));
    }
    if (!o->raw_csv.empty()) {
      std::vector<store::RunRow> measured;
      for (const auto& r : runs.rows) {
        if (r.is_measured()) measured.push_back(r);
      }
      write_file_atomic(o->raw_csv, analysis::render_published_csv(analysis::raw_table(measured)));
    }
    analysis_cli::print(format == analysis::OutputFormat::md ? brief_table(result)
                                                             : analysis::aggregate_table(result),
                        format);
  });
}

}  // namespace ec::cli
