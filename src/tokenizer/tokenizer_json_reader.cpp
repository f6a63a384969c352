// A SAX handler that builds a JSON document for tokenizer.json but streams the two big tables.
#include "tokenizer/tokenizer_json_reader.h"

#include "core/error.h"
#include "tokenizer/json_where.h"
#include "tokenizer/tokenizer.h"

#include <vector>

namespace ec::tok {
namespace {

class Reader : public nlohmann::json_sax<nlohmann::json> {
 public:
  Reader(TokenizerJson& out, const std::string& file) : out_(out), file_(file) {}

  bool null() override { return scalar(nullptr); }
  bool boolean(bool value) override { return scalar(value); }
  bool number_integer(number_integer_t value) override { return scalar(value); }
  bool number_unsigned(number_unsigned_t value) override { return scalar(value); }
  bool number_float(number_float_t value, const string_t&) override { return scalar(value); }
  bool binary(binary_t&) override { return fail_here("unexpected binary value"); }

  bool string(string_t& value) override {
    if (stack_.empty() || stack_.back().mode == Mode::dom) return scalar(std::move(value));
    Frame& top = stack_.back();
    if (top.mode == Mode::pair) {
      if (pair_.size() == 2) fail_merge("expected [\"left\", \"right\"]");
      pair_.push_back(std::move(value));
      return true;
    }
    if (top.mode == Mode::merges) {
      // "left right": tokens never contain a space in this older form.
      const std::size_t space = value.find(' ');
      if (space == std::string::npos || value.find(' ', space + 1) != std::string::npos) {
        fail_merge("expected \"left right\" with exactly one space");
      }
      out_.tables.merges.emplace_back(value.substr(0, space), value.substr(space + 1));
      ++top.index;
      return true;
    }
    where().fail(fmt::format("expected an integer id for '{}'", key_));
  }

  bool key(string_t& value) override {
    key_ = std::move(value);
    return true;
  }

  bool start_object(std::size_t) override {
    check_depth();
    if (!stack_.empty() && stack_.back().mode != Mode::dom) {
      if (stack_.back().mode == Mode::vocab) where().fail("expected an integer id");
      fail_merge("expected \"left right\" or [\"left\", \"right\"]");
    }
    if (in_model() && key_ == "vocab") {
      out_.tables.has_vocab = true;
      stack_.push_back({Mode::vocab, nullptr, false, 0});
      return true;
    }
    const bool is_model = stack_.size() == 1 && key_ == "model";
    stack_.push_back({Mode::dom, insert(nlohmann::json::object()), is_model, 0});
    return true;
  }

  bool end_object() override {
    stack_.pop_back();
    return true;
  }

  bool start_array(std::size_t) override {
    check_depth();
    if (!stack_.empty() && stack_.back().mode == Mode::merges) {
      pair_.clear();
      stack_.push_back({Mode::pair, nullptr, false, 0});
      return true;
    }
    if (!stack_.empty() && stack_.back().mode != Mode::dom) {
      if (stack_.back().mode == Mode::vocab) where().fail("expected an integer id");
      fail_merge("expected [\"left\", \"right\"]");
    }
    if (in_model() && key_ == "merges") {
      out_.tables.has_merges = true;
      stack_.push_back({Mode::merges, nullptr, false, 0});
      return true;
    }
    if (in_model() && key_ == "vocab") where().fail("expected an object of token → id");
    stack_.push_back({Mode::dom, insert(nlohmann::json::array()), false, 0});
    return true;
  }

  bool end_array() override {
    const Mode mode = stack_.back().mode;
    stack_.pop_back();
    if (mode == Mode::pair) {
      if (pair_.size() != 2) fail_merge("expected [\"left\", \"right\"]");
      out_.tables.merges.emplace_back(std::move(pair_[0]), std::move(pair_[1]));
      ++stack_.back().index;
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    ec::fail("{}: not valid JSON ({})", file_, e.what());
  }

 private:
  enum class Mode { dom, vocab, merges, pair };
  struct Frame {
    Mode mode;
    nlohmann::json* node;  // the container being filled (dom frames only)
    bool is_model;         // the top-level "model" object
    std::size_t index;     // merges: entries read so far
  };

  // Real files nest about 6 levels; each level of a nested Sequence costs its loader a copy of
  // the JSON path so far, so unbounded depth costs memory quadratic in the file's size.
  void check_depth() const {
    if (stack_.size() >= static_cast<std::size_t>(kMaxTokenizerJsonNesting)) {
      ec::fail("{}: nested deeper than the limit of {} levels", file_, kMaxTokenizerJsonNesting);
    }
  }

  bool in_model() const { return stack_.size() == 2 && stack_.back().is_model; }

  JsonWhere where() const {
    if (!stack_.empty() && stack_.back().mode == Mode::vocab) {
      return JsonWhere(file_, "model.vocab") / key_;
    }
    return JsonWhere(file_, "model");
  }

  [[noreturn]] void fail_merge(std::string_view what) const {
    const Frame& merges =
        stack_.back().mode == Mode::pair ? stack_[stack_.size() - 2] : stack_.back();
    JsonWhere(file_, "model.merges")[merges.index].fail(what);
  }

  bool fail_here(std::string_view what) const { JsonWhere(file_, "").fail(what); }

  // Adds a value to the container on top of the stack (or makes it the root).
  nlohmann::json* insert(nlohmann::json value) {
    if (stack_.empty()) {
      out_.root = std::move(value);
      return &out_.root;
    }
    nlohmann::json& container = *stack_.back().node;
    if (container.is_object()) {
      auto& slot = container[key_];
      slot = std::move(value);
      return &slot;
    }
    container.push_back(std::move(value));
    return &container.back();
  }

  template <class T>
  bool scalar(T&& value) {
    if (stack_.empty() || stack_.back().mode == Mode::dom) {
      insert(nlohmann::json(std::forward<T>(value)));
      return true;
    }
    if (stack_.back().mode == Mode::vocab) {
      if constexpr (std::is_integral_v<std::decay_t<T>> && !std::is_same_v<std::decay_t<T>, bool>) {
        out_.tables.vocab.emplace_back(std::move(key_), static_cast<int64_t>(value));
        return true;
      }
      where().fail("expected an integer id");
    }
    fail_merge("expected a string");
  }

  TokenizerJson& out_;
  const std::string& file_;
  std::vector<Frame> stack_;
  std::string key_;
  std::vector<std::string> pair_;
};

}  // namespace

TokenizerJson read_tokenizer_json(std::string_view text, const std::string& file) {
  TokenizerJson out;
  Reader reader(out, file);
  nlohmann::json::sax_parse(text, &reader);
  return out;
}

}  // namespace ec::tok
