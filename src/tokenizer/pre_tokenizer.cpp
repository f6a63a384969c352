// Pre-tokenizers: split normalized text into words the way tokenizers' PreTokenizedString does.
#include "tokenizer/pre_tokenizer.h"

#include "core/error.h"
#include "tokenizer/byte_level.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ec::tok {
namespace {

// GPT-2's split, used by ByteLevel when "use_regex" is true.
constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kMetaspace = "\xE2\x96\x81";  // ▁

std::vector<std::pair<std::size_t, std::size_t>> find_literal(std::string_view text,
                                                              std::string_view literal) {
  std::vector<std::pair<std::size_t, std::size_t>> hits;
  if (literal.empty()) return hits;
  for (std::size_t at = text.find(literal); at != std::string_view::npos;
       at = text.find(literal, at + literal.size())) {
    hits.emplace_back(at, at + literal.size());
  }
  return hits;
}

}  // namespace

void PreTokenizer::add(const nlohmann::json& component, const JsonWhere& where,
                       std::vector<Step>& out) {
  const std::string type = where.type_of(component);
  Step step{};
  if (type == "Sequence") {
    const JsonWhere list = where / "pretokenizers";
    const auto& items = where.member(component, "pretokenizers");
    if (!items.is_array()) list.fail("expected an array");
    for (std::size_t i = 0; i < items.size(); ++i) add(items[i], list[i], out);
    return;
  }
  if (type == "Split") {
    step.kind = Kind::split;
    const JsonWhere at = where / "pattern";
    const auto& pattern = where.member(component, "pattern");
    if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
      step.regex = std::make_shared<const Regex>(pattern["Regex"].get<std::string>(),
                                                 at.file() + ": " + at.path() + ".Regex");
    } else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
      step.literal = pattern["String"].get<std::string>();
      if (step.literal.empty()) (at / "String").fail("empty pattern");
    } else {
      at.fail("expected {\"Regex\": ...} or {\"String\": ...}");
    }
    const std::string behavior = where.string_member(component, "behavior");
    if (behavior == "Removed") {
      step.behavior = Behavior::removed;
    } else if (behavior == "Isolated") {
      step.behavior = Behavior::isolated;
    } else if (behavior == "MergedWithPrevious") {
      step.behavior = Behavior::merged_with_previous;
    } else if (behavior == "MergedWithNext") {
      step.behavior = Behavior::merged_with_next;
    } else if (behavior == "Contiguous") {
      step.behavior = Behavior::contiguous;
    } else {
      (where / "behavior").fail(fmt::format("unsupported split behavior '{}'", behavior));
    }
    step.invert = where.bool_member(component, "invert", false);
  } else if (type == "ByteLevel") {
    step.kind = Kind::byte_level;
    step.add_prefix_space = where.bool_member(component, "add_prefix_space", true);
    if (where.bool_member(component, "use_regex", true)) {
      step.regex = std::make_shared<const Regex>(kGpt2Pattern, where.file() + ": " + where.path());
    }
  } else if (type == "Metaspace") {
    step.kind = Kind::metaspace;
    step.replacement = component.contains("replacement")
                           ? where.string_member(component, "replacement")
                           : std::string(kMetaspace);
    if (step.replacement.empty()) (where / "replacement").fail("empty replacement");
    step.split_on_replacement = where.bool_member(component, "split", true);
    if (component.contains("prepend_scheme")) {
      const std::string scheme = where.string_member(component, "prepend_scheme");
      if (scheme == "always") {
        step.prepend = Prepend::always;
      } else if (scheme == "first") {
        step.prepend = Prepend::first;
      } else if (scheme == "never") {
        step.prepend = Prepend::never;
      } else {
        (where / "prepend_scheme").fail(fmt::format("unsupported prepend scheme '{}'", scheme));
      }
    } else {
      // Files older than prepend_scheme say add_prefix_space instead.
      step.prepend =
          where.bool_member(component, "add_prefix_space", true) ? Prepend::always : Prepend::never;
    }
  } else {
    where.unsupported("pre_tokenizer", type);
  }
  out.push_back(std::move(step));
}

PreTokenizer PreTokenizer::from_json(const nlohmann::json& component, const JsonWhere& where) {
  PreTokenizer pre;
  if (!component.is_null()) add(component, where, pre.steps_);
  return pre;
}

