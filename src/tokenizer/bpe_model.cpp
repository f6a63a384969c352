// Byte-pair encoding with the exact merge order of tokenizers' Word::merge_all (a rank/position
// heap).
#include "tokenizer/bpe_model.h"

#include "core/error.h"
#include "tokenizer/utf8.h"

#include <nlohmann/json.hpp>

#include <mutex>
#include <queue>

namespace ec::tok {
namespace {

// Words are cached up to these sizes (tokenizers uses the same bounds); longer ones are recomputed.
constexpr std::size_t kCacheMaxWordBytes = 256;
constexpr std::size_t kCacheMaxWords = 10000;

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

std::optional<std::string> optional_string(const nlohmann::json& model, std::string_view key,
                                           const JsonWhere& where) {
  const auto it = model.find(key);
  if (it == model.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) (where / key).fail("expected a string or null");
  return it->get<std::string>();
}

}  // namespace

struct BpeModel::Cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> words;
};

BpeModel::BpeModel() : cache_(std::make_unique<Cache>()) {
  byte_token_.fill(-1);
}
BpeModel::BpeModel(BpeModel&&) noexcept = default;
BpeModel& BpeModel::operator=(BpeModel&&) noexcept = default;
BpeModel::~BpeModel() = default;

BpeModel BpeModel::from_json(const nlohmann::json& model, BpeTables tables, const JsonWhere& where,
                             int max_vocab) {
  if (!model.is_object()) where.fail("expected a JSON object");
  // Very old files omit "type"; a vocab with merges is then a BPE model.
  const std::string type = model.contains("type") ? where.type_of(model) : "BPE";
  if (type != "BPE") where.unsupported("model", type);
  const auto dropout = model.find("dropout");
  if (dropout != model.end() && !dropout->is_null() &&
      !(dropout->is_number() && dropout->get<double>() == 0.0)) {
    (where / "dropout").fail("BPE dropout is not supported (it makes encoding random)");
  }
  if (!tables.has_vocab) (where / "vocab").fail("missing field");
  if (!tables.has_merges) (where / "merges").fail("missing field");

  BpeModel bpe;
  const JsonWhere vocab_where = where / "vocab";
  if (tables.vocab.size() > static_cast<std::size_t>(max_vocab)) {
    vocab_where.fail(
        fmt::format("{} tokens, more than the limit of {}", tables.vocab.size(), max_vocab));
  }
  bpe.vocab_.reserve(tables.vocab.size());
  int32_t max_id = -1;
  for (auto& [token, id] : tables.vocab) {
    if (id < 0 || id >= max_vocab) {
      (vocab_where / token).fail(fmt::format("expected an id in [0, {})", max_vocab));
    }
    const auto value = static_cast<int32_t>(id);
    bpe.vocab_.insert_or_assign(std::move(token), value);
    max_id = std::max(max_id, value);
  }
  bpe.token_of_id_.assign(static_cast<std::size_t>(max_id + 1), nullptr);
  for (const auto& [token, id] : bpe.vocab_) {
    const std::string*& slot = bpe.token_of_id_[static_cast<std::size_t>(id)];
    // Two tokens on one id would make decoding depend on the hash map's order.
    if (slot != nullptr) {
      const auto& [first, second] = std::minmax(*slot, token);
      (vocab_where / second).fail(fmt::format("id {} is also the id of '{}'", id, first));
    }
    slot = &token;
  }

  bpe.continuing_subword_prefix_ = optional_string(model, "continuing_subword_prefix", where);
  bpe.end_of_word_suffix_ = optional_string(model, "end_of_word_suffix", where);
  bpe.fuse_unk_ = where.bool_member(model, "fuse_unk", false);
  bpe.byte_fallback_ = where.bool_member(model, "byte_fallback", false);
  bpe.ignore_merges_ = where.bool_member(model, "ignore_merges", false);
  if (const auto unk = optional_string(model, "unk_token", where)) {
    const auto id = bpe.token_to_id(*unk);
    if (!id) (where / "unk_token").fail(fmt::format("'{}' is not in model.vocab", *unk));
    bpe.unk_id_ = *id;
  }
  for (std::size_t b = 0; b < 256; ++b) {
    if (const auto id = bpe.token_to_id(fmt::format("<0x{:02X}>", b))) bpe.byte_token_[b] = *id;
  }

  const JsonWhere merges_where = where / "merges";
  const std::size_t prefix_length =
      bpe.continuing_subword_prefix_ ? bpe.continuing_subword_prefix_->size() : 0;
  bpe.merges_.reserve(tables.merges.size());
  std::string merged;
  for (std::size_t i = 0; i < tables.merges.size(); ++i) {
    const auto& [left, right] = tables.merges[i];
    const auto left_id = bpe.token_to_id(left);
    const auto right_id = bpe.token_to_id(right);
    if (!left_id || !right_id) {
      merges_where[i].fail(fmt::format("'{}' is not in model.vocab", !left_id ? left : right));
    }
    if (right.size() < prefix_length) {
      merges_where[i].fail("right part is shorter than continuing_subword_prefix");
    }
    merged.assign(left).append(right, prefix_length);
    const auto merged_id = bpe.token_to_id(merged);
    if (!merged_id) merges_where[i].fail(fmt::format("merged '{}' is not in model.vocab", merged));
    // Like tokenizers' HashMap collect, a repeated pair keeps its last rank.
    bpe.merges_[pair_key(*left_id, *right_id)] = {static_cast<int32_t>(i), *merged_id};
  }
  return bpe;
}

