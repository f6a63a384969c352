// Which NVML devices a CUDA program sees: CUDA_VISIBLE_DEVICES (indices or UUIDs) in CUDA's order.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ec::meter {

// NVML indices of the visible GPUs, in the order CUDA numbers them. `cuda_visible` is the value of
// CUDA_VISIBLE_DEVICES (nullopt when unset: every device). Like CUDA, parsing stops at the first
// entry that names no device; "GPU-" UUID prefixes match; MIG instances are not metered.
std::vector<unsigned> visible_nvml_indices(const std::optional<std::string>& cuda_visible,
                                           const std::vector<std::string>& uuids);

// The environment's CUDA_VISIBLE_DEVICES, or nullopt when unset.
std::optional<std::string> cuda_visible_devices_env();

}  // namespace ec::meter
