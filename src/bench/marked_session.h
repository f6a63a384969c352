// A command measured through the marker protocol (docs/marks.md): its marks drive the meter's
// windows exactly as `run` drives them, and become a report in `run`'s format.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meter/meter.h"
#include "report/run_record.h"

namespace ec::bench {

struct MarkedOptions {
  std::string precision = "FP16";  // the report's precision: the side labelled `label`
  std::string label;               // the command's name for that side ("" = the precision)
  std::string fp16_label;          // the command's name for its FP16 side ("" = none)
  std::optional<int> warmup;       // expected per side; absent = as marked (sides must agree)
  std::optional<int> iterations;
  double min_window_periods = meter::kDefaultMinWindowPeriods;  // the window rule; 0 = off
  std::string model;                 // overrides the command's `info model`
  std::vector<std::string> command;  // for the report
};

class MarkSession {
 public:
  // Throws ec::UsageError when the options contradict each other (a quantized precision without
  // an FP16 label, two sides with one label).
  MarkSession(meter::Meter& meter, MarkedOptions options);

  // The reply to one mark (no newline): "ok[ key=value...]" or "error MESSAGE". After an error
  // every further mark is refused and finish() fails with the first error.
  std::string handle(std::string_view line);

  // Whether a window is open (the command must close it before it exits).
  bool window_open() const { return open_.has_value(); }

  // The finalized record once the command ended with `exit_status`. Throws ec::Error with the
  // first error, a window left open, a non-zero status, or counts that do not add up.
  report::RunRecord finish(int exit_status, std::vector<meter::WindowResult> idle_phase = {});

  // The rule's least window length now (0 when no rule applies).
  double min_window_s() const;

 private:
  struct Side {
    std::string label;
    std::string precision;
    int warmups = 0;
    std::vector<report::Iteration> iterations;
    std::vector<std::string> phase_order;
    std::map<std::string, std::vector<meter::WindowResult>> phases;
    std::map<std::string, std::string> engine_info;  // compute_dtype, kernel_variant, ...
  };
  struct OpenIteration {
    bool warmup = false;
    double started_s = 0.0;  // warmup: steady clock
    std::vector<meter::WindowResult> windows;
  };

  std::string apply(std::string_view line);
  Side& side();
  void close_iteration(int64_t tokens, int64_t generations, std::string& reply);
  report::DecodeRun decode_run(Side& s, const report::RunRecord& record) const;

  meter::Meter& meter_;
  MarkedOptions options_;
  std::map<std::string, Side> sides_;
  std::string current_;  // label of the side marks go to
  std::optional<OpenIteration> open_;
  std::string error_;
  bool said_hello_ = false;
  std::map<std::string, std::string> info_;
  std::map<std::string, std::string> versions_;
  std::string timestamp_;
};

}  // namespace ec::bench
