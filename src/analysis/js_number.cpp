// JavaScript number formatting: toFixed from the exact decimal expansion, shortest round-trip text.
#include "analysis/js_number.h"

#include <array>
#include <charconv>
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

std::string js_string(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return "0";
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), x);
  std::string s(buf.data(), end);
  // to_chars writes 1e+21 as "1e+21", JavaScript too; below 1e21 JavaScript never uses exponents
  // for numbers ≥ 1e-6, while to_chars may: spell those out.
  if (s.find('e') != std::string::npos && std::fabs(x) < 1e21 && std::fabs(x) >= 1e-6) {
    auto [e2, ec2] =
        std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::fixed);
    s.assign(buf.data(), e2);
  }
  return s;
}

nlohmann::json js_json(double x) {
  if (!std::isfinite(x)) return nullptr;  // JSON.stringify writes NaN and Infinity as null
  if (x == std::trunc(x) && std::fabs(x) < 9007199254740992.0) return static_cast<int64_t>(x);
  return x;
}

}  // namespace ec::analysis
