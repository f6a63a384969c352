// JSON-RPC framing, the MCP handshake and the two tools. Tool failures are results with isError
// (the client shows them to the model); protocol failures are JSON-RPC errors.
#include "mcp/mcp_server.h"

#include <istream>
#include <ostream>
#include <string>

#include "analysis/estimate.h"
#include "analysis/js_number.h"
#include "analysis/query_text.h"
#include "core/build_info.h"
#include "core/error.h"

namespace ec::mcp {
namespace {

using nlohmann::json;

// Protocol revisions this server speaks, newest first; it answers in the client's when it knows it.
const std::vector<std::string> kProtocolVersions{"2025-11-25", "2025-06-18", "2025-03-26",
                                                 "2024-11-05"};
constexpr size_t kMaxLine = 1 << 20;  // bytes; a longer message is refused, not buffered

json rpc_error(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json tool_error(const std::string& message) {
  return {{"content", {{{"type", "text"}, {"text", "Error: " + message}}}}, {"isError", true}};
}

std::vector<std::string> architecture_names(const analysis::CurveSet& curves) {
  std::vector<std::string> out;
  for (const auto& c : curves.curves) {
    if (std::find(out.begin(), out.end(), c.arch) == out.end()) out.push_back(c.arch);
  }
  for (const auto& [to, from] : curves.borrow) {
    if (std::find(out.begin(), out.end(), to) == out.end()) out.push_back(to);
  }
  return out;
}

std::string dump(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace

McpServer::McpServer(analysis::CurveSet curves, api::ApiOptions options)
    : curves_(std::move(curves)), options_(options) {}

json McpServer::tools() const {
  const json archs = architecture_names(curves_);
  json quantize{
      {"name", "should_i_quantize"},
      {"title", "Should I quantize?"},
      {"description",
       "Estimate the energy change (ΔE% vs FP16) of weight-only quantization (NF4/INT8) for a "
       "given model size and GPU architecture class. Returns a point estimate, 95% range, an "
       "honesty label (measured/interpolated/estimated), confidence, and a recommendation. "
       "Numbers are calibrated to real measured GPU data, not guessed. Optionally accepts a "
       "plain-English query."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"params_b",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"description", "Model size in billions of parameters, e.g. 13"}}},
          {"arch",
           {{"type", "string"}, {"enum", archs}, {"description", "GPU architecture class"}}},
          {"precision",
           {{"type", "string"},
            {"enum", {"NF4", "INT8"}},
            {"default", "NF4"},
            {"description", "Quantization precision"}}},
          {"batch",
           {{"type", "integer"},
            {"exclusiveMinimum", 0},
            {"default", 1},
            {"description", "Batch size (>1 => modelled, not measured)"}}},
          {"ctx",
           {{"type", "integer"},
            {"exclusiveMinimum", 0},
            {"default", 2048},
            {"description", "Context length in tokens (>2048 => modelled)"}}},
          {"query",
           {{"type", "string"},
            {"description",
             "Plain-English query, e.g. '13B on A100 int8 batch 32 ctx 8k'. If given, it "
             "overrides the structured fields it can parse."}}}}},
        {"additionalProperties", false},
        {"$schema", "http://json-schema.org/draft-07/schema#"}}}};
  json list{{"name", "list_architectures"},
            {"title", "List supported GPU architectures"},
            {"description",
             "List the GPU architecture classes, available precisions, measured size ranges and "
             "crossover points the estimator knows about."},
            {"inputSchema",
             {{"type", "object"},
              {"properties", json::object()},
              {"additionalProperties", false},
              {"$schema", "http://json-schema.org/draft-07/schema#"}}}};
  return json::array({quantize, list});
}

