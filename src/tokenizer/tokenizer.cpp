// Tokenizer: loads tokenizer.json into its components and runs tokenizers' encode/decode pipeline.
#include "tokenizer/tokenizer.h"

#include "core/error.h"
#include "core/file_io.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/decoder.h"
#include "tokenizer/json_where.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/tokenizer_json_reader.h"
#include "tokenizer/utf8.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

namespace ec::tok {

struct Tokenizer::Impl {
  bool raw_bytes = false;
  std::string kind;
  std::optional<BpeModel> model;
  Normalizer normalizer;
  PreTokenizer pre_tokenizer;
  Decoder decoder;
  PostProcessor post_processor;
  AddedTokenMatcher raw_matcher;         // added tokens with normalized = false
  AddedTokenMatcher normalized_matcher;  // added tokens with normalized = true
  std::unordered_map<int32_t, std::string> added_by_id;
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> added_by_content;
  std::unordered_set<std::string> special_contents;
  int vocab_size = 0;
  std::optional<int32_t> bos;
  std::optional<int32_t> eos;

  std::optional<int32_t> find(std::string_view token) const {
    const auto it = added_by_content.find(token);
    if (it != added_by_content.end()) return it->second;
    return model ? model->token_to_id(token) : std::nullopt;
  }
  void encode_normalized(std::string text, bool at_origin, std::vector<int32_t>& ids) const;
};

namespace {

std::vector<AddedToken> parse_added_tokens(const nlohmann::json& root, const JsonWhere& where) {
  std::vector<AddedToken> tokens;
  const auto it = root.find("added_tokens");
  if (it == root.end() || it->is_null()) return tokens;
  if (!it->is_array()) where.fail("expected an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const JsonWhere at = where[i];
    const auto& item = (*it)[i];
    AddedToken token;
    const auto& id = at.member(item, "id");
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= kMaxVocabSize) {
      (at / "id").fail(fmt::format("expected an id in [0, {})", kMaxVocabSize));
    }
    token.id = static_cast<int32_t>(id.get<int64_t>());
    token.content = at.string_member(item, "content");
    if (token.content.empty()) (at / "content").fail("empty token");
    token.special = at.bool_member(item, "special", false);
    token.lstrip = at.bool_member(item, "lstrip", false);
    token.rstrip = at.bool_member(item, "rstrip", false);
    token.single_word = at.bool_member(item, "single_word", false);
    token.normalized = at.bool_member(item, "normalized", !token.special);
    tokens.push_back(std::move(token));
  }
  return tokens;
}

// tokenizer_config.json writes a token as "<s>", {"content": "<s>", ...} or null.
std::optional<std::string> config_token(const nlohmann::json& config, std::string_view key,
                                        const JsonWhere& where) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return (where / key).string_member(*it, "content");
}

void read_config(const std::filesystem::path& path, Tokenizer::Impl& impl) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return;
  const JsonWhere where(path.string(), "");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(
        read_file_at_most(path, kMaxTokenizerConfigBytes, "tokenizer_config.json"));
  } catch (const nlohmann::json::exception& e) {
    where.fail(fmt::format("not valid JSON ({})", e.what()));
  }
  if (!config.is_object()) where.fail("expected a JSON object");
  const auto resolve = [&](std::string_view key, std::optional<int32_t>& out) {
    if (!config.contains(key)) return;
    out.reset();
    if (const auto name = config_token(config, key, where)) {
      out = impl.find(*name);
      if (!out) (where / key).fail(fmt::format("'{}' is not in the tokenizer's vocabulary", *name));
    }
  };
  resolve("bos_token", impl.bos);
  resolve("eos_token", impl.eos);
}

}  // namespace

