// Compute capability → architecture family (the names NVML's nvmlDeviceGetArchitecture also uses).
#include "engine/device_arch.h"

namespace ec::engine {

std::string_view architecture_of_compute_capability(int major, int minor) {
  switch (major) {
    case 3:
      return "kepler";
    case 5:
      return "maxwell";
    case 6:
      return "pascal";
    case 7:
      // 7.0 and 7.2 are Volta (V100, Xavier); 7.5 is Turing (T4, RTX 20xx).
      return minor >= 5 ? "turing" : "volta";
    case 8:
      // 8.9 is Ada (L4, L40, RTX 40xx); 8.0/8.6/8.7 are Ampere.
      return minor == 9 ? "ada" : "ampere";
    case 9:
      return "hopper";
    case 10:
    case 11:
    case 12:
      return "blackwell";
    default:
      return "unknown";
  }
}

}  // namespace ec::engine
