// Tuning tables: JSON in and out with errors naming the file and field, the merge `tune` does, and
// the tables compiled into the binary.
#include "engine/tuning_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/embedded.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/sha256.h"

namespace ec::engine {
namespace {

using nlohmann::json;

constexpr std::string_view kFormatTag = "ecocompute-tuning-table";
constexpr int kVersion = 1;
constexpr size_t kMaxTableBytes = size_t{16} << 20;  // a table is a few KB; refuse anything huge

quant::Format parse_format(std::string_view name, std::string_view where) {
  for (quant::Format f : {quant::Format::fp16, quant::Format::bf16, quant::Format::int8_llm,
                          quant::Format::int8_wo, quant::Format::nf4, quant::Format::nf4_dq}) {
    if (quant::format_name(f) == name) return f;
  }
  fail("{}: weight_format '{}' is not one of fp16, bf16, int8-llm, int8-wo, nf4, nf4-dq", where,
       name);
}

const json& member(const json& object, std::string_view key, std::string_view where) {
  const auto it = object.find(std::string(key));
  EC_CHECK(it != object.end(), "{}: '{}' is missing", where, key);
  return *it;
}

std::string string_member(const json& object, std::string_view key, std::string_view where) {
  const json& v = member(object, key, where);
  EC_CHECK(v.is_string(), "{}: '{}' must be a string", where, key);
  return v.get<std::string>();
}

int positive_int(const json& object, std::string_view key, std::string_view where) {
  const json& v = member(object, key, where);
  EC_CHECK(v.is_number_integer() && v.get<int64_t>() > 0 && v.get<int64_t>() <= (1 << 30),
           "{}: '{}' must be a positive whole number (got {})", where, key, v.dump());
  return v.get<int>();
}

std::string slug(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

// Entries in key order, then model order (an entry without a model first).
bool entry_before(const TuningEntry& a, const TuningEntry& b) {
  return std::tie(a.key, a.model) < std::tie(b.key, b.model);
}

void sort_and_check_unique(std::vector<TuningEntry>& entries, std::string_view source) {
  std::sort(entries.begin(), entries.end(), entry_before);
  for (size_t i = 1; i < entries.size(); ++i) {
    const TuningKey& k = entries[i].key;
    EC_CHECK(!(entries[i - 1].key == k && entries[i - 1].model == entries[i].model),
             "{}: two entries for {} {} {}x{} of model '{}'", source, quant::format_name(k.format),
             k.role, k.rows, k.cols, entries[i].model);
  }
}

}  // namespace

const TuningEntry* TuningTable::find(const TuningKey& key, std::string_view model) const {
  const auto first =
      std::lower_bound(entries.begin(), entries.end(), key,
                       [](const TuningEntry& e, const TuningKey& k) { return e.key < k; });
  const auto last =
      std::upper_bound(first, entries.end(), key,
                       [](const TuningKey& k, const TuningEntry& e) { return k < e.key; });
  if (first == last) return nullptr;
  const auto own =
      std::find_if(first, last, [&](const TuningEntry& e) { return e.model == model; });
  return own != last ? &*own : &*first;
}

void TuningTable::merge(std::vector<TuningEntry> more) {
  for (TuningEntry& e : more) {
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const TuningEntry& old) {
      return old.key == e.key && old.model == e.model;
    });
    if (it != entries.end()) {
      *it = std::move(e);
    } else {
      entries.push_back(std::move(e));
    }
  }
  sort_and_check_unique(entries, "tuning table");
}

