// load_curves: the user's curves.json, or the published curves built into the binary.
#include "cli/curves_source.h"

#include <nlohmann/json.hpp>

#include "core/embedded.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_depth.h"

namespace ec::cli {

analysis::CurveSet load_curves(const std::string& path) {
  if (path.empty()) {
    return analysis::curves_from_json(
        nlohmann::json::parse(embedded::published_curves(), nullptr, false),
        "<built-in published curves: data/curves/published-curves.json>");
  }
  // At most 16 MiB: a curves file is a few KiB.
  nlohmann::json document;
  try {
    document = parse_json_nested_at_most(read_file_at_most(path, 16u << 20, "curves file"), path);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", path, e.what());
  }
  return analysis::curves_from_json(document, path);
}

}  // namespace ec::cli
