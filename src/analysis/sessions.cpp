// summarize_sessions, sessions_table and resolve_session.
#include "analysis/sessions.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "core/error.h"

namespace ec::analysis {

std::vector<SessionSummary> summarize_sessions(std::span<const store::RunRow> rows) {
  std::map<std::string, SessionSummary> by_name;
  for (const auto& r : rows) {
    SessionSummary& s = by_name[r.session];
    s.session = r.session;
    ++s.runs;
    if (r.is_measured()) ++s.measured;
    if (!r.timestamp_utc.empty()) {
      // ISO 8601 UTC timestamps order as text.
      if (s.first_utc.empty() || r.timestamp_utc < s.first_utc) s.first_utc = r.timestamp_utc;
      if (s.last_utc.empty() || r.timestamp_utc > s.last_utc) s.last_utc = r.timestamp_utc;
    }
    if (!r.gpu.empty()) s.gpus.insert(r.gpu);
    if (!r.model.empty()) s.models.insert(r.model);
    if (!r.precision.empty()) s.precisions.insert(r.precision);
  }
  std::vector<SessionSummary> out;
  for (auto& [name, s] : by_name) out.push_back(std::move(s));
  return out;
}

Table sessions_table(std::span<const SessionSummary> sessions) {
  Table t;
  t.name = "sessions";
  t.columns = {"session",  "runs", "measured", "first_utc",
               "last_utc", "gpus", "models",   "precisions"};
  for (const auto& s : sessions) {
    t.rows.push_back({s.session, static_cast<int64_t>(s.runs), static_cast<int64_t>(s.measured),
                      s.first_utc, s.last_utc, fmt::format("{}", fmt::join(s.gpus, ", ")),
                      fmt::format("{}", fmt::join(s.models, ", ")),
                      fmt::format("{}", fmt::join(s.precisions, ", "))});
  }
  return t;
}

std::optional<std::string> resolve_session(std::span<const store::RunRow> rows,
                                           std::string_view name) {
  std::set<std::string> matches;
  for (const auto& r : rows) {
    if (r.session == name) return r.session;
    if (!name.empty() && r.session.starts_with(name)) matches.insert(r.session);
  }
  if (matches.empty()) return std::nullopt;
  if (matches.size() > 1) {
    fail_usage("session prefix '{}' is ambiguous: {}", name, fmt::join(matches, ", "));
  }
  return *matches.begin();
}

}  // namespace ec::analysis
