// same_json: whether store::JsonDoc and nlohmann read a document node alike (the oracle both the
// report_ingest fuzzer and tests/store's JsonDoc tests check the fast reader against).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "store/json_doc.h"

namespace ec::fuzz {

// Same kind and value, recursively (objects: nlohmann's sorted, de-duplicated members; reals
// bit for bit).
inline bool same_json(const store::JsonDoc& doc, store::JsonDoc::Ref r, const nlohmann::json& j) {
  using T = store::JsonDoc::Type;
  switch (doc.type(r)) {
    case T::null:
      return j.is_null();
    case T::boolean:
      return j.is_boolean() && j.get<bool>() == doc.boolean(r);
    case T::integer:
      return j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() == doc.integer(r);
    case T::unsigned_integer:
      return j.is_number_unsigned() && j.get<uint64_t>() == doc.unsigned_integer(r);
    case T::real: {
      if (!j.is_number_float()) return false;
      const double a = j.get<double>();
      const double b = doc.real(r);
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    case T::string:
      return j.is_string() && j.get_ref<const std::string&>() == doc.string(r);
    case T::array: {
      if (!j.is_array()) return false;
      const auto elements = doc.elements(r);
      if (elements.size() != j.size()) return false;
      for (size_t i = 0; i < elements.size(); ++i) {
        if (!same_json(doc, elements[i], j[i])) return false;
      }
      return true;
    }
    case T::object: {
      if (!j.is_object()) return false;
      const auto members = doc.members(r);
      if (members.size() != j.size()) return false;
      for (const auto& [key, child] : members) {
        const auto it = j.find(std::string(key));
        if (it == j.end() || !same_json(doc, child, *it)) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace ec::fuzz
