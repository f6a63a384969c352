// The JSON API behind `ecocompute serve`, as plain functions of a request so it is tested without
// a socket: GET/POST /v1/estimate (fields or free text), GET/POST /v1/optimize, GET
// /v1/architectures, GET /v1/curves, GET / (the endpoint list) and GET /openapi.json, answered as
// the original EcoCompute service answers them. Inputs are validated strictly; every refusal is a
// 4xx with {"error": "...", "status": N, "parameter": "..."} where one parameter is at fault.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/fit.h"

namespace ec::api {

struct ApiResponse {
  int status = 200;
  nlohmann::json body;  // null: no body (an OPTIONS preflight)
};

using QueryParams = std::multimap<std::string, std::string>;

struct ApiRequest {
  std::string method = "GET";
  std::string path;
  QueryParams query;
  std::string body;    // POST: a JSON object with the same fields as the query
  std::string origin;  // scheme://host[:port] the client reached, for /openapi.json's servers
};

struct ApiOptions {
  // The original's answers where they differ from ours on purpose (docs/api.md, "Compatibility"):
  // "32k tokens" read as a context of 32, and the optimizer's linear FP16 baseline. A request
  // chooses it itself with compat=original.
  bool compat_original = false;
};

// Largest model size the API accepts, in billions: beyond it the curve is meaningless.
inline constexpr double kMaxParamsB = 100000.0;
inline constexpr double kMaxBatch = 1 << 20;
inline constexpr double kMaxContext = 1 << 30;

ApiResponse api_error(int status, std::string message, std::string parameter = {});

// Routes one request to its endpoint. Paths outside the API get a 404.
ApiResponse api_request(const std::optional<analysis::CurveSet>& curves, const ApiRequest& request,
                        const ApiOptions& options = {});

// The endpoints' fields, shared with the MCP server: a JSON object of fields (numbers or numeric
// strings), answered with the estimate or optimizer body, or a 4xx.
ApiResponse estimate_fields(const analysis::CurveSet& curves, const nlohmann::json& fields,
                            const ApiOptions& options);
ApiResponse optimize_fields(const analysis::CurveSet& curves, const nlohmann::json& fields,
                            const ApiOptions& options);

// The headers the original sends on every API answer, so pages on other origins can call it.
const std::map<std::string, std::string>& cors_headers();

}  // namespace ec::api
