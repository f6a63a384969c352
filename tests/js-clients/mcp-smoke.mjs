// Drives `ecocompute mcp` with the official MCP TypeScript SDK client over stdio, as the original
// server's smoke test drives it: list the tools, ask should_i_quantize with fields, with a
// plain-English query and without a size, list the architectures. The answers must equal the
// original's for the same curves (tests/fixtures/original/estimator/grid.json).
// Usage: node mcp-smoke.mjs ECOCOMPUTE SOURCE_DIR
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [ecocompute, source] = process.argv.slice(2);
const fixtures = `${source}/tests/fixtures/original/estimator`;
const grid = JSON.parse(await readFile(`${fixtures}/grid.json`, "utf8"));
const original = (query) => grid.cases.find((c) => c.query === query).answer;

const transport = new StdioClientTransport({
  command: ecocompute,
  args: ["mcp", "--curves", `${fixtures}/curves.json`],
  stderr: "pipe",
});
const client = new Client({ name: "ecocompute-smoke", version: "1.0.0" });
await client.connect(transport);

const tools = await client.listTools();
assert.deepEqual(tools.tools.map((t) => t.name).sort(), ["list_architectures", "should_i_quantize"]);
const schema = tools.tools.find((t) => t.name === "should_i_quantize").inputSchema;
assert.deepEqual(Object.keys(schema.properties).sort(), ["arch", "batch", "ctx", "params_b", "precision", "query"]);

// Every field of the original's answer is in ours, equal.
const same = (want, got, where = "") => {
  if (want !== null && typeof want === "object") {
    for (const k of Object.keys(want)) same(want[k], got?.[k], `${where}.${k}`);
  } else {
    assert.equal(got, want, where);
  }
};

const r1 = await client.callTool({ name: "should_i_quantize", arguments: { params_b: 7, arch: "blackwell", precision: "NF4" } });
console.log("[7B blackwell NF4] " + r1.content[0].text.split("\n")[0]);
assert.ok(!r1.isError);
same(original("params_b=7&arch=blackwell&precision=NF4"), r1.structuredContent);
assert.match(r1.content[0].text, /^7B on Blackwell \(RTX 5090\), NF4: ΔE% -11.4% \(95% range /);

const r2 = await client.callTool({ name: "should_i_quantize", arguments: { query: "13B on A100 int8 batch 32 ctx 8k" } });
console.log("[query: 13B A100 int8 batch32] " + r2.content[0].text.split("\n")[0]);
same(original("q=13B+on+A100+int8+batch+32+ctx+8k"), r2.structuredContent);

const r3 = await client.callTool({ name: "should_i_quantize", arguments: { arch: "ampere" } });
console.log("[missing params_b] " + r3.content[0].text + " isError=" + r3.isError);
assert.equal(r3.isError, true);
assert.match(r3.content[0].text, /params_b/);

const r4 = await client.callTool({ name: "list_architectures", arguments: {} });
const archs = JSON.parse(r4.content[0].text);
console.log("[architectures] " + Object.keys(archs).join(", "));
same(grid.cases.find((c) => c.endpoint === "/v1/architectures").answer, archs);

await client.close();
console.log("OK");
