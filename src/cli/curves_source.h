// Where `estimate` and `check-regression` get their curves: a curves.json the user names, or the
// published curves compiled into the binary.
#pragma once

#include <string>

#include "analysis/fit.h"

namespace ec::cli {

// `path` empty → the built-in published curves (data/curves/published-curves.json).
analysis::CurveSet load_curves(const std::string& path);

}  // namespace ec::cli
