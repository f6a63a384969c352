// check_run_inputs: the run's inputs checked before anything is loaded or measured.
#include "bench/preflight.h"

#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "model/loader.h"

namespace ec::bench {

tok::Tokenizer resolve_tokenizer(const RunOptions& options) {
  if (options.tokenizer) return tok::Tokenizer::load(*options.tokenizer);
  std::filesystem::path dir(options.model);
  std::error_code ignored;
  if (std::filesystem::is_directory(dir, ignored) &&
      std::filesystem::exists(dir / "tokenizer.json", ignored)) {
    return tok::Tokenizer::load(dir / "tokenizer.json");
  }
  return tok::Tokenizer::bytes();
}

void check_run_inputs(const RunOptions& options) {
  if (options.new_tokens < 1)
    fail_usage("--new-tokens must be at least 1 (got {})", options.new_tokens);
  if (options.iterations < 1)
    fail_usage("--iterations must be at least 1 (got {})", options.iterations);
  if (options.warmup < 0) fail_usage("--warmup must not be negative (got {})", options.warmup);
  const model::ModelConfig config = model::check_model(options.model);
  const tok::Tokenizer tokenizer = resolve_tokenizer(options);
  EC_CHECK(tokenizer.vocab_size() <= config.vocab_size,
           "the tokenizer has {} tokens but the model only {}: they do not belong together",
           tokenizer.vocab_size(), config.vocab_size);
  const size_t prompt_tokens = tokenizer.encode(options.prompt, true).size();
  EC_CHECK(prompt_tokens > 0, "the prompt encodes to no tokens");
  const int context = engine::kv_cache_length(config, options.engine);
  // Prefill holds the prompt; each of the new tokens but the last is decoded at a new position.
  EC_CHECK(static_cast<int64_t>(prompt_tokens) + options.new_tokens - 1 <= context,
           "the prompt ({} tokens) and --new-tokens {} do not fit the {}-token context of {}",
           prompt_tokens, options.new_tokens, context, options.model);
  if (options.quality && options.quality_text) {
    const std::string text =
        read_file_at_most(*options.quality_text, tok::kMaxTextBytes, "quality-probe text");
    EC_CHECK(!text.empty(), "{}: the quality text is empty", options.quality_text->string());
  }
}

}  // namespace ec::bench
