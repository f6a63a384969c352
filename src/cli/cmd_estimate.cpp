// `ecocompute estimate`: should I quantize? ΔE% vs FP16 with its 95 % range, basis, confidence,
// recommendation and notes, for a size, class, precision, batch and context, or a free-text
// question; the same fields and answer as GET /v1/estimate.
#include <nlohmann/json.hpp>

#include "analysis/estimate.h"
#include "api/api.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "cli/curves_source.h"
#include "core/error.h"

namespace ec::cli {

void add_estimate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "estimate", "Should I quantize? dE% vs FP16 (95% range, basis, confidence) from the curves");
  struct Options {
    std::string params_b, arch, precision, batch, ctx, query, curves, compat;
    analysis_cli::CommonOptions common;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--params-b", o->params_b, "Model size in billions of parameters");
  cmd->add_option("--arch", o->arch,
                  "GPU architecture (turing, ampere, ada, hopper, blackwell) or GPU name (rtx4090, "
                  "a100, h200), in any case");
  cmd->add_option("--precision", o->precision, "NF4 (default) or INT8, any case");
  cmd->add_option("--batch", o->batch, "Batch size (default 1; above 1 the answer is modelled)");
  cmd->add_option("--ctx", o->ctx,
                  "Context length (default 2048; above it the answer is modelled)");
  cmd->add_option("-q,--query", o->query,
                  "A question in words, e.g. '13B on A100 int8 batch 32 ctx 8k' (replaces the "
                  "other fields)");
  cmd->add_option("--compat", o->compat,
                  "'original': read '32k tokens' as the original does (docs/api.md)");
  cmd->add_option(
      "--curves", o->curves,
      "curves.json written by `ecocompute fit` (default: the published curves, built in)");
  cmd->add_option("--format", o->common.format, "Output: md, csv, json, jsonl or sql");
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    const auto curves = load_curves(o->curves);
    nlohmann::json fields = nlohmann::json::object();
    auto set = [&](const char* name, const std::string& v) {
      if (!v.empty()) fields[name] = v;
    };
    set("params_b", o->params_b);
    set("arch", o->arch);
    set("precision", o->precision);
    set("batch", o->batch);
    set("ctx", o->ctx);
    set("q", o->query);
    set("compat", o->compat);
    const api::ApiResponse r = api::estimate_fields(curves, fields, {});
    if (r.status != 200) {
      std::string name = r.body.value("parameter", "");
      if (name == "params_b") name = "params-b";
      fail("{}{}", r.body["error"].get<std::string>(),
           name.empty() ? "" : " (--" + (name == "q" ? std::string("query") : name) + ")");
    }
    if (format == analysis::OutputFormat::json) {
      fmt::print("{}\n", r.body.dump(2));
      return;
    }
    // The table holds the same numbers: read back from the answer so nothing is computed twice.
    analysis::EstimateInput in;
    in.params_b = r.body["input"]["params_b"].get<double>();
    in.arch = r.body["input"]["arch"].get<std::string>();
    in.precision = r.body["input"]["precision"].get<std::string>();
    in.batch = r.body["input"]["batch"].get<double>();
    in.ctx = r.body["input"]["ctx"].get<double>();
    analysis_cli::print(analysis::estimate_table(analysis::estimate(curves, in)), format);
  });
}

}  // namespace ec::cli