json McpServer::call_tool(const std::string& name, const json& arguments) const {
  if (name == "list_architectures") {
    const json a = analysis::architectures_json(curves_);
    return {{"content", {{{"type", "text"}, {"text", dump(a, 2)}}}}, {"structuredContent", a}};
  }
  if (name != "should_i_quantize") return tool_error("no tool named '" + name + "'");
  if (!arguments.is_object()) return tool_error("arguments must be an object");
  // The schema's rules, checked here as the original's schema library checks them.
  const auto archs = architecture_names(curves_);
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    bool good = true;
    if (k == "params_b") {
      good = v.is_number() && v.get<double>() > 0 && v.get<double>() <= api::kMaxParamsB;
    } else if (k == "arch") {
      good = v.is_string() &&
             std::find(archs.begin(), archs.end(), v.get<std::string>()) != archs.end();
    } else if (k == "precision") {
      good = v == "NF4" || v == "INT8";
    } else if (k == "batch" || k == "ctx") {
      const double hi = k == "batch" ? api::kMaxBatch : api::kMaxContext;
      good = v.is_number() && v.get<double>() > 0 && v.get<double>() <= hi &&
             v.get<double>() == std::trunc(v.get<double>());
    } else if (k == "query") {
      good = v.is_string() && v.get<std::string>().size() <= analysis::kMaxQueryText;
    } else {
      return tool_error("Input validation error: unknown argument '" + k + "'");
    }
    if (!good) return tool_error("Input validation error: invalid '" + k + "': " + dump(v));
  }
  analysis::EstimateInput in;
  std::optional<double> size;
  std::optional<std::string> arch;
  if (arguments.contains("params_b")) size = arguments["params_b"].get<double>();
  if (arguments.contains("arch")) arch = arguments["arch"].get<std::string>();
  if (arguments.contains("precision")) in.precision = arguments["precision"].get<std::string>();
  if (arguments.contains("batch")) in.batch = arguments["batch"].get<double>();
  if (arguments.contains("ctx")) in.ctx = arguments["ctx"].get<double>();
  if (arguments.contains("query")) {
    // The query overrides only what it says, as in the original server.
    const auto t =
        analysis::parse_query_text(arguments["query"].get<std::string>(), options_.compat_original);
    if (t.params_b) size = t.params_b;
    if (t.arch) arch = t.arch;
    if (t.precision) in.precision = *t.precision;
    if (t.batch) in.batch = *t.batch;
    if (t.ctx) in.ctx = *t.ctx;
    if (in.batch > api::kMaxBatch || in.ctx > api::kMaxContext) {
      return tool_error("batch or context in the query is out of range");
    }
  }
  if (!size || !(*size > 0)) {
    return tool_error("params_b (model size in billions) is required (or include it in `query`).");
  }
  if (!arch) {
    std::string list;
    for (const auto& a : archs) list += (list.empty() ? "" : ", ") + a;
    return tool_error("arch is required. Supported: " + list);
  }
  in.params_b = *size;
  in.arch = *arch;
  try {
    const analysis::Estimate e = analysis::estimate(curves_, in);
    const json payload = analysis::estimate_json(e);
    using analysis::js_string;
    const std::string summary = js_string(in.params_b) + "B on " + curves_.label(in.arch) + ", " +
                                in.precision + ": ΔE% " + (e.delta_pct >= 0 ? "+" : "") +
                                js_string(e.delta_pct) + "% (95% range " + js_string(e.ci_low) +
                                ".." + js_string(e.ci_high) + ") — " + e.basis + "/" +
                                e.confidence + (e.modelled ? " · modelled" : "") +
                                ". Recommendation: " + e.recommendation + ". " + e.verdict;
    return {{"content", {{{"type", "text"}, {"text", summary + "\n\n" + dump(payload, 2)}}}},
            {"structuredContent", payload}};
  } catch (const Error& err) {
    return tool_error(err.what());
  }
}

std::optional<json> McpServer::handle(const json& message) const {
  if (!message.is_object() || message.value("jsonrpc", "") != "2.0" ||
      !message.contains("method") || !message["method"].is_string()) {
    // A reply to something we never asked, or not JSON-RPC at all.
    if (message.is_object() && (message.contains("result") || message.contains("error"))) {
      return std::nullopt;
    }
    return rpc_error(message.is_object() && message.contains("id") ? message["id"] : json(nullptr),
                     -32600, "Invalid Request");
  }
  const std::string method = message["method"];
  if (!message.contains("id")) return std::nullopt;  // notifications need no reply
  const json& id = message["id"];
  const json params = message.contains("params") ? message["params"] : json::object();
  auto reply = [&](json result) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  };
  if (method == "initialize") {
    std::string version = kProtocolVersions.front();
    if (params.is_object() && params.contains("protocolVersion") &&
        params["protocolVersion"].is_string()) {
      const std::string asked = params["protocolVersion"];
      if (std::find(kProtocolVersions.begin(), kProtocolVersions.end(), asked) !=
          kProtocolVersions.end()) {
        version = asked;
      }
    }
    return reply({{"protocolVersion", version},
                  {"capabilities", {{"tools", {{"listChanged", false}}}}},
                  {"serverInfo",
                   {{"name", "ecocompute-estimator"},
                    {"version", build_info().value("version", "unknown")}}}});
  }
  if (method == "ping") return reply(json::object());
  if (method == "tools/list") return reply({{"tools", tools()}});
  if (method == "tools/call") {
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
      return rpc_error(id, -32602, "tools/call needs params.name");
    }
    const json args = params.contains("arguments") ? params["arguments"] : json::object();
    const std::string name = params["name"];
    if (name != "should_i_quantize" && name != "list_architectures") {
      return rpc_error(id, -32602, "Tool " + name + " not found");
    }
    return reply(call_tool(name, args));
  }
  return rpc_error(id, -32601, "Method not found: " + method);
}

void McpServer::serve(std::istream& in, std::ostream& out) const {
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    std::optional<json> answer;
    if (line.size() > kMaxLine) {
      answer = rpc_error(nullptr, -32600, "message larger than 1 MiB");
    } else {
      const json message = json::parse(line, nullptr, false);
      answer = message.is_discarded() ? rpc_error(nullptr, -32700, "Parse error") : handle(message);
    }
    if (answer) out << dump(*answer) << '\n' << std::flush;
  }
}

}  // namespace ec::mcp
