// The marker protocol's lines (docs/marks.md): what a measured command tells the meter, parsed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ec::bench {

// The protocol version a `hello` line names and the meter answers with.
inline constexpr int kMarksProtocolVersion = 1;

// The environment variable that carries the channel's file descriptor to the command.
inline constexpr std::string_view kMarksFdEnv = "ECOCOMPUTE_MARKS_FD";

// Longest line the meter reads; a longer one is an error, not a truncation.
inline constexpr size_t kMaxMarkLineBytes = 4096;

struct Mark {
  enum class Kind { hello, info, label, begin, next, end };
  Kind kind = Kind::hello;
  int version = 0;          // hello
  std::string key;          // info: "model", "version.torch", ...
  std::string value;        // info: the rest of the line; label: the label
  std::string window;       // begin / next: "warmup" or a phase name ("prefill", "decode", ...)
  int64_t tokens = 0;       // end: tokens generated since begin
  int64_t generations = 1;  // end: generations since begin (each of `tokens / generations`)
};

// Parses one line (without its newline). Throws ec::Error saying what the line should look like.
Mark parse_mark(std::string_view line);

}  // namespace ec::bench
