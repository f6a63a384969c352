// `ecocompute generate`: greedy decoding from a prompt, optionally dumping every prompt position's
// logits.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/token_ids.h"
#include "core/error.h"
#include "core/file_io.h"
#include "engine/engine.h"
#include "model/loader.h"
#include "tokenizer/tokenizer.h"

namespace ec::cli {
namespace {

struct GenerateFlags {
  EngineFlags engine;
  std::string precision = "FP16";
  std::string tokenizer;
  std::string prompt;
  std::string prompt_ids;
  int max_new_tokens = 32;
  bool json = false;
  bool stop_at_eos = false;
  std::string dump_logits;
};

tok::Tokenizer tokenizer_for(const GenerateFlags& flags) {
  if (!flags.tokenizer.empty()) return tok::Tokenizer::load(flags.tokenizer);
  std::filesystem::path candidate = std::filesystem::path(flags.engine.model) / "tokenizer.json";
  std::error_code ignored;
  if (std::filesystem::exists(candidate, ignored)) return tok::Tokenizer::load(candidate);
  return tok::Tokenizer::bytes();
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto flags = std::make_shared<GenerateFlags>();
  auto* cmd = app.add_subcommand(
      "generate", "Greedy decoding from a prompt (the tool for a misbehaving model)");
  add_engine_flags(*cmd, flags->engine);
  cmd->add_option("--precision", flags->precision, "FP16, BF16, INT8, INT8-WO, NF4 or NF4-DQ")
      ->capture_default_str();
  cmd->add_option("--tokenizer", flags->tokenizer,
                  "tokenizer.json (default: the checkpoint's, else one token per byte)");
  auto* prompt = cmd->add_option("--prompt", flags->prompt, "Prompt text");
  auto* ids = cmd->add_option("--prompt-ids", flags->prompt_ids, "Prompt as token ids: 1,2,3");
  prompt->excludes(ids);
  cmd->add_option("-n,--max-new-tokens", flags->max_new_tokens, "Tokens to generate")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--stop-at-eos", flags->stop_at_eos, "Stop at the model's end-of-sequence token");
  cmd->add_flag("--json", flags->json, "Print prompt and generated ids (and text) as JSON");
  cmd->add_option("--dump-logits", flags->dump_logits,
                  "Write the logits of every prompt position to this JSON file");
  cmd->callback([flags, prompt, ids] {
    if (prompt->count() == 0 && ids->count() == 0)
      throw UsageError("generate: give --prompt or --prompt-ids");
    engine::EngineOptions options = to_engine_options(flags->engine);
    options.precision = engine::parse_precision(flags->precision);
    auto weights = model::load_model(flags->engine.model, flags->engine.seed);
    tok::Tokenizer tokenizer = tokenizer_for(*flags);
    std::vector<int32_t> prompt_ids = ids->count() > 0
                                          ? parse_token_ids(flags->prompt_ids, "--prompt-ids")
                                          : tokenizer.encode(flags->prompt, true);
    if (prompt_ids.empty() && ids->count() > 0) {
      fail_usage("--prompt-ids '{}': no token ids (give at least one)", flags->prompt_ids);
    }
    EC_CHECK(!prompt_ids.empty(), "generate: the prompt has no tokens");
    const int vocab = weights->config.vocab_size;
    for (int32_t id : prompt_ids) {
      if (id >= vocab)
        fail_usage("--prompt-ids: token {} is outside the vocabulary (size {})", id, vocab);
    }
    options.decode_length =
        static_cast<int>(prompt_ids.size()) + std::max(flags->max_new_tokens, 0);
    auto engine = engine::make_engine(weights, options);

    std::vector<int32_t> generated;
    if (!flags->dump_logits.empty()) {
      auto logits = engine->forward(prompt_ids, true);
      nlohmann::json dump = {{"model", weights->config.name},
                             {"precision", engine->info().precision},
                             {"prompt_ids", prompt_ids},
                             {"vocab_size", vocab},
                             {"logits", nlohmann::json::array()}};
      for (size_t p = 0; p < prompt_ids.size(); ++p) {
        dump["logits"].push_back(
            std::vector<float>(logits.begin() + static_cast<std::ptrdiff_t>(p * vocab),
                               logits.begin() + static_cast<std::ptrdiff_t>((p + 1) * vocab)));
      }
      int32_t next = engine::argmax(logits.subspan((prompt_ids.size() - 1) * vocab, vocab));
      write_file_atomic(flags->dump_logits, dump.dump());
      if (flags->max_new_tokens > 0) {
        generated.push_back(next);
        int32_t stop = flags->stop_at_eos ? weights->config.eos_token_id : -1;
        while (static_cast<int>(generated.size()) < flags->max_new_tokens && next != stop) {
          next = engine->decode_greedy(next);
          generated.push_back(next);
        }
      }
    } else {
      generated = engine::generate_greedy(*engine, prompt_ids, flags->max_new_tokens,
                                          flags->stop_at_eos ? weights->config.eos_token_id : -1);
    }
    std::string text = tokenizer.decode(generated);
    if (flags->json) {
      nlohmann::json out = {
          {"prompt_ids", prompt_ids}, {"generated_ids", generated}, {"text", text}};
      fmt::print("{}\n", out.dump());
    } else {
      fmt::print("{}\n", text);
    }
  });
}

}  // namespace ec::cli
