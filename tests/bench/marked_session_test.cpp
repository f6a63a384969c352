// MarkSession against a scripted meter: windows, sides, counts, the window rule and the report.
#include "bench/marked_session.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "core/error.h"
#include "report/energy_json.h"
#include "report/validate.h"

namespace ec::bench {
namespace {

using nlohmann::json;

// Each closed window lasts the next of `seconds` (the test's clock) at a constant 300 W; the
// counter updates every 0.1 s.
class ScriptedMeter final : public meter::Meter {
 public:
  std::deque<double> seconds;
  std::vector<std::string> events;
  std::string name() const override { return "scripted"; }
  bool measures_energy() const override { return true; }
  void begin(std::string_view window) override {
    open_ = std::string(window);
    events.push_back("begin " + open_);
  }
  meter::WindowResult end() override {
    meter::WindowResult w;
    w.name = open_;
    w.seconds = seconds.empty() ? 0.0 : seconds.front();
    if (!seconds.empty()) seconds.pop_front();
    w.energy_j = 300.0 * w.seconds;
    w.energy_source = "nvml_total_energy_counter";  // stands in for it: the report's rule asks
    w.avg_power_w = 300.0;
    events.push_back("end " + open_);
    return w;
  }
  json describe() const override {
    return {{"method", "scripted"},
            {"counter_update_period_s", 0.1},
            {"device", {{"name", "Scripted GPU"}, {"architecture", "hopper"}}}};
  }
  std::optional<double> counter_period_s() const override { return 0.1; }

