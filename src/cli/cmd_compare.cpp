// `ecocompute compare A B`: two sessions (names or unique prefixes in the store) or two report
// sets (paths).
#include <set>

#include "analysis/compare.h"
#include "analysis/sessions.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "core/error.h"

namespace ec::cli {
namespace {

// A side is a path when one exists by that name, otherwise a session in the store, named in full
// or by a unique prefix.
std::vector<store::RunRow> side(const std::string& what, const analysis_cli::CommonOptions& o) {
  if (std::filesystem::exists(what)) {
    auto rows = analysis_cli::load({what}, o).rows;
    // A side is one session: runs of several sessions would be pooled without a look at their
    // stacks (measured.csv holds one session per GPU and date).
    std::set<std::string> sessions;
    for (const auto& r : rows) {
      if (r.is_measured()) sessions.insert(r.session);
    }
    if (sessions.size() > 1) {
      std::string names;
      for (const auto& n : sessions) names += (names.empty() ? "'" : ", '") + n + "'";
      fail_usage(
          "{} holds {} sessions ({}); ingest it (`ecocompute ingest --db F {}`) and compare two "
          "of them by name",
          what, sessions.size(), names, what);
    }
    return rows;
  }
  std::vector<store::RunRow> all = analysis_cli::load({}, o).rows;
  const auto session = analysis::resolve_session(all, what);
  if (!session) {
    fail_usage(
        "'{}' is neither a file/directory nor a session (or the start of one) in the store; "
        "`ecocompute sessions` lists them",
        what);
  }
  std::vector<store::RunRow> rows;
  for (auto& r : all) {
    if (r.session == *session) rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare", "Compare two sessions: gap vs noise, Welch's t-test, drift, comparability");
  struct Options {
    std::string a, b;
    analysis_cli::CommonOptions common;
    std::vector<std::string> accept;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("A", o->a, "Session name (or a unique prefix), report file or directory")
      ->required();
  cmd->add_option("B", o->b, "Session name (or a unique prefix), report file or directory")
      ->required();
  analysis_cli::add_common_options(cmd, o->common);
  cmd->add_option("--accept-difference", o->accept,
                  "A version-stack field (e.g. python) whose difference you know does not matter: "
                  "listed as accepted instead of making the sessions incomparable")
      ->delimiter(',');
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    const auto a = side(o->a, o->common);
    const auto b = side(o->b, o->common);
    const analysis::Comparison c =
        analysis::compare_sets(a, b, std::set<std::string>(o->accept.begin(), o->accept.end()));
    analysis_cli::print(analysis::comparison_table(c), format);
    // The verdict goes to stderr so machine formats on stdout stay parseable.
    fmt::print(stderr, "version stacks: {}\n", c.stacks.verdict());
    for (const auto& [side_name, groups] :
         {std::pair{"A", &c.left_out_a}, std::pair{"B", &c.left_out_b}}) {
      if (!groups->empty())
        fmt::print(stderr, "{}: {}\n", side_name, analysis::left_out_line(*groups));
    }
    if (!c.only_a.empty() || !c.only_b.empty()) {
      fmt::print(stderr, "configurations only in A: {}, only in B: {}\n", c.only_a.size(),
                 c.only_b.size());
    }
    if (c.configs.empty()) {
      fail("compare: no configuration is in both {} (A) and {} (B) (the lines above say why)", o->a,
           o->b);
    }
  });
}

}  // namespace ec::cli