std::optional<int32_t> BpeModel::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= token_of_id_.size()) return nullptr;
  return token_of_id_[static_cast<std::size_t>(id)];
}

void BpeModel::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    if (const auto id = token_to_id(word)) {
      out.push_back(*id);
      return;
    }
  }
  const bool cacheable = word.size() < kCacheMaxWordBytes;
  if (cacheable) {
    std::lock_guard lock(cache_->mutex);
    const auto it = cache_->words.find(word);
    if (it != cache_->words.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const std::size_t first = out.size();
  merge_word(word, out);
  if (cacheable) {
    std::lock_guard lock(cache_->mutex);
    if (cache_->words.size() < kCacheMaxWords) {
      cache_->words.emplace(
          std::string(word),
          std::vector<int32_t>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
    }
  }
}

void BpeModel::merge_word(std::string_view word, std::vector<int32_t>& out) const {
  struct Symbol {
    int32_t id;
    int32_t prev;
    int32_t next;
    uint32_t length;  // bytes of the word it covers; 0 once merged into its left neighbour
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  const auto add = [&symbols](int32_t id, std::size_t length) {
    const auto index = static_cast<int32_t>(symbols.size());
    if (!symbols.empty()) symbols.back().next = index;
    symbols.push_back({id, index - 1, -1, static_cast<uint32_t>(length)});
  };

  // An unknown character waiting to be added (fused with the next one when fuse_unk is on).
  bool has_unk = false;
  std::size_t unk_length = 0;
  std::string piece;
  for (std::size_t pos = 0; pos < word.size();) {
    const std::size_t length = utf8_char_length(static_cast<unsigned char>(word[pos]));
    const bool is_first = pos == 0;
    const bool is_last = pos + length >= word.size();
    piece.clear();
    if (!is_first && continuing_subword_prefix_) piece += *continuing_subword_prefix_;
    piece.append(word.substr(pos, length));
    if (is_last && end_of_word_suffix_) piece += *end_of_word_suffix_;
    pos += length;

    if (const auto id = token_to_id(piece)) {
      if (has_unk) {
        add(*unk_id_, unk_length);
        has_unk = false;
      }
      add(*id, length);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (const char b : piece) all = all && byte_token_[static_cast<unsigned char>(b)] >= 0;
      if (all) {
        for (const char b : piece) add(byte_token_[static_cast<unsigned char>(b)], 1);
        continue;
      }
    }
    if (unk_id_) {
      if (has_unk && fuse_unk_) {
        unk_length += length;
      } else {
        if (has_unk) add(*unk_id_, unk_length);
        has_unk = true;
        unk_length = length;
      }
    }
    // Without an unk token, tokenizers drops a character it cannot represent.
  }
  if (has_unk) add(*unk_id_, unk_length);

  struct Merge {
    int32_t pos;
    int32_t rank;
    int32_t new_id;
    // Lowest rank first, then leftmost: std::priority_queue pops the "largest".
    bool operator<(const Merge& other) const {
      return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
  };
  std::priority_queue<Merge> queue;
  const auto find_merge = [this](int32_t left, int32_t right) -> const MergeTarget* {
    const auto it = merges_.find(pair_key(left, right));
    return it == merges_.end() ? nullptr : &it->second;
  };
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
    if (const MergeTarget* m = find_merge(symbols[i].id, symbols[i + 1].id)) {
      queue.push({static_cast<int32_t>(i), m->rank, m->new_id});
    }
  }
  while (!queue.empty()) {
    const Merge top = queue.top();
    queue.pop();
    Symbol& current = symbols[static_cast<std::size_t>(top.pos)];
    if (current.length == 0 || current.next == -1) continue;
    const auto next_pos = static_cast<std::size_t>(current.next);
    const Symbol right = symbols[next_pos];
    // An entry is stale when the pair at its position no longer merges into the same token.
    const MergeTarget* still = find_merge(current.id, right.id);
    if (still == nullptr || still->new_id != top.new_id) continue;

    current.id = top.new_id;
    current.length += right.length;
    current.next = right.next;
    symbols[next_pos].length = 0;
    if (right.next >= 0) symbols[static_cast<std::size_t>(right.next)].prev = top.pos;

    if (current.prev >= 0) {
      const Symbol& previous = symbols[static_cast<std::size_t>(current.prev)];
      if (const MergeTarget* m = find_merge(previous.id, current.id)) {
        queue.push({current.prev, m->rank, m->new_id});
      }
    }
    if (current.next >= 0) {
      const Symbol& following = symbols[static_cast<std::size_t>(current.next)];
      if (const MergeTarget* m = find_merge(current.id, following.id)) {
        queue.push({top.pos, m->rank, m->new_id});
      }
    }
  }
  for (const Symbol& s : symbols) {
    if (s.length != 0) out.push_back(s.id);
  }
}

}  // namespace ec::tok
