// load_curves: the user's curves.json, or the published curves built into the binary.
#include "cli/curves_source.h"

#include <nlohmann/json.hpp>

#include "core/embedded.h"
#include "core/file_io.h"

namespace ec::cli {

analysis::CurveSet load_curves(const std::string& path) {
  if (path.empty()) {
    return analysis::curves_from_json(
        nlohmann::json::parse(embedded::published_curves(), nullptr, false),
        "<built-in published curves: data/curves/published-curves.json>");
  }
  return analysis::curves_from_json(nlohmann::json::parse(read_file(path), nullptr, false), path);
}

}  // namespace ec::cli
