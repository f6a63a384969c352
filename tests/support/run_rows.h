// Store rows the analysis and site tests build by hand, shared so each test states only what it
// varies.
#pragma once

#include <optional>
#include <string>

#include "store/run_row.h"

namespace ec::test {

// Run `i` of a CPU session without an energy meter (basis unavailable): tiny-qwen2 at `precision`,
// 40 + i tok/s, and the quality figures given (absent stays absent).
inline store::RunRow cpu_run_without_meter(const std::string& session, int i,
                                           const std::string& precision, std::optional<double> kl,
                                           std::optional<double> top1) {
  store::RunRow r;
  r.run_id = session + "-" + std::to_string(i);
  r.session = session;
  r.gpu = "CPU (x86_64)";
  r.model = "tiny-qwen2";
  r.precision = precision;
  r.basis = "unavailable";
  r.throughput_tok_s = 40.0 + i;
  r.mean_kl_vs_fp16 = kl;
  r.top1_agreement_vs_fp16 = top1;
  return r;
}

}  // namespace ec::test
