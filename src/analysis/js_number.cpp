// JavaScript number formatting: toFixed from the exact decimal expansion, shortest round-trip text.
#include "analysis/js_number.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ec::analysis {

std::string js_fixed(double x, int digits) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  const bool negative = x < 0;  // -0 is not below 0: toFixed prints it as "0"
  const double magnitude = std::fabs(x);
  // glibc prints the exact binary value's decimal expansion; 40 extra digits are enough to tell a
  // true tie (…5000…) from a value a few units in the last place away from one.
  std::array<char, 512> exact{};
  std::snprintf(exact.data(), exact.size(), "%.*f", digits + 40, magnitude);
  std::string s(exact.data());
  const size_t point = s.find('.');
  std::string kept = s.substr(0, point + (digits > 0 ? 1 + digits : 0));
  const std::string rest = s.substr(point + 1 + digits);
  // toFixed picks the larger n on a tie: round half up on the magnitude.
  if (!rest.empty() && rest[0] >= '5') {
    int i = static_cast<int>(kept.size()) - 1;
    for (; i >= 0; --i) {
      if (kept[i] == '.') continue;
      if (kept[i] == '9') {
        kept[i] = '0';
        continue;
      }
      ++kept[i];
      break;
    }
    if (i < 0) kept.insert(kept.begin(), '1');
  }
  return negative ? "-" + kept : kept;
}

double js_round(double x, int digits) {
  return std::strtod(js_fixed(x, digits).c_str(), nullptr);
}

namespace {

// "d.ddde±X" (shortest round-trip digits in scientific form) spelled out without an exponent.
std::string spell_out(const std::string& scientific) {
  const size_t e = scientific.find('e');
  const bool negative = scientific[0] == '-';
  std::string digits;
  for (const char c : scientific.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits += c;
  }
  // The point sits after the first digit, moved by the exponent.
  const long point = 1 + std::strtol(scientific.c_str() + e + 1, nullptr, 10);
  std::string out;
  if (point <= 0) {
    out = "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(point)) + "." +
          digits.substr(static_cast<size_t>(point));
  }
  return negative ? "-" + out : out;
}

}  // namespace

std::string js_string(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return "0";
  // fmt's shortest round-trip text (the same digits as std::to_chars, which the WebAssembly build's
  // C++ library lacks for doubles). JavaScript uses exponents only below 1e-6 and from 1e21 on:
  // spell out the others.
  std::string s = fmt::format("{}", x);
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  if (std::fabs(x) < 1e21 && std::fabs(x) >= 1e-6) return spell_out(s);
  // JavaScript writes the exponent without leading zeros: 1e-7, not 1e-07.
  size_t digits = e + 2;
  while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
  return s;
}

nlohmann::json js_json(double x) {
  if (!std::isfinite(x)) return nullptr;  // JSON.stringify writes NaN and Infinity as null
  if (x == std::trunc(x) && std::fabs(x) < 9007199254740992.0) return static_cast<int64_t>(x);
  return x;
}

}  // namespace ec::analysis