// tokenizers' NormalizedString::split: the matches and the gaps between them cover the text; the
// behavior decides what becomes of the matched parts.
void PreTokenizer::split(const Piece& piece,
                         const std::vector<std::pair<std::size_t, std::size_t>>& hits,
                         Behavior behavior, bool invert, std::vector<Piece>& out) {
  struct Part {
    std::size_t begin, end;
    bool is_match;
  };
  std::vector<Part> parts;
  std::size_t prev = 0;
  for (const auto& [begin, end] : hits) {
    if (prev != begin) parts.push_back({prev, begin, invert});
    parts.push_back({begin, end, !invert});
    prev = end;
  }
  if (prev != piece.text.size()) parts.push_back({prev, piece.text.size(), invert});

  std::vector<std::pair<std::size_t, std::size_t>> spans;
  switch (behavior) {
    case Behavior::isolated:
      for (const Part& p : parts) spans.emplace_back(p.begin, p.end);
      break;
    case Behavior::removed:
      for (const Part& p : parts) {
        if (!p.is_match) spans.emplace_back(p.begin, p.end);
      }
      break;
    case Behavior::merged_with_previous: {
      bool previous_match = false;
      for (const Part& p : parts) {
        if (p.is_match && !previous_match && !spans.empty()) {
          spans.back().second = p.end;
        } else {
          spans.emplace_back(p.begin, p.end);
        }
        previous_match = p.is_match;
      }
      break;
    }
    case Behavior::merged_with_next: {
      bool previous_match = false;
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->is_match && !previous_match && !spans.empty()) {
          spans.back().first = it->begin;
        } else {
          spans.emplace_back(it->begin, it->end);
        }
        previous_match = it->is_match;
      }
      std::reverse(spans.begin(), spans.end());
      break;
    }
    case Behavior::contiguous: {
      bool previous_match = false;
      for (const Part& p : parts) {
        if (p.is_match && previous_match && !spans.empty()) {
          spans.back().second = p.end;
        } else {
          spans.emplace_back(p.begin, p.end);
        }
        previous_match = p.is_match;
      }
      break;
    }
  }
  for (const auto& [begin, end] : spans) {
    if (end > begin) {
      out.push_back({piece.text.substr(begin, end - begin), piece.at_origin && begin == 0});
    }
  }
}

void PreTokenizer::apply_step(const Step& step, std::vector<Piece>& pieces) const {
  std::vector<Piece> out;
  out.reserve(pieces.size());
  for (Piece& piece : pieces) {
    switch (step.kind) {
      case Kind::split: {
        const auto hits =
            step.regex ? step.regex->find_all(piece.text) : find_literal(piece.text, step.literal);
        split(piece, hits, step.behavior, step.invert, out);
        break;
      }
      case Kind::byte_level: {
        if (step.add_prefix_space && piece.text.rfind(' ', 0) != 0) piece.text = " " + piece.text;
        std::vector<Piece> words;
        if (step.regex) {
          split(piece, step.regex->find_all(piece.text), Behavior::isolated, false, words);
        } else if (!piece.text.empty()) {
          words.push_back(std::move(piece));
        }
        for (Piece& word : words) {
          Piece mapped{{}, word.at_origin};
          mapped.text.reserve(word.text.size() * 2);
          ByteLevelMap::get().encode(word.text, mapped.text);
          out.push_back(std::move(mapped));
        }
        break;
      }
      case Kind::metaspace: {
        std::string text;
        text.reserve(piece.text.size() + step.replacement.size());
        for (const char c : piece.text) {
          if (c == ' ') {
            text += step.replacement;
          } else {
            text += c;
          }
        }
        const bool starts = text.rfind(step.replacement, 0) == 0;
        if (!starts && (step.prepend == Prepend::always ||
                        (step.prepend == Prepend::first && piece.at_origin))) {
          text = step.replacement + text;
        }
        Piece replaced{std::move(text), piece.at_origin};
        if (step.split_on_replacement) {
          split(replaced, find_literal(replaced.text, step.replacement), Behavior::merged_with_next,
                false, out);
        } else if (!replaced.text.empty()) {
          out.push_back(std::move(replaced));
        }
        break;
      }
    }
  }
  pieces = std::move(out);
}

void PreTokenizer::apply(std::vector<Piece>& pieces) const {
  for (const Step& step : steps_) apply_step(step, pieces);
  std::erase_if(pieces, [](const Piece& p) { return p.text.empty(); });
}

bool PreTokenizer::uses_byte_level() const {
  for (const Step& step : steps_) {
    if (step.kind == Kind::byte_level) return true;
  }
  return false;
}

bool PreTokenizer::uses_metaspace() const {
  for (const Step& step : steps_) {
    if (step.kind == Kind::metaspace) return true;
  }
  return false;
}

}  // namespace ec::tok
