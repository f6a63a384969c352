// Errors with context: ec::Error for failures, ec::UsageError for bad command lines, EC_CHECK to
// throw.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace ec {

// A failure the user can act on: the message names the file, field or tensor and what was expected.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A malformed command line or option value; the CLI exits with status 2 for these.
class UsageError : public Error {
 public:
  using Error::Error;
};

template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

template <class... Args>
[[noreturn]] void fail_usage(fmt::format_string<Args...> format, Args&&... args) {
  throw UsageError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace ec

// EC_CHECK(condition, "format {}", args...): throws ec::Error with the formatted message when
// false.
#define EC_CHECK(condition, ...) \
  do {                           \
    if (!(condition)) {          \
      ::ec::fail(__VA_ARGS__);   \
    }                            \
  } while (0)