TuningTable parse_tuning_table(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    fail("{}: not JSON: {}", source, e.what());
  }
  EC_CHECK(doc.is_object(), "{}: a tuning table is a JSON object", source);
  const std::string tag = string_member(doc, "format", source);
  EC_CHECK(tag == kFormatTag, "{}: 'format' is '{}', expected '{}'", source, tag, kFormatTag);
  const json& version = member(doc, "version", source);
  EC_CHECK(version.is_number_integer() && version.get<int>() == kVersion,
           "{}: 'version' is {}, this build reads version {}", source, version.dump(), kVersion);
  TuningTable t;
  const std::string gpu_where = fmt::format("{}: gpu", source);
  const json& gpu = member(doc, "gpu", source);
  EC_CHECK(gpu.is_object(), "{}: must be an object", gpu_where);
  t.gpu_name = string_member(gpu, "name", gpu_where);
  EC_CHECK(!t.gpu_name.empty(), "{}: 'name' is empty", gpu_where);
  const std::string cc = string_member(gpu, "compute_capability", gpu_where);
  int major = -1, minor = -1;
  char tail = 0;
  EC_CHECK(
      std::sscanf(cc.c_str(), "%d.%d%c", &major, &minor, &tail) == 2 && major >= 1 && minor >= 0,
      "{}: 'compute_capability' is '{}', expected major.minor such as '9.0'", gpu_where, cc);
  t.cc_major = major;
  t.cc_minor = minor;
  if (const auto it = doc.find("tool"); it != doc.end()) {
    EC_CHECK(it->is_string(), "{}: 'tool' must be a string", source);
    t.tool = it->get<std::string>();
  }
  const json& entries = member(doc, "entries", source);
  EC_CHECK(entries.is_array(), "{}: 'entries' must be an array", source);
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string where = fmt::format("{}: entries[{}]", source, i);
    const json& e = entries[i];
    EC_CHECK(e.is_object(), "{}: must be an object", where);
    TuningEntry entry;
    entry.key.format = parse_format(string_member(e, "weight_format", where), where);
    entry.key.role = string_member(e, "role", where);
    EC_CHECK(
        std::find(kDecodeRoles.begin(), kDecodeRoles.end(), entry.key.role) != kDecodeRoles.end(),
        "{}: role '{}' is not one of qkv, o, gu, down, head", where, entry.key.role);
    entry.key.rows = positive_int(e, "rows", where);
    entry.key.cols = positive_int(e, "cols", where);
    entry.variant = string_member(e, "variant", where);
    EC_CHECK(!entry.variant.empty() && entry.variant.find('+') == std::string::npos,
             "{}: variant '{}' must name a GEMV variant without '+pdl' (e.g. 'r2p-dbuf-u2')", where,
             entry.variant);
    if (const auto it = e.find("model"); it != e.end()) {
      EC_CHECK(it->is_string(), "{}: 'model' must be a string", where);
      entry.model = it->get<std::string>();
    }
    if (const auto it = e.find("step_us"); it != e.end()) {
      EC_CHECK(it->is_number() && it->get<double>() >= 0, "{}: 'step_us' must be a number >= 0",
               where);
      entry.step_us = it->get<double>();
    }
    t.entries.push_back(std::move(entry));
  }
  sort_and_check_unique(t.entries, source);
  t.name = std::string(source);
  t.sha256 = sha256_hex(text);
  return t;
}

std::string tuning_table_json(const TuningTable& t) {
  json entries = json::array();
  for (const TuningEntry& e : t.entries) {
    json j = {{"weight_format", quant::format_name(e.key.format)},
              {"role", e.key.role},
              {"rows", e.key.rows},
              {"cols", e.key.cols},
              {"variant", e.variant}};
    if (!e.model.empty()) j["model"] = e.model;
    if (e.step_us > 0) j["step_us"] = std::round(e.step_us * 10) / 10;
    entries.push_back(std::move(j));
  }
  json doc = {
      {"format", kFormatTag},
      {"version", kVersion},
      {"gpu",
       {{"name", t.gpu_name},
        {"compute_capability", fmt::format("{}.{}", t.cc_major, t.cc_minor)}}},
  };
  if (!t.tool.empty()) doc["tool"] = t.tool;
  doc["entries"] = std::move(entries);
  return doc.dump(2) + "\n";
}

TuningTable read_tuning_table(const std::filesystem::path& path) {
  return parse_tuning_table(read_file_at_most(path, kMaxTableBytes, "a tuning table"),
                            path.string());
}

TuningTable write_tuning_table(const std::filesystem::path& path, TuningTable table) {
  const std::string text = tuning_table_json(table);
  write_file_atomic(path, text);
  table.name = path.string();
  table.sha256 = sha256_hex(text);
  return table;
}

std::span<const TuningTable> shipped_tuning_tables() {
  // Parsed once; a shipped table that does not parse is a build defect, and every load says so.
  static const std::vector<TuningTable> tables = [] {
    std::vector<TuningTable> out;
    for (const auto& f : embedded::tuning_tables()) {
      if (!f.path.ends_with(".json")) continue;  // the folder's README
      out.push_back(parse_tuning_table(f.bytes, fmt::format("shipped:{}", f.path)));
    }
    return out;
  }();
  return tables;
}

const TuningTable* find_table_for_gpu(std::span<const TuningTable> tables, std::string_view gpu,
                                      int major, int minor) {
  for (const TuningTable& t : tables) {
    if (t.for_gpu(gpu, major, minor)) return &t;
  }
  return nullptr;
}

std::string tuning_table_file_name(std::string_view gpu, int major, int minor) {
  return fmt::format("{}-cc{}.{}.json", slug(gpu), major, minor);
}

}  // namespace ec::engine
