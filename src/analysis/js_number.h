// Numbers written the way the original EcoCompute estimator writes them (JavaScript): toFixed's
// rounding (half away from zero on the exact binary value) and Number's shortest text. Matching
// answers to the original's rounding needs these exactly, not printf's round-half-even.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ec::analysis {

// Number.prototype.toFixed(digits) for |x| < 1e21: "-0" for small negatives, as JavaScript does.
std::string js_fixed(double x, int digits);
// +x.toFixed(digits): the number that text reads back as.
double js_round(double x, int digits);
// String(x): the shortest text that reads back as x ("7", "1.1", "0.5").
std::string js_string(double x);
// A JSON number as JavaScript's JSON.stringify writes it: integral values as integers.
nlohmann::json js_json(double x);

}  // namespace ec::analysis
