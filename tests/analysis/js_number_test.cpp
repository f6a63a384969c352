// js_string, js_fixed and js_round against what JavaScript's String(x) and x.toFixed(d) print.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <random>
#include <string>

#include "analysis/js_number.h"

namespace ec::analysis {
namespace {

TEST(JsString, PrintsWhatJavaScriptPrints) {
  // Each expectation is String(x) in Node.js.
  EXPECT_EQ(js_string(0.1), "0.1");
  EXPECT_EQ(js_string(-0.0), "0");
  EXPECT_EQ(js_string(123.456), "123.456");
  EXPECT_EQ(js_string(1e-6), "0.000001");
  EXPECT_EQ(js_string(1.5e-7), "1.5e-7");
  EXPECT_EQ(js_string(1.23e-18), "1.23e-18");
  EXPECT_EQ(js_string(1e16), "10000000000000000");
  EXPECT_EQ(js_string(123456789012345680000.0), "123456789012345680000");
  EXPECT_EQ(js_string(1e21), "1e+21");
  EXPECT_EQ(js_string(-1e300), "-1e+300");
  EXPECT_EQ(js_string(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(js_string(0.0001), "0.0001");
  EXPECT_EQ(js_string(-2.5e-5), "-0.000025");
  EXPECT_EQ(js_string(5e-324), "5e-324");
  EXPECT_EQ(js_string(std::nan("")), "NaN");
  EXPECT_EQ(js_string(-INFINITY), "-Infinity");
}

TEST(JsString, RoundTripsAndKeepsTheShortestDigitsOnRandomDoubles) {
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int i = 0; i < 20000; ++i) {
    const double x = (i % 2 ? -1 : 1) * mantissa(rng) * std::pow(10.0, exponent(rng));
    const std::string s = js_string(x);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), x) << s;
    // The same significant digits as the C++ library's shortest round-trip text.
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    std::string shortest(buf, end);
    std::string want, got;
    for (const char c : shortest.substr(0, shortest.find('e'))) {
      if (c >= '0' && c <= '9') want += c;
    }
    for (const char c : s.substr(0, s.find('e'))) {
      if (c >= '0' && c <= '9') got += c;
    }
    const auto strip = [](std::string d) {
      d.erase(0, d.find_first_not_of('0'));
      d.erase(d.find_last_not_of('0') + 1);
      return d;
    };
    EXPECT_EQ(strip(got), strip(want)) << x;
    const bool exponent_form = s.find('e') != std::string::npos;
    EXPECT_EQ(exponent_form, std::fabs(x) < 1e-6 || std::fabs(x) >= 1e21) << s;
  }
}

TEST(JsFixed, RoundsHalfAwayOnTheExactBinaryValue) {
  // (1.005).toFixed(2) is "1.00": 1.005 is stored just below the tie.
  EXPECT_EQ(js_fixed(1.005, 2), "1.00");
  EXPECT_EQ(js_fixed(2.5, 0), "3");
  EXPECT_EQ(js_fixed(-2.5, 0), "-3");
  EXPECT_EQ(js_fixed(0.125, 2), "0.13");
  EXPECT_EQ(js_fixed(9.995, 2), "9.99");
  EXPECT_EQ(js_fixed(99.995, 2), "100.00");
  EXPECT_DOUBLE_EQ(js_round(12.3456, 2), 12.35);
}

}  // namespace
}  // namespace ec::analysis
