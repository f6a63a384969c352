// Validates the OpenAPI document `ecocompute serve` answers at /openapi.json against the OpenAPI 3
// JSON Schemas. Usage: node openapi-validate.mjs URL_OR_FILE
import { readFile } from "node:fs/promises";
import { Validator } from "@seriousme/openapi-schema-validator";

const where = process.argv[2];
const text = where.startsWith("http") ? await (await fetch(where)).text() : await readFile(where, "utf8");
const document = JSON.parse(text);
const result = await new Validator().validate(document);
if (!result.valid) {
  console.error("not a valid OpenAPI document:", JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
console.log(`valid OpenAPI ${document.openapi}: ${Object.keys(document.paths).length} paths`);
