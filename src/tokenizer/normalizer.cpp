// Normalizers as Hugging Face tokenizers applies them to each text span between added tokens.
#include "tokenizer/normalizer.h"

#include "core/error.h"
#include "tokenizer/utf8.h"

#include <utf8proc.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

namespace ec::tok {
namespace {

bool is_ascii(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

std::string unicode_normal_form(const std::string& text, utf8proc_option_t options) {
  // Every ASCII string is already in all four normal forms.
  if (is_ascii(text)) return text;
  utf8proc_uint8_t* result = nullptr;
  const utf8proc_ssize_t length =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &result, options);
  if (length < 0) ec::fail("unicode normalization failed: {}", utf8proc_errmsg(length));
  std::string out(reinterpret_cast<const char*>(result), static_cast<std::size_t>(length));
  std::free(result);
  return out;
}

std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char32_t c = next_code_point(text, pos);
    append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
  }
  return out;
}

std::string replace_literal(const std::string& text, const std::string& pattern,
                            const std::string& content) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (std::size_t hit = text.find(pattern); hit != std::string::npos;
       hit = text.find(pattern, pos)) {
    out.append(text, pos, hit - pos);
    out += content;
    pos = hit + pattern.size();
  }
  out.append(text, pos);
  return out;
}

std::string replace_regex(const std::string& text, const Regex& regex, const std::string& content) {
  std::string out;
  std::size_t pos = 0;
  for (const auto& [begin, end] : regex.find_all(text)) {
    out.append(text, pos, begin - pos);
    out += content;
    pos = end;
  }
  out.append(text, pos);
  return out;
}

}  // namespace

void Normalizer::add(const nlohmann::json& component, const JsonWhere& where,
                     std::vector<Step>& out) {
  const std::string type = where.type_of(component);
  if (type == "Sequence") {
    const JsonWhere list = where / "normalizers";
    const auto& items = where.member(component, "normalizers");
    if (!items.is_array()) list.fail("expected an array");
    for (std::size_t i = 0; i < items.size(); ++i) add(items[i], list[i], out);
  } else if (type == "NFC") {
    out.push_back({Kind::nfc, {}, {}, nullptr});
  } else if (type == "NFD") {
    out.push_back({Kind::nfd, {}, {}, nullptr});
  } else if (type == "NFKC") {
    out.push_back({Kind::nfkc, {}, {}, nullptr});
  } else if (type == "NFKD") {
    out.push_back({Kind::nfkd, {}, {}, nullptr});
  } else if (type == "Lowercase") {
    out.push_back({Kind::lowercase, {}, {}, nullptr});
  } else if (type == "Prepend") {
    out.push_back({Kind::prepend, {}, where.string_member(component, "prepend"), nullptr});
  } else if (type == "Replace") {
    Step step{Kind::replace, {}, where.string_member(component, "content"), nullptr};
    const JsonWhere at = where / "pattern";
    const auto& pattern = where.member(component, "pattern");
    if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
      step.pattern = pattern["String"].get<std::string>();
      if (step.pattern.empty()) (at / "String").fail("empty pattern");
    } else if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
      step.regex = std::make_shared<const Regex>(pattern["Regex"].get<std::string>(),
                                                 at.file() + ": " + at.path() + ".Regex");
    } else {
      at.fail("expected {\"String\": ...} or {\"Regex\": ...}");
    }
    out.push_back(std::move(step));
  } else {
    where.unsupported("normalizer", type);
  }
}

Normalizer Normalizer::from_json(const nlohmann::json& component, const JsonWhere& where) {
  Normalizer normalizer;
  if (!component.is_null()) add(component, where, normalizer.steps_);
  return normalizer;
}

std::string Normalizer::apply(std::string text) const {
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::nfc:
        text = unicode_normal_form(
            text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
        break;
      case Kind::nfd:
        text = unicode_normal_form(
            text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE));
        break;
      case Kind::nfkc:
        text = unicode_normal_form(text, static_cast<utf8proc_option_t>(
                                             UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
        break;
      case Kind::nfkd:
        text = unicode_normal_form(
            text,
            static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT));
        break;
      case Kind::lowercase:
        text = lowercase(text);
        break;
      case Kind::prepend:
        // tokenizers prepends only to a non-empty span.
        if (!text.empty()) text.insert(0, step.content);
        break;
      case Kind::replace:
        text = step.regex ? replace_regex(text, *step.regex, step.content)
                          : replace_literal(text, step.pattern, step.content);
        break;
    }
  }
  return text;
}

bool Normalizer::uses_metaspace() const {
  for (const Step& step : steps_) {
    if ((step.kind == Kind::prepend || step.kind == Kind::replace) &&
        step.content == "\xE2\x96\x81") {
      return true;
    }
  }
  return false;
}

}  // namespace ec::tok
