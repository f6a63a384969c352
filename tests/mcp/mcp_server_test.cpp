// The MCP server's JSON-RPC: the handshake in the client's protocol revision, the two tools with
// the original's names and schemas, tool failures as isError results, protocol failures as
// JSON-RPC errors, notifications unanswered, one reply line per request over a stream.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/fit.h"
#include "core/file_io.h"
#include "mcp/mcp_server.h"
#include "support/paths.h"

namespace ec::mcp {
namespace {

using nlohmann::json;

const McpServer& server() {
  static const McpServer s = [] {
    const auto path = test::fixture("original/estimator/curves.json");
    return McpServer(analysis::curves_from_json(json::parse(read_file(path)), path), {});
  }();
  return s;
}

json call(const std::string& method, json params = json::object(), json id = 1) {
  auto r =
      server().handle({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  return r ? *r : json();
}

TEST(McpServer, HandshakeAndToolList) {
  const json init = call("initialize", {{"protocolVersion", "2025-06-18"},
                                        {"capabilities", json::object()},
                                        {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(call("initialize", {{"protocolVersion", "1999-01-01"}})["result"]["protocolVersion"],
            "2025-11-25");
  EXPECT_FALSE(server().handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  const json tools = call("tools/list")["result"]["tools"];
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0]["name"], "should_i_quantize");
  EXPECT_EQ(tools[0]["inputSchema"]["properties"]["precision"]["default"], "NF4");
  EXPECT_EQ(tools[1]["name"], "list_architectures");
  EXPECT_EQ(call("ping")["result"], json::object());
}

TEST(McpServer, ShouldIQuantizeAnswersLikeTheApi) {
  const json r =
      call("tools/call", {{"name", "should_i_quantize"},
                          {"arguments", {{"params_b", 7}, {"arch", "blackwell"}}}})["result"];
  ASSERT_FALSE(r.value("isError", false)) << r.dump();
  EXPECT_EQ(r["structuredContent"]["delta_pct"], -11.4);
  EXPECT_EQ(r["structuredContent"]["basis"], "measured");
  EXPECT_TRUE(r["content"][0]["text"].get<std::string>().starts_with(
      "7B on Blackwell (RTX 5090), NF4: ΔE% -11.4% (95% range "))
      << r["content"][0]["text"];
  // A query overrides only what it says: the size stays 7 and the batch comes from the text.
  const json q =
      call("tools/call", {{"name", "should_i_quantize"},
                          {"arguments", {{"params_b", 7}, {"query", "T4 batch 4"}}}})["result"];
  EXPECT_EQ(
      q["structuredContent"]["input"],
      (json{
          {"params_b", 7}, {"arch", "turing"}, {"precision", "NF4"}, {"batch", 4}, {"ctx", 2048}}));
}

TEST(McpServer, FailuresAreToolErrorsOrRpcErrors) {
  auto tool = [](json args) {
    return call("tools/call", {{"name", "should_i_quantize"}, {"arguments", args}})["result"];
  };
  EXPECT_TRUE(tool({{"arch", "ampere"}})["isError"].get<bool>());                 // no size
  EXPECT_TRUE(tool({{"params_b", 7}})["isError"].get<bool>());                    // no class
  EXPECT_TRUE(tool({{"params_b", -7}, {"arch", "ada"}})["isError"].get<bool>());  // schema
  EXPECT_TRUE(tool({{"params_b", 7}, {"arch", "volta"}})["isError"].get<bool>());
  EXPECT_TRUE(
      tool({{"params_b", 7}, {"arch", "turing"}, {"precision", "INT8"}})["isError"].get<bool>());
  EXPECT_TRUE(tool({{"params_b", 7}, {"arch", "ada"}, {"batch", 1.5}})["isError"].get<bool>());
  EXPECT_TRUE(tool({{"params_b", 7}, {"arch", "ada"}, {"extra", 1}})["isError"].get<bool>());
  EXPECT_EQ(call("tools/call", {{"name", "nope"}})["error"]["code"], -32602);
  EXPECT_EQ(call("resources/list")["error"]["code"], -32601);
  EXPECT_EQ((*server().handle(json::array()))["error"]["code"], -32600);
}

TEST(McpServer, ServesLinesUntilEndOfInput) {
  std::istringstream in(
      R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
      "\n{not json\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"list_architectures"}})"
      "\n");
  std::ostringstream out;
  server().serve(in, out);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<json> replies;
  while (std::getline(lines, line)) replies.push_back(json::parse(line));
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0]["id"], 1);
  EXPECT_EQ(replies[1]["error"]["code"], -32700);
  EXPECT_EQ(replies[2]["id"], "b");
  EXPECT_EQ(replies[2]["result"]["structuredContent"]["hopper"]["borrows_from"], "ampere");
}

}  // namespace
}  // namespace ec::mcp
