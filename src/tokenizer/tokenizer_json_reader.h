// Parses tokenizer.json in one streaming pass: model.vocab and model.merges go straight into
// BpeTables, everything else (small) becomes a JSON document.
#pragma once

#include "tokenizer/bpe_model.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace ec::tok {

struct TokenizerJson {
  nlohmann::json root;  // the whole file except model.vocab and model.merges
  BpeTables tables;
};

// Throws ec::Error naming `file` (and the JSON path where the content is wrong).
TokenizerJson read_tokenizer_json(std::string_view text, const std::string& file);

}  // namespace ec::tok
