// `ecocompute tokenize`: text → ids (or ids → text with --decode) with a tokenizer.json.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/token_ids.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/utf8.h"
#include "tokenizer/tokenizer.h"

namespace ec::cli {
namespace {

struct TokenizeFlags {
  std::string tokenizer;
  std::string text;
  std::string text_file;
  bool json = false;
  bool decode = false;
  bool no_special = false;
};

}  // namespace

void add_tokenize_command(CLI::App& app) {
  auto flags = std::make_shared<TokenizeFlags>();
  auto* cmd = app.add_subcommand("tokenize",
                                 "Encode text to token ids (or decode ids) with a tokenizer.json");
  cmd->add_option("--tokenizer", flags->tokenizer, "Hugging Face tokenizer.json (or 'bytes')")
      ->required();
  auto* text = cmd->add_option("--text", flags->text, "Text to encode (ids with --decode)");
  auto* file = cmd->add_option("--text-file", flags->text_file,
                               "File whose contents to encode (- reads standard input)");
  text->excludes(file);
  cmd->add_flag("--json", flags->json, "Print a JSON array (encode) or JSON string (decode)");
  cmd->add_flag("--decode", flags->decode,
                "Input is ids (\"1,2,3\" or a JSON array); print the text");
  cmd->add_flag("--no-special", flags->no_special,
                "Encode without the post-processor's special tokens (e.g. Llama's <s>)");
  cmd->callback([flags, text, file] {
    if (text->count() == 0 && file->count() == 0) {
      throw UsageError("tokenize: give --text or --text-file");
    }
    std::string input = flags->text_file.empty()
                            ? flags->text
                            : read_file_at_most(input_path(flags->text_file), tok::kMaxTextBytes,
                                                "text to tokenize");
    tok::Tokenizer tokenizer = flags->tokenizer == "bytes" ? tok::Tokenizer::bytes()
                                                           : tok::Tokenizer::load(flags->tokenizer);
    if (flags->decode) {
      const std::vector<int32_t> ids = parse_token_ids(input, "--decode input");
      for (const int32_t id : ids) {
        if (!tokenizer.knows_id(id)) {
          fail("--decode input: token id {} is not in {} (ids 0 to {})", id, flags->tokenizer,
               tokenizer.vocab_size() - 1);
        }
      }
      std::string decoded = tokenizer.decode(ids);
      fmt::print("{}\n", flags->json ? nlohmann::json(decoded).dump() : decoded);
      return;
    }
    // Text is UTF-8 for every tokenizer, "bytes" included: bytes that are not would be encoded as
    // something no model was trained to read.
    if (const auto bad = find_invalid_utf8(input)) {
      fail("{}: not valid UTF-8 at byte {} (the text to encode must be UTF-8)",
           flags->text_file.empty() ? std::string("--text") : flags->text_file, *bad);
    }
    std::vector<int32_t> ids = tokenizer.encode(input, !flags->no_special);
    if (flags->json) {
      fmt::print("{}\n", nlohmann::json(ids).dump());
    } else {
      fmt::print("{}\n", fmt::join(ids, " "));
    }
  });
}

}  // namespace ec::cli
