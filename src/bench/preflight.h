// What `run` and `sweep` check before the first joule is spent: the model, the tokenizer and that
// the two belong together, the prompt and its room in the context, the quality-probe text.
#pragma once

#include "bench/protocol.h"
#include "tokenizer/tokenizer.h"

namespace ec::bench {

// The tokenizer a run uses: --tokenizer, else the checkpoint's tokenizer.json, else one token per
// byte.
tok::Tokenizer resolve_tokenizer(const RunOptions& options);

// Throws ec::Error (ec::UsageError for a bad name or count) naming what is wrong, in well under a
// second and without reading weights, for anything run_protocol would otherwise fail on late.
void check_run_inputs(const RunOptions& options);

}  // namespace ec::bench
