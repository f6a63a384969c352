// Hugging Face checkpoint directories: config.json + model.safetensors (or sharded with
// model.safetensors.index.json) ↔ ModelWeights, with every name and shape checked against the
// config.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "model/weights.h"

namespace ec::model {

// Loads a directory; weights stay in the file's dtype (F32/F16/BF16), zero-copy over the mmap.
// Missing, unexpected or mis-shaped tensors → ec::Error naming the tensor (and shard).
std::shared_ptr<const ModelWeights> load_checkpoint(const std::filesystem::path& dir);

// Writes config.json + model.safetensors into `dir` (created if needed), each atomically.
void save_checkpoint(const ModelWeights& weights, const std::filesystem::path& dir);

// The weights as checkpoint tensors under their Hugging Face names (lm_head.weight omitted when
// tied), in the order transformers writes them; the views share the weights' storage.
std::vector<Tensor> checkpoint_tensors(const ModelWeights& weights);

}  // namespace ec::model
