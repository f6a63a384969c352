// CUDA_VISIBLE_DEVICES parsing against NVML's device list.
#include "meter/gpu_select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "core/trim.h"

namespace ec::meter {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::optional<unsigned> match(const std::string& token, const std::vector<std::string>& uuids) {
  if (all_digits(token)) {
    unsigned long index = std::strtoul(token.c_str(), nullptr, 10);
    if (index < uuids.size()) return static_cast<unsigned>(index);
    return std::nullopt;
  }
  if (token.rfind("MIG-", 0) == 0) return std::nullopt;
  std::string want = token.rfind("GPU-", 0) == 0 ? token : "GPU-" + token;
  std::optional<unsigned> found;
  for (unsigned i = 0; i < uuids.size(); ++i) {
    if (uuids[i].rfind(want, 0) == 0) {
      if (found) return std::nullopt;  // an ambiguous prefix names no single device
      found = i;
    }
  }
  return found;
}

}  // namespace

std::vector<unsigned> visible_nvml_indices(const std::optional<std::string>& cuda_visible,
                                           const std::vector<std::string>& uuids) {
  std::vector<unsigned> out;
  if (!cuda_visible) {
    for (unsigned i = 0; i < uuids.size(); ++i) out.push_back(i);
    return out;
  }
  size_t pos = 0;
  const std::string& list = *cuda_visible;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    const std::string token(trim(
        std::string_view(list).substr(pos, comma == std::string::npos ? list.npos : comma - pos)));
    auto index = match(token, uuids);
    if (!index || std::find(out.begin(), out.end(), *index) != out.end()) break;
    out.push_back(*index);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::optional<std::string> cuda_visible_devices_env() {
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (env == nullptr) return std::nullopt;
  return std::string(env);
}

}  // namespace ec::meter
