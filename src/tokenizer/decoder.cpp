// Decoders: each step maps the list of token strings to a new list (tokenizers' decode_chain).
#include "tokenizer/decoder.h"

#include "core/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

#include <nlohmann/json.hpp>

namespace ec::tok {
namespace {

std::string replace_all(const std::string& text, const std::string& pattern,
                        const std::string& content) {
  std::string out;
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

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<char32_t> code_points(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t pos = 0; pos < s.size();) out.push_back(next_code_point(s, pos));
  return out;
}

}  // namespace

void Decoder::add(const nlohmann::json& component, const JsonWhere& where, std::vector<Step>& out) {
  const std::string type = where.type_of(component);
  Step step{};
  if (type == "Sequence") {
    const JsonWhere list = where / "decoders";
    const auto& items = where.member(component, "decoders");
    if (!items.is_array()) list.fail("expected an array");
    for (std::size_t i = 0; i < items.size(); ++i) add(items[i], list[i], out);
    return;
  }
  if (type == "ByteLevel") {
    step.kind = Kind::byte_level;
  } else if (type == "ByteFallback") {
    step.kind = Kind::byte_fallback;
  } else if (type == "Fuse") {
    step.kind = Kind::fuse;
  } else if (type == "Replace") {
    step.kind = Kind::replace;
    const auto& pattern = where.member(component, "pattern");
    if (!pattern.is_object() || !pattern.contains("String") || !pattern["String"].is_string() ||
        pattern["String"].get<std::string>().empty()) {
      (where / "pattern").fail("only a non-empty {\"String\": ...} pattern is supported");
    }
    step.pattern = pattern["String"].get<std::string>();
    step.content = where.string_member(component, "content");
  } else if (type == "Strip") {
    step.kind = Kind::strip;
    step.pattern = where.string_member(component, "content");
    if (code_points(step.pattern).size() != 1) (where / "content").fail("expected one character");
    const auto count = [&](std::string_view key) {
      const auto& value = where.member(component, key);
      if (!value.is_number_unsigned()) (where / key).fail("expected a count");
      return value.get<std::size_t>();
    };
    step.start = count("start");
    step.stop = count("stop");
  } else if (type == "Metaspace") {
    step.kind = Kind::metaspace;
    step.pattern = component.contains("replacement") ? where.string_member(component, "replacement")
                                                     : std::string("\xE2\x96\x81");
    if (code_points(step.pattern).size() != 1) {
      (where / "replacement").fail("expected one character");
    }
    if (component.contains("prepend_scheme")) {
      step.strip_first = where.string_member(component, "prepend_scheme") != "never";
    } else {
      step.strip_first = where.bool_member(component, "add_prefix_space", true);
    }
  } else {
    where.unsupported("decoder", type);
  }
  out.push_back(std::move(step));
}

Decoder Decoder::from_json(const nlohmann::json& component, const JsonWhere& where) {
  Decoder decoder;
  if (!component.is_null()) {
    decoder.present_ = true;
    add(component, where, decoder.steps_);
  }
  return decoder;
}

std::vector<std::string> Decoder::apply(const Step& step, std::vector<std::string> tokens) {
  switch (step.kind) {
    case Kind::byte_level: {
      // A token whose characters are all in the byte map becomes those bytes; any other token
      // (an added token such as "<|im_end|>" with unmapped characters) keeps its own UTF-8.
      const ByteLevelMap& map = ByteLevelMap::get();
      std::string bytes;
      for (const std::string& token : tokens) {
        std::string mapped;
        bool all = true;
        for (std::size_t pos = 0; pos < token.size() && all;) {
          const auto b = map.byte_of(next_code_point(token, pos));
          if (b) {
            mapped += static_cast<char>(*b);
          } else {
            all = false;
          }
        }
        bytes += all ? mapped : token;
      }
      return {utf8_lossy(bytes)};
    }
    case Kind::replace:
      for (std::string& token : tokens) token = replace_all(token, step.pattern, step.content);
      return tokens;
    case Kind::byte_fallback: {
      std::vector<std::string> out;
      std::string pending;  // bytes of consecutive <0xNN> tokens
      const auto flush = [&]() {
        if (pending.empty()) return;
        if (find_invalid_utf8(pending)) {
          // tokenizers emits one U+FFFD per byte of an invalid run.
          for (std::size_t i = 0; i < pending.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
        } else {
          out.push_back(pending);
        }
        pending.clear();
      };
      for (std::string& token : tokens) {
        if (token.size() == 6 && token.starts_with("<0x") && token.back() == '>' &&
            hex_digit(token[3]) >= 0 && hex_digit(token[4]) >= 0) {
          pending += static_cast<char>(hex_digit(token[3]) * 16 + hex_digit(token[4]));
        } else {
          flush();
          out.push_back(std::move(token));
        }
      }
      flush();
      return out;
    }
    case Kind::fuse: {
      std::string joined;
      for (const std::string& token : tokens) joined += token;
      return {joined};
    }
    case Kind::strip: {
      const char32_t content = code_points(step.pattern)[0];
      for (std::string& token : tokens) {
        const std::vector<char32_t> chars = code_points(token);
        std::size_t start_cut = 0;
        for (std::size_t i = 0; i < step.start && i < chars.size() && chars[i] == content; ++i) {
          start_cut = i + 1;
        }
        std::size_t stop_cut = chars.size();
        for (std::size_t i = 0; i < step.stop && i < chars.size(); ++i) {
          const std::size_t index = chars.size() - i - 1;
          if (chars[index] != content) break;
          stop_cut = index;
        }
        std::string stripped;
        for (std::size_t i = start_cut; i < stop_cut; ++i) append_utf8(stripped, chars[i]);
        token = std::move(stripped);
      }
      return tokens;
    }
    case Kind::metaspace: {
      for (std::size_t i = 0; i < tokens.size(); ++i) {
        // The first token loses every replacement character (the prepended space), others get ' '.
        tokens[i] = replace_all(tokens[i], step.pattern, i == 0 && step.strip_first ? "" : " ");
      }
      return tokens;
    }
  }
  return tokens;
}

std::string Decoder::decode(std::vector<std::string> tokens) const {
  std::string out;
  if (!present_) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) out += ' ';
      out += tokens[i];
    }
    return out;
  }
  for (const Step& step : steps_) tokens = apply(step, std::move(tokens));
  for (const std::string& token : tokens) out += token;
  return out;
}

}  // namespace ec::tok
