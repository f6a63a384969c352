// Structured version stacks: what each field means decides how its spellings are normalised.
#include "analysis/version_stack.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/trim.h"

namespace ec::analysis {
namespace {

// "v2.5.1 " → "2.5.1"; build tags (+cu121) are kept: they name a different build.
std::string version_text(std::string_view v) {
  std::string s(trim(v));
  if (s.size() > 1 && (s[0] == 'v' || s[0] == 'V') &&
      std::isdigit(static_cast<unsigned char>(s[1]))) {
    s.erase(0, 1);
  }
  return s;
}

std::string boolean_text(std::string_view v) {
  const std::string s = ascii_lower(trim(v));
  if (s == "true" || s == "yes" || s == "1") return "true";
  if (s == "false" || s == "no" || s == "0") return "false";
  return s;
}

// The library a quantization_backend names, and the method when it is not the library's only one
// for this precision: bitsandbytes' INT8 is LLM.int8(), so naming it adds nothing.
std::string backend_text(std::string_view backend, const std::string& precision) {
  std::string s = ascii_lower(trim(backend));
  std::string library = s.substr(0, s.find_first_of(" \t("));
  std::string method(trim(std::string_view(s).substr(library.size())));
  if (library == "bnb") library = "bitsandbytes";
  if (!method.empty() && method.front() == '(' && method.back() == ')') {
    method = method.substr(1, method.size() - 2);
  }
  if (library == "bitsandbytes" && precision == "INT8" &&
      (method == "llm.int8()" || method == "llm.int8" || method == "int8")) {
    method.clear();
  }
  return method.empty() ? library : library + " " + method;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& v : s) out += (out.empty() ? "" : "|") + v;
  return out;
}

std::map<std::string, std::set<std::string>> stack_values(std::span<const store::RunRow> rows) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& r : rows) {
    if (!r.is_measured()) continue;
    for (auto& [k, v] : version_stack(r)) out[k].insert(v);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> version_stack(const store::RunRow& row) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : row.versions) {
    out[key] = key == "matches_reference_pins" ? boolean_text(value) : version_text(value);
  }
  if (!row.quantization_backend.empty()) {
    out["quantization_backend"] = backend_text(row.quantization_backend, row.precision);
  }
  if (!row.quality_corpus_sha256.empty()) {
    out["quality_corpus_sha256"] = ascii_lower(trim(row.quality_corpus_sha256));
  }
  return out;
}

std::string Comparability::verdict() const {
  std::string accepted_note;
  for (const auto& d : accepted) accepted_note += (accepted_note.empty() ? "" : "; ") + d;
  if (!accepted_note.empty()) accepted_note = " (accepted difference: " + accepted_note + ")";
  if (!comparable) {
    std::string why;
    std::string fields;
    for (const auto& d : differences) {
      why += (why.empty() ? "" : "; ") + d;
      fields += (fields.empty() ? "" : ",") + d.substr(0, d.find(':'));
    }
    return "NOT comparable — the version stacks differ (" + why +
           "); numbers from these sessions must not be pooled (if they name the same thing, "
           "--accept-difference " +
           fields + " says so)" + accepted_note;
  }
  if (!unknown.empty()) {
    return fmt::format("comparable as far as recorded; {} field(s) recorded on one side only{}",
                       unknown.size(), accepted_note);
  }
  return "comparable: every recorded version agrees" + accepted_note;
}

Comparability compare_version_stacks(std::span<const store::RunRow> a,
                                     std::span<const store::RunRow> b,
                                     const std::set<std::string>& accept) {
  Comparability c;
  const auto va = stack_values(a);
  const auto vb = stack_values(b);
  for (const auto& [key, values_a] : va) {
    auto it = vb.find(key);
    if (it == vb.end()) {
      c.unknown.push_back(key);
    } else if (values_a != it->second || values_a.size() > 1) {
      // A side that mixes versions internally is no single stack either.
      std::string d = fmt::format("{}: {} vs {}", key, joined(values_a), joined(it->second));
      if (accept.count(key)) {
        c.accepted.push_back(std::move(d));
      } else {
        c.comparable = false;
        c.differences.push_back(std::move(d));
      }
    }
  }
  for (const auto& [key, values_b] : vb) {
    if (!va.count(key)) c.unknown.push_back(key);
  }
  return c;
}

}  // namespace ec::analysis
