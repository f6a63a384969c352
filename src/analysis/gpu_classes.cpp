// Class labels and datasheet figures. The figures feed only a modelled roofline (never a measured
// field); the reference cards are those the original's published curves were measured on.
#include "analysis/gpu_classes.h"

namespace ec::analysis {

const std::map<std::string, std::string>& default_arch_labels() {
  static const std::map<std::string, std::string> labels{
      {"turing", "Turing (T4)"},
      {"ada", "Ada (RTX 4090/4090D)"},
      {"blackwell", "Blackwell (RTX 5090)"},
      {"ampere", "Ampere (A100/A800)"},
      {"hopper", "Hopper (H100/H200)"},
  };
  return labels;
}

const std::map<std::string, GpuSpec>& default_hardware() {
  static const std::map<std::string, GpuSpec> hardware{
      {"turing", {"T4", 320.0, 65.0, "NVIDIA T4 datasheet"}},
      {"ada", {"RTX 4090D", 1008.0, 330.0, "NVIDIA Ada / RTX 4090 datasheet"}},
      {"blackwell", {"RTX 5090", 1792.0, 419.0, "NVIDIA RTX 5090 datasheet"}},
      {"ampere", {"A800", 2039.0, 312.0, "NVIDIA A100/A800 80GB datasheet"}},
      {"hopper", {"H100", 3350.0, 990.0, "NVIDIA H100 SXM datasheet"}},
  };
  return hardware;
}

}  // namespace ec::analysis
