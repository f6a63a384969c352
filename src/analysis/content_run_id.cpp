// A report's run id when it carries none (the original's never do): a hash of the fields that
// identify the run, so the same report re-serialised (compact, reindented, keys reordered) stays
// one run; and import_report(), which fills it in.
#include "analysis/import.h"
#include "core/sha256.h"

namespace ec::analysis {

std::string content_run_id(const store::RunRow& row) {
  return "content:" + sha256_hex(content_identity(row)).substr(0, 16);
}

store::RunRow import_report(std::string_view text, const std::filesystem::path& path) {
  store::RunRow row = read_report(text, path);
  if (row.run_id.empty()) row.run_id = content_run_id(row);
  return row;
}

}  // namespace ec::analysis
