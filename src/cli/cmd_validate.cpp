// `ecocompute validate FILE...`: checks reports against the schema (ours or the original's) and
// the consistency rules; exit 0 when every file is valid, 1 when any is not. Standard output has
// one verdict per file (or the JSON); each problem is an error line on standard error.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/import.h"
#include "cli/commands.h"
#include "core/diagnostic.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_depth.h"
#include "report/consistency.h"
#include "report/validate.h"

namespace ec::cli {
namespace {

struct FileVerdict {
  std::string file;
  bool measurement = false;
  std::vector<std::string> failures;
  std::string hint;  // printed after the failures; not one of them
};

FileVerdict check_file(const std::string& file, bool original) {
  FileVerdict verdict{file, false, {}, {}};
  nlohmann::json report;
  try {
    report = parse_json_nested_at_most(
        read_file_at_most(input_path(file), analysis::kMaxReportBytes, "report"), file);
  } catch (const nlohmann::json::exception& e) {  // bad syntax, or a number beyond double
    verdict.failures.push_back(fmt::format("{}: not valid JSON: {}", file, e.what()));
    return verdict;
  } catch (const Error& e) {
    verdict.failures.push_back(e.what());  // read_file names the file and the OS reason
    return verdict;
  }
  const auto result = original ? report::validate_against_original(report, file)
                               : report::validate_report(report, file);
  verdict.failures = result.failures;
  verdict.measurement = report::is_measurement(report);
  if (!original && !verdict.failures.empty() && report.is_object() &&
      !report.contains("report_format") && report.contains("schema_version")) {
    verdict.hint =
        "no report_format: this looks like an original EcoCompute report; check it with --original";
  }
  return verdict;
}

}  // namespace

void add_validate_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> files;
    bool original = false;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "validate", "Check energy.json reports against the schema and the consistency rules");
  cmd->add_option("files", options->files, "Report files (energy.json; - reads standard input)")
      ->required();
  cmd->add_flag("--original", options->original,
                "Validate against the original EcoCompute schema 1.1 instead of ours");
  cmd->add_flag("--json", options->json, "Print one JSON object with a verdict per file");
  cmd->callback([options] {
    std::vector<FileVerdict> verdicts;
    for (const auto& file : options->files) verdicts.push_back(check_file(file, options->original));

    bool all_valid = true;
    // The problems, in the error form every command uses (they name the file and the field); the
    // verdicts below stay on standard output, where a script reads them.
    for (const auto& v : verdicts) {
      for (const auto& f : v.failures) print_error(f);
      if (!v.failures.empty() && !v.hint.empty()) print_note(fmt::format("{}: {}", v.file, v.hint));
    }
    if (options->json) {
      nlohmann::json out = {{"schema", options->original ? "original-1.1" : "ecocompute"},
                            {"files", nlohmann::json::array()}};
      for (const auto& v : verdicts) {
        out["files"].push_back({{"file", v.file},
                                {"valid", v.failures.empty()},
                                {"measurement", v.measurement},
                                {"failures", v.failures}});
        if (!v.hint.empty()) out["files"].back()["hint"] = v.hint;
        all_valid = all_valid && v.failures.empty();
      }
      fmt::print("{}\n", out.dump(2));
    } else {
      for (const auto& v : verdicts) {
        if (v.failures.empty()) {
          fmt::print("OK      {}{}\n", v.file, v.measurement ? "" : " (not a measurement)");
          continue;
        }
        all_valid = false;
        fmt::print("FAILED  {} ({} problem{}, on standard error)\n", v.file, v.failures.size(),
                   v.failures.size() == 1 ? "" : "s");
      }
    }
    if (!all_valid) throw ExitStatus{1};
  });
}

}  // namespace ec::cli
