// ec::tok::Tokenizer: Hugging Face tokenizer.json (byte-level BPE, SentencePiece BPE) or raw bytes.
//
// Encodes token for token like the Rust `tokenizers` library (checked against it by
// tests/tokenizer with golden ids). Supported components — anything else fails to load with an
// ec::Error naming the file and the JSON path of the component:
//   normalizer     NFC NFD NFKC NFKD Lowercase Prepend Replace Sequence
//   pre_tokenizer  Split (all behaviors) ByteLevel Metaspace Sequence
//   model          BPE (merges as "a b" or ["a", "b"], byte_fallback, fuse_unk, ignore_merges,
//                  continuing_subword_prefix, end_of_word_suffix; no dropout)
//   decoder        ByteLevel Replace ByteFallback Fuse Strip Metaspace Sequence
//   post_processor TemplateProcessing (single sequence) ByteLevel Sequence
//   added_tokens   matched in the raw (or normalized) text first, honouring special, lstrip,
//                  rstrip, single_word and normalized; "truncation" and "padding" must be null.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ec::tok {

// Limits; exceeding one is an ec::Error naming the file or the input.
inline constexpr std::size_t kMaxTokenizerFileBytes = std::size_t{128} << 20;  // Qwen3's: 11 MiB
inline constexpr int kMaxTokenizerJsonNesting = 64;                            // real files: ~6
inline constexpr int kMaxVocabSize = 1 << 20;                                  // Qwen: 151,669
inline constexpr std::size_t kMaxTextBytes = std::size_t{16} << 20;            // per encode() call
// tokenizer_config.json beside tokenizer.json: a few KB, up to ~100 KB with a chat template.
inline constexpr std::size_t kMaxTokenizerConfigBytes = std::size_t{16} << 20;

class Tokenizer {
 public:
  // Reads tokenizer.json. A tokenizer_config.json beside it, when present, names bos/eos.
  static Tokenizer load(const std::filesystem::path& tokenizer_json);
  // For presets without a tokenizer: id = byte value (0..255), no special tokens.
  static Tokenizer bytes();

  // `text` must be valid UTF-8 (an ec::Error says where it is not) and at most kMaxTextBytes.
  // add_special_tokens applies the post-processor template (Llama: <s> first). Added tokens
  // written in the text ("<|im_end|>", "</s>") are always recognised, as tokenizers does.
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens = true) const;
  // Ids without a token are skipped, as tokenizers does; invalid UTF-8 becomes U+FFFD.
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = false) const;

  // Distinct tokens of the model vocabulary and the added tokens (tokenizers'
  // get_vocab_size(with_added_tokens=True)); the embedding table may be larger.
  int vocab_size() const;
  // Whether decode() has a token for `id` (an added token or one of the model's vocab).
  bool knows_id(int32_t id) const;
  // bos: tokenizer_config.json's bos_token, else the first token the template puts before the
  // text. eos: tokenizer_config.json's eos_token, else the last the template puts after it, else
  // the first special added token among </s>, <|endoftext|>, <|end_of_text|>, <eos>.
  std::optional<int32_t> bos_id() const;
  std::optional<int32_t> eos_id() const;
  // "byte-level-bpe", "sentencepiece-bpe", "bpe" (other BPE) or "bytes".
  std::string kind() const;
  std::optional<int32_t> token_to_id(std::string_view token) const;

  struct Impl;

 private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // immutable once loaded: copies and moves are cheap
};

}  // namespace ec::tok