Tokenizer Tokenizer::load(const std::filesystem::path& tokenizer_json) {
  const std::string file = tokenizer_json.string();
  const std::string text =
      read_file_at_most(tokenizer_json, kMaxTokenizerFileBytes, "tokenizer file");
  TokenizerJson parsed = read_tokenizer_json(text, file);
  const nlohmann::json& root = parsed.root;
  const JsonWhere top(file, "");
  if (!root.is_object()) top.fail("expected a JSON object");
  for (const char* key : {"truncation", "padding"}) {
    if (root.contains(key) && !root[key].is_null()) {
      (top / key).fail("must be null: truncation and padding are not supported");
    }
  }
  const auto component = [&root](const char* key) -> const nlohmann::json& {
    static const nlohmann::json null_json;
    const auto it = root.find(key);
    return it == root.end() ? null_json : *it;
  };

  auto impl = std::make_shared<Impl>();
  impl->model.emplace(BpeModel::from_json(top.member(root, "model"), std::move(parsed.tables),
                                          top / "model", kMaxVocabSize));
  impl->normalizer = Normalizer::from_json(component("normalizer"), top / "normalizer");
  impl->pre_tokenizer = PreTokenizer::from_json(component("pre_tokenizer"), top / "pre_tokenizer");
  impl->decoder = Decoder::from_json(component("decoder"), top / "decoder");
  impl->post_processor =
      PostProcessor::from_json(component("post_processor"), top / "post_processor");

  std::vector<AddedToken> raw;
  std::vector<std::string> raw_patterns;
  std::vector<AddedToken> normalized;
  std::vector<std::string> normalized_patterns;
  int added_outside_vocab = 0;
  for (AddedToken& token : parse_added_tokens(root, top / "added_tokens")) {
    if (!impl->model->token_to_id(token.content) &&
        !impl->added_by_content.contains(token.content)) {
      ++added_outside_vocab;
    }
    impl->added_by_id[token.id] = token.content;
    impl->added_by_content[token.content] = token.id;
    if (token.special) impl->special_contents.insert(token.content);
    if (token.normalized) {
      // tokenizers matches these in normalized text, so it normalizes their content too.
      normalized_patterns.push_back(impl->normalizer.apply(token.content));
      normalized.push_back(std::move(token));
    } else {
      raw_patterns.push_back(token.content);
      raw.push_back(std::move(token));
    }
  }
  impl->raw_matcher = AddedTokenMatcher(std::move(raw), std::move(raw_patterns));
  impl->normalized_matcher =
      AddedTokenMatcher(std::move(normalized), std::move(normalized_patterns));
  impl->vocab_size = impl->model->vocab_entries() + added_outside_vocab;
  if (impl->vocab_size > kMaxVocabSize) {
    top.fail(fmt::format("{} tokens, more than the limit of {}", impl->vocab_size, kMaxVocabSize));
  }

  if (impl->pre_tokenizer.uses_byte_level()) {
    impl->kind = "byte-level-bpe";
  } else if (impl->pre_tokenizer.uses_metaspace() || impl->normalizer.uses_metaspace() ||
             impl->model->byte_fallback()) {
    impl->kind = "sentencepiece-bpe";
  } else {
    impl->kind = "bpe";
  }

  const auto& prefix = impl->post_processor.prefix();
  const auto& suffix = impl->post_processor.suffix();
  if (!prefix.empty()) impl->bos = prefix.front();
  if (!suffix.empty()) {
    impl->eos = suffix.back();
  } else {
    for (const char* name : {"</s>", "<|endoftext|>", "<|end_of_text|>", "<eos>"}) {
      if (impl->special_contents.contains(name)) {
        impl->eos = impl->added_by_content.at(name);
        break;
      }
    }
  }
  read_config(tokenizer_json.parent_path() / "tokenizer_config.json", *impl);
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::bytes() {
  auto impl = std::make_shared<Impl>();
  impl->raw_bytes = true;
  impl->kind = "bytes";
  impl->vocab_size = 256;
  return Tokenizer(std::move(impl));
}

void Tokenizer::Impl::encode_normalized(std::string text, bool at_origin,
                                        std::vector<int32_t>& ids) const {
  std::vector<Piece> pieces;
  pieces.push_back({std::move(text), at_origin});
  pre_tokenizer.apply(pieces);
  for (const Piece& piece : pieces) model->encode_word(piece.text, ids);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  if (text.size() > kMaxTextBytes) {
    ec::fail("tokenizer input: {} bytes, more than the limit of {} bytes per encode", text.size(),
             kMaxTextBytes);
  }
  std::vector<int32_t> ids;
  if (impl_->raw_bytes) {
    ids.reserve(text.size());
    for (const char c : text) ids.push_back(static_cast<unsigned char>(c));
    return ids;
  }
  if (const auto bad = find_invalid_utf8(text)) {
    ec::fail("tokenizer input: not valid UTF-8 at byte {}", *bad);
  }
  ids.reserve(text.size() / 3 + 8);
  // Added tokens first, on the raw text; each span between them is normalized on its own.
  for (const auto& span : impl_->raw_matcher.split(text)) {
    if (span.id >= 0) {
      ids.push_back(span.id);
      continue;
    }
    std::string normalized =
        impl_->normalizer.apply(std::string(text.substr(span.begin, span.end - span.begin)));
    const bool at_origin = span.begin == 0;
    if (impl_->normalized_matcher.empty()) {
      impl_->encode_normalized(std::move(normalized), at_origin, ids);
      continue;
    }
    for (const auto& part : impl_->normalized_matcher.split(normalized)) {
      if (part.id >= 0) {
        ids.push_back(part.id);
      } else {
        impl_->encode_normalized(normalized.substr(part.begin, part.end - part.begin),
                                 at_origin && part.begin == 0, ids);
      }
    }
  }
  if (add_special_tokens) impl_->post_processor.apply(ids);
  return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  if (impl_->raw_bytes) {
    std::string bytes;
    for (const int32_t id : ids) {
      if (id >= 0 && id < 256) bytes += static_cast<char>(id);
    }
    return utf8_lossy(bytes);
  }
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    const std::string* token = nullptr;
    if (const auto it = impl_->added_by_id.find(id); it != impl_->added_by_id.end()) {
      token = &it->second;
    } else {
      token = impl_->model->id_to_token(id);
    }
    if (token == nullptr) continue;
    if (skip_special_tokens && impl_->special_contents.contains(*token)) continue;
    tokens.push_back(*token);
  }
  return impl_->decoder.decode(std::move(tokens));
}

bool Tokenizer::knows_id(int32_t id) const {
  if (impl_->raw_bytes) return id >= 0 && id < 256;
  return impl_->added_by_id.contains(id) || impl_->model->id_to_token(id) != nullptr;
}

int Tokenizer::vocab_size() const {
  return impl_->vocab_size;
}
std::optional<int32_t> Tokenizer::bos_id() const {
  return impl_->bos;
}
std::optional<int32_t> Tokenizer::eos_id() const {
  return impl_->eos;
}
std::string Tokenizer::kind() const {
  return impl_->kind;
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (impl_->raw_bytes) return std::nullopt;
  return impl_->find(token);
}

}  // namespace ec::tok
