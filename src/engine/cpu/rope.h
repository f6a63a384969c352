// Rotary position embedding in the Hugging Face rotate_half convention (first half of each head
// pairs with the second half), with cos/sin tabled per position.
#pragma once

#include <cstdint>
#include <vector>

namespace ec::engine::cpu {

class RopeTable {
 public:
  // head_dim even; positions [0, max_positions) are tabled.
  RopeTable(int head_dim, double theta, int max_positions);

  // Rotates every head of vec ([n_heads, head_dim]) for `position`:
  //   x1' = x1·cos − x2·sin,  x2' = x2·cos + x1·sin  with x1 = head[0, d/2), x2 = head[d/2, d).
  void apply(float* vec, int n_heads, int position) const;

  int head_dim() const { return head_dim_; }
  int max_positions() const { return max_positions_; }

 private:
  int head_dim_;
  int max_positions_;
  std::vector<float> cos_;  // [position, head_dim / 2]
  std::vector<float> sin_;
};

}  // namespace ec::engine::cpu
