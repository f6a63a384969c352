// A model's weights in memory, named by role rather than by checkpoint key; storage kept alive by
// `owner`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "model/config.h"

namespace ec::model {

// A dense row-major tensor view. `owner` keeps the bytes alive (an mmap'd file or a heap buffer).
struct Tensor {
  std::string name;  // the checkpoint key, for error messages
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  const std::byte* data = nullptr;
  size_t nbytes = 0;
  std::shared_ptr<const void> owner;

  int64_t numel() const;
  int64_t rows() const { return shape.empty() ? 1 : shape.front(); }
  // The product of the dimensions after the first: 5 for [0, 5] (numel / rows would divide by 0).
  int64_t cols() const {
    int64_t c = 1;
    for (size_t i = 1; i < shape.size(); ++i) c *= shape[i];
    return c;
  }
  // Element i converted to float (f32/f16/bf16 only); for tests and slow paths.
  float at(int64_t i) const;
};

struct LayerWeights {
  Tensor attn_norm;                  // [hidden]
  Tensor wq, wk, wv, wo;             // [out, in] (PyTorch Linear layout)
  std::optional<Tensor> bq, bk, bv;  // Qwen2 only
  Tensor ffn_norm;                   // [hidden]
  Tensor w_gate, w_up, w_down;       // [inter, hidden], [inter, hidden], [hidden, inter]
};

struct ModelWeights {
  ModelConfig config;
  Tensor embed;       // [vocab, hidden]
  Tensor final_norm;  // [hidden]
  Tensor lm_head;     // [vocab, hidden]; shares embed's bytes when tie_word_embeddings
  std::vector<LayerWeights> layers;
};

}  // namespace ec::model
