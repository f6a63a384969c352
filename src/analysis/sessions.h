// Sessions in a set of runs: what each holds (runs, measured runs, when, which GPUs, models and
// precisions), and the session a unique prefix names.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/table.h"
#include "store/run_row.h"

namespace ec::analysis {

struct SessionSummary {
  std::string session;
  size_t runs = 0;
  size_t measured = 0;    // runs with basis measured
  std::string first_utc;  // earliest timestamp_utc ("" when none is recorded)
  std::string last_utc;   // latest
  std::set<std::string> gpus, models, precisions;
};

// One summary per session, sorted by name.
std::vector<SessionSummary> summarize_sessions(std::span<const store::RunRow> rows);

Table sessions_table(std::span<const SessionSummary> sessions);

// The session `name` names among `rows`: the session of exactly that name, else the only one that
// starts with it; nullopt when none does. Throws ec::UsageError listing the candidates when several
// start with it.
std::optional<std::string> resolve_session(std::span<const store::RunRow> rows,
                                           std::string_view name);

}  // namespace ec::analysis
