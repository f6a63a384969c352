# Script mode: writes OUT, a C++ file holding IN's bytes as ec::embedded::SYMBOL().
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp" "// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace ec::embedded {\nstatic const unsigned char k_${SYMBOL}[] = {\n${bytes}0};\nstd::string_view ${SYMBOL}() { return {reinterpret_cast<const char*>(k_${SYMBOL}), ${size}}; }\n}  // namespace ec::embedded\n")
file(RENAME "${OUT}.tmp" "${OUT}")
