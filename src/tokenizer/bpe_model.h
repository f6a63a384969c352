// tokenizer.json "model" of type BPE: vocab, ranked merges, byte fallback, unk fusing, word cache.
#pragma once

#include "tokenizer/json_where.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ec::tok {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// model.vocab and model.merges, streamed out of tokenizer.json (151k entries each for Qwen:
// building them as JSON objects first would cost most of the load time).
struct BpeTables {
  bool has_vocab = false;
  bool has_merges = false;
  std::vector<std::pair<std::string, int64_t>> vocab;  // in file order
  std::vector<std::pair<std::string, std::string>> merges;
};

class BpeModel {
 public:
  // `model` holds the other fields of tokenizer.json's "model". Fails naming file and JSON path
  // for a non-BPE model, dropout, or merges naming unknown tokens.
  static BpeModel from_json(const nlohmann::json& model, BpeTables tables, const JsonWhere& where,
                            int max_vocab);
  BpeModel(BpeModel&&) noexcept;
  BpeModel& operator=(BpeModel&&) noexcept;
  ~BpeModel();

  // Appends the ids of one pre-tokenized word. Thread-safe; words are cached after the first time.
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;
  const std::string* id_to_token(int32_t id) const;  // nullptr when the id has no token
  int vocab_entries() const { return static_cast<int>(vocab_.size()); }
  bool byte_fallback() const { return byte_fallback_; }
  // All tokens by id, for the union with added tokens.
  const std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>& vocab() const {
    return vocab_;
  }

 private:
  BpeModel();
  void merge_word(std::string_view word, std::vector<int32_t>& out) const;

  struct MergeTarget {
    int32_t rank;
    int32_t new_id;
  };
  struct Cache;

  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> vocab_;
  std::vector<const std::string*> token_of_id_;  // points into vocab_ keys (stable in node maps)
  std::unordered_map<uint64_t, MergeTarget> merges_;  // (left id << 32 | right id) → merge
  std::optional<int32_t> unk_id_;
  std::optional<std::string> continuing_subword_prefix_;
  std::optional<std::string> end_of_word_suffix_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::array<int32_t, 256> byte_token_{};  // id of "<0xNN>", -1 when absent
  std::unique_ptr<Cache> cache_;
};

}  // namespace ec::tok