 private:
  std::string open_;
};

MarkedOptions paired() {
  MarkedOptions o;
  o.precision = "int8";  // any case
  o.label = "q";
  o.fp16_label = "f";
  o.min_window_periods = 10.0;  // 1 s at the scripted 0.1 s period
  o.command = {"python3", "bench.py"};
  return o;
}

void expect_ok(MarkSession& s, std::string_view line) {
  std::string reply = s.handle(line);
  EXPECT_EQ(reply.rfind("ok", 0), 0u) << line << " -> " << reply;
}

// One side: a warmup, then two iterations of two generations (prefill/decode split).
void mark_side(MarkSession& s, ScriptedMeter& m, const std::string& label, double decode_s) {
  expect_ok(s, "label " + label);
  expect_ok(s, "begin warmup");
  expect_ok(s, "end 256");
  for (int i = 0; i < 2; ++i) {
    m.seconds.insert(m.seconds.end(), {0.02, decode_s, 0.02, decode_s});
    expect_ok(s, "begin prefill");
    expect_ok(s, "next decode");
    expect_ok(s, "next prefill");
    expect_ok(s, "next decode");
    expect_ok(s, "end 512 2");
  }
}

TEST(MarkSession, PairsTwoSidesIntoAReportShapedLikeRuns) {
  ScriptedMeter meter;
  MarkSession s(meter, paired());
  EXPECT_EQ(s.handle("hello 1"), "ok version=1 measures_energy=1 min_window_s=1.000000");
  expect_ok(s, "info model Qwen/Qwen2-0.5B");
  expect_ok(s, "info params_b 0.494");
  expect_ok(s, "info prompt_tokens 12");
  expect_ok(s, "info version.torch 2.11");
  mark_side(s, meter, "f", 0.5);
  mark_side(s, meter, "q", 0.7);
  report::RunRecord r = s.finish(0);

  EXPECT_EQ(r.workload.precision, "INT8");
  EXPECT_EQ(r.workload.model_name, "Qwen/Qwen2-0.5B");
  EXPECT_EQ(r.protocol.new_tokens, 256);
  EXPECT_EQ(r.protocol.warmup, 1);
  EXPECT_EQ(r.protocol.iterations, 2);
  EXPECT_EQ(r.protocol.min_window_counter_periods, 10.0);
  ASSERT_TRUE(r.baseline.has_value());
  EXPECT_EQ(r.baseline->engine.precision, "FP16");
  EXPECT_EQ(r.run.engine.backend, "external");
  EXPECT_EQ(r.run.engine.weight_format, "int8-llm");
  ASSERT_TRUE(r.run.engine.external.has_value());
  EXPECT_EQ(r.run.engine.external->label, "q");
  EXPECT_EQ(r.run.engine.external->versions.at("torch"), "2.11");
  ASSERT_EQ(r.run.iterations.size(), 2u);
  EXPECT_EQ(r.run.iterations[0].generations, 2);
  EXPECT_EQ(r.run.iterations[0].tokens, 512);
  EXPECT_NEAR(*r.run.iterations[0].energy_j, 300.0 * 1.44, 1e-9);
  // Phases by name in the order first marked, each window of every iteration summed.
  ASSERT_EQ(r.run.phases.size(), 2u);
  EXPECT_EQ(r.run.phases[0].name, "prefill");
  EXPECT_NEAR(r.run.phases[1].seconds, 4 * 0.7, 1e-9);
  // Energy per token (300 W at equal tokens) follows the time: 1.44 s against 1.04 s.
  ASSERT_TRUE(r.run.results.vs_fp16_energy_pct.has_value());
  EXPECT_NEAR(*r.run.results.vs_fp16_energy_pct, (1.44 / 1.04 - 1.0) * 100.0, 1e-9);
  EXPECT_EQ(r.run.results.basis, report::Basis::measured);
  // The report passes the same schema and consistency checks as run's.
  auto v = report::validate_report(report::to_json(r), "marks");
  EXPECT_TRUE(v.ok()) << (v.failures.empty() ? "" : v.failures.front());
}

TEST(MarkSession, AWindowShorterThanTheRuleFailsWithTheReason) {
  ScriptedMeter meter;
  MarkedOptions o = paired();
  o.precision = "FP16";
  o.fp16_label.clear();
  o.label.clear();
  MarkSession s(meter, o);
  expect_ok(s, "hello 1");
  meter.seconds = {0.04, 0.25};  // one 0.5B generation: 0.29 s, under 1 s
  expect_ok(s, "begin prefill");
  expect_ok(s, "next decode");
  std::string reply = s.handle("end 256");
  EXPECT_NE(reply.find("error side 'FP16', iteration 0: 0.290 s is shorter than the window rule's "
                       "10 counter periods (1.000 s)"),
            std::string::npos)
      << reply;
  // Refused from then on, and the run fails with the first reason.
  EXPECT_EQ(s.handle("begin prefill").rfind("error an earlier mark failed", 0), 0u);
  try {
    s.finish(0);
    FAIL() << "finish() accepted a failed session";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shorter than the window rule"), std::string::npos);
  }
}

TEST(MarkSession, WithoutTheRuleAShortWindowIsKept) {
  ScriptedMeter meter;
  MarkedOptions o;
  o.min_window_periods = 0.0;
  MarkSession s(meter, o);
  expect_ok(s, "hello 1");
  expect_ok(s, "info model m");
  expect_ok(s, "info prompt_tokens 3");
  meter.seconds = {0.29};
  expect_ok(s, "begin generate");
  expect_ok(s, "end 256");
  report::RunRecord r = s.finish(0);
  EXPECT_FALSE(r.protocol.min_window_counter_periods.has_value());
  EXPECT_EQ(r.run.phases.front().name, "generate");
}

TEST(MarkSession, RefusesContradictoryOptions) {
  ScriptedMeter meter;
  MarkedOptions o;
  o.precision = "NF4";
  EXPECT_THROW(MarkSession(meter, o), UsageError);  // no FP16 side
  o.fp16_label = "NF4";
  EXPECT_THROW(MarkSession(meter, o), UsageError);  // one name for both sides
  o.precision = "FP17";
  EXPECT_THROW(MarkSession(meter, o), UsageError);
}

TEST(MarkSession, MarksOutOfOrderAreErrors) {
  ScriptedMeter meter;
  MarkedOptions o = paired();
  o.min_window_periods = 0.0;
  auto first_error = [&](std::initializer_list<std::string_view> lines) {
    MarkSession s(meter, o);
    for (auto line : lines) {
      std::string reply = s.handle(line);
      if (reply.rfind("error", 0) == 0) return reply;
    }
    return std::string();
  };
  EXPECT_NE(first_error({"label x"})
                .find("not a side of this measurement (--label 'q', "
                      "--fp16-label 'f')"),
            std::string::npos);
  EXPECT_NE(first_error({"end 4"}).find("no iteration is open"), std::string::npos);
  EXPECT_NE(first_error({"begin decode", "begin decode"}).find("already open"), std::string::npos);
  EXPECT_NE(first_error({"begin warmup", "next decode"}).find("no measured iteration is open"),
            std::string::npos);
  EXPECT_NE(first_error({"begin decode", "end 4", "begin warmup"}).find("warmup comes first"),
            std::string::npos);
  EXPECT_NE(first_error({"hello 2"}).find("speaks version 1"), std::string::npos);
  EXPECT_NE(first_error({"info colour blue"}).find("unknown key"), std::string::npos);
  EXPECT_NE(first_error({"info prompt_tokens 0"}).find("at least 1"), std::string::npos);
  EXPECT_NE(first_error({"begin decode", "end 4", "begin decode", "end 6"})
                .find("6 tokens per generation, iteration 0 had 4"),
            std::string::npos);
}

TEST(MarkSession, FinishChecksCountsStatusAndOpenWindows) {
  auto finish_error = [](MarkedOptions o, std::initializer_list<std::string_view> lines,
                         int status) {
    ScriptedMeter meter;
    meter.seconds = std::deque<double>(16, 0.5);
    o.min_window_periods = 0.0;
    MarkSession s(meter, o);
    for (auto line : lines) s.handle(line);
    try {
      s.finish(status);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  MarkedOptions fp16;
  const std::initializer_list<std::string_view> side = {
      "hello 1", "info model m", "info prompt_tokens 3", "begin decode", "end 4"};
  EXPECT_EQ(finish_error(fp16, side, 0), "");
  EXPECT_NE(finish_error(fp16, side, 3).find("exited with status 3"), std::string::npos);
  EXPECT_NE(finish_error(fp16, {"hello 1", "begin decode"}, 0).find("iteration open"),
            std::string::npos);
  EXPECT_NE(finish_error(fp16, {}, 0).find("sent no marks"), std::string::npos);
  MarkedOptions two = fp16;
  two.iterations = 2;
  EXPECT_NE(finish_error(two, side, 0).find("marked 1 measured iteration(s), expected 2"),
            std::string::npos);
  MarkedOptions paired_opts = paired();
  EXPECT_NE(finish_error(paired_opts, side, 0).find("side 'f' marked no measured iteration"),
            std::string::npos);
  EXPECT_NE(finish_error(fp16, {"hello 1", "info prompt_tokens 3", "begin decode", "end 4"}, 0)
                .find("did not name its model"),
            std::string::npos);
}

}  // namespace
}  // namespace ec::bench
