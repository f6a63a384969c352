// JSON Schema validation through valijson against the embedded schemas, with JSON-pointer messages.
#include "report/validate.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
// GCC 12 at -O3 reports a false -Wrestrict inside valijson's json_pointer string handling.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "core/embedded.h"
#include "core/error.h"
#include "report/consistency.h"
#include "report/embedded_schemas.h"

namespace ec::report {
namespace {

using nlohmann::json;

std::unique_ptr<valijson::Schema> parse_schema(const json& document, std::string_view name) {
  auto schema = std::make_unique<valijson::Schema>();
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(document);
    parser.populateSchema(adapter, *schema);
  } catch (const std::exception& e) {
    fail("{}: not a usable JSON Schema: {}", name, e.what());
  }
  return schema;
}

json parse_embedded(std::string_view text, std::string_view name) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail("{} (embedded): not JSON: {}", name, e.what());
  }
}

struct LoadedSchema {
  json document;
  std::unique_ptr<valijson::Schema> schema;
};

const LoadedSchema& our_schema() {
  static const LoadedSchema loaded = [] {
    LoadedSchema s;
    s.document = parse_embedded(embedded::energy_schema(), "schema/energy.schema.json");
    s.schema = parse_schema(s.document, "schema/energy.schema.json");
    return s;
  }();
  return loaded;
}

const LoadedSchema& original_schema() {
  static const LoadedSchema loaded = [] {
    LoadedSchema s;
    s.document =
        parse_embedded(embedded::original_schema(), "schema/original-energy-1.1.schema.json");
    s.schema = parse_schema(s.document, "schema/original-energy-1.1.schema.json");
    return s;
  }();
  return loaded;
}

// valijson's context ["<root>", "[results]", "[basis]"] as the JSON pointer "/results/basis".
std::string to_pointer(const std::vector<std::string>& context) {
  std::string pointer;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    std::string key = part;
    if (key.size() >= 2 && key.front() == '[' && key.back() == ']')
      key = key.substr(1, key.size() - 2);
    std::string escaped;
    for (char c : key) {
      if (c == '~') {
        escaped += "~0";
      } else if (c == '/') {
        escaped += "~1";
      } else {
        escaped += c;
      }
    }
    pointer += "/" + escaped;
  }
  return pointer;
}

// Structural echoes valijson adds above the failure that caused them.
bool is_summary(const std::string& description) {
  static const char* const prefixes[] = {
      "Failed to validate against schema associated with property name",
      "Failed to validate item #",
      "Failed to validate against a conditional schema",
      "Failed to validate against child schema",
  };
  return std::any_of(std::begin(prefixes), std::end(prefixes),
                     [&](const char* p) { return description.rfind(p, 0) == 0; });
}

std::string describe_value(const json& report, const std::string& pointer) {
  try {
    const json& v = report.at(json::json_pointer(pointer));
    if (v.is_object()) return "an object";
    if (v.is_array()) return fmt::format("an array of {}", v.size());
    std::string text = v.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
  } catch (const std::exception&) {
    return {};
  }
}

std::vector<std::string> collect_failures(const valijson::Schema& schema, const json& report,
                                          std::string_view source_name) {
  std::vector<std::string> out;
  valijson::Validator validator;  // strong types: 256.0 is not an integer
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(report);
  if (validator.validate(schema, target, &results)) return out;

  struct Item {
    std::string pointer;
    std::string description;
  };
  std::vector<Item> items;
  for (const auto& e : results) items.push_back({to_pointer(e.context), e.description});
  for (const auto& item : items) {
    // Drop an echo when a more specific failure at or below the same pointer explains it.
    if (is_summary(item.description)) {
      bool explained = std::any_of(items.begin(), items.end(), [&](const Item& other) {
        return &other != &item && !is_summary(other.description) &&
               other.pointer.rfind(item.pointer, 0) == 0;
      });
      if (explained) continue;
    }
    std::string pointer = item.pointer.empty() ? "/" : item.pointer;
    std::string line = fmt::format("{}: {}: {}", source_name, pointer, item.description);
    if (item.description.rfind("Missing required property", 0) != 0) {
      std::string got = describe_value(report, item.pointer);
      if (!got.empty()) line += fmt::format(" (got {})", got);
    }
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(std::move(line));
  }
  return out;
}

ValidationResult validate_with(const LoadedSchema& loaded, const json& report,
                               std::string_view source_name) {
  ValidationResult result;
  if (!report.is_object()) {
    result.failures.push_back(
        fmt::format("{}: /: expected a report object, got {}", source_name, report.type_name()));
    return result;
  }
  result.failures = collect_failures(*loaded.schema, report, source_name);
  for (auto& failure : check_consistency(report, source_name)) {
    result.failures.push_back(std::move(failure));
  }
  return result;
}

}  // namespace

std::vector<std::string> schema_failures(const json& report, const json& schema_document,
                                         std::string_view source_name) {
  return collect_failures(*parse_schema(schema_document, "schema"), report, source_name);
}

ValidationResult validate_report(const json& report, std::string_view source_name) {
  return validate_with(our_schema(), report, source_name);
}

ValidationResult validate_against_original(const json& report, std::string_view source_name) {
  return validate_with(original_schema(), report, source_name);
}

}  // namespace ec::report
