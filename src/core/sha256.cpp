// SHA-256 through OpenSSL's EVP interface.
#include "core/sha256.h"

#include <openssl/evp.h>

#include <array>

#include "core/error.h"

namespace ec {

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    fail("sha256: OpenSSL EVP_Digest failed");
  }
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace ec
