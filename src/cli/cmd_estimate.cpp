// `ecocompute estimate --params-b N --arch A --precision P`: ΔE% with band and basis from curves.
#include <nlohmann/json.hpp>

#include "analysis/estimate.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "cli/curves_source.h"
#include "core/architecture_names.h"
#include "core/error.h"
#include "core/precision_names.h"

namespace ec::cli {

void add_estimate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("estimate",
                                 "Estimate dE% vs FP16 (band, basis, J/1k tok) from "
                                 "fitted curves");
  struct Options {
    double params_b = 0.0;
    std::string arch, precision, curves;
    analysis_cli::CommonOptions common;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--params-b", o->params_b, "Model size in billions of parameters")->required();
  cmd->add_option("--arch", o->arch,
                  "GPU architecture (turing, ampere, ada, hopper, blackwell) or GPU name "
                  "(rtx4090, a100, h200), in any case")
      ->required();
  cmd->add_option("--precision", o->precision, "INT8 or NF4, in any case")->required();
  cmd->add_option(
      "--curves", o->curves,
      "curves.json written by `ecocompute fit` (default: the published curves, built in)");
  cmd->add_option("--format", o->common.format, "Output: md, csv, json, jsonl or sql");
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    const auto curves = load_curves(o->curves);
    const std::string arch = normalize_architecture(o->arch);
    const std::string precision = normalize_precision(o->precision);
    const analysis::Estimate e = analysis::estimate(curves, o->params_b, arch, precision);
    analysis_cli::print(analysis::estimate_table(e, o->params_b, precision), format);
  });
}

}  // namespace ec::cli
