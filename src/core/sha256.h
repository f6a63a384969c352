// SHA-256 digests (OpenSSL libcrypto) for corpora, checkpoints and fixtures.
#pragma once

#include <string>
#include <string_view>

namespace ec {

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

}  // namespace ec
