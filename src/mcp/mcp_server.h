// `ecocompute mcp`: the estimator as Model Context Protocol tools over stdio (JSON-RPC 2.0, one
// message per line), with the original EcoCompute server's tools: should_i_quantize (size, class,
// precision, batch, context or a plain-English query) and list_architectures.
#pragma once

#include <iosfwd>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/fit.h"
#include "api/api.h"

namespace ec::mcp {

class McpServer {
 public:
  McpServer(analysis::CurveSet curves, api::ApiOptions options);

  // The reply to one message, or nothing for a notification.
  std::optional<nlohmann::json> handle(const nlohmann::json& message) const;
  // Reads lines until end of input, writing one reply line per request.
  void serve(std::istream& in, std::ostream& out) const;

  nlohmann::json tools() const;
  nlohmann::json call_tool(const std::string& name, const nlohmann::json& arguments) const;

 private:
  analysis::CurveSet curves_;
  api::ApiOptions options_;
};

}  // namespace ec::mcp
