// A progress line for long work: drawn on a terminal (stderr), silent when stderr is a pipe or
// file.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ec {

class Progress {
 public:
  Progress(std::string label, int64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(int64_t done);
  void finish();

  // Whether progress is drawn at all (stderr is a terminal and EC_NO_PROGRESS is unset).
  static bool enabled();

 private:
  std::string label_;
  int64_t total_;
  bool active_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace ec
