// The GPU architecture classes the curves are fitted per: each class's label and its reference
// card's datasheet figures, which `fit` writes into curves.json (arch_label, hardware).
#pragma once

#include <map>
#include <string>

#include "analysis/fit.h"

namespace ec::analysis {

const std::map<std::string, std::string>& default_arch_labels();
// Public datasheet memory bandwidth and dense FP16 tensor throughput of each class's reference
// card.
const std::map<std::string, GpuSpec>& default_hardware();

}  // namespace ec::analysis
