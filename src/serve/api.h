// The JSON API behind `ecocompute serve`: GET /v1/estimate and GET /v1/curves, as plain functions
// of the query so they are tested without a socket. Inputs are validated strictly; every refusal
// is a 4xx with {"error": "...", "parameter": "..."}.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/fit.h"

namespace ec::serve {

struct ApiResponse {
  int status = 200;
  nlohmann::json body;
};

using QueryParams = std::multimap<std::string, std::string>;

// Largest model size the API accepts, in billions: beyond it the curve is meaningless.
inline constexpr double kMaxParamsB = 100000.0;

ApiResponse api_error(int status, std::string message, std::string parameter = {});

// params_b (0 < N ≤ kMaxParamsB), arch (a class with a curve, or one that borrows), precision
// (case-insensitive; a precision with a curve for that class). Unknown or repeated parameters are
// refused. The body has the same fields as `ecocompute estimate --format json`.
ApiResponse estimate_request(const std::optional<analysis::CurveSet>& curves,
                             const QueryParams& params);

// The curves in curves.json layout, or 503 when the server has none.
ApiResponse curves_request(const std::optional<analysis::CurveSet>& curves);

}  // namespace ec::serve
