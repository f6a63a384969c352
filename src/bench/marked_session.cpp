// The marker protocol's state machine: sides (FP16 and the quantized label), warmup and measured
// iterations, their meter windows and the window rule, then the report in `run`'s format.
#include "bench/marked_session.h"

#include <charconv>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "bench/marks.h"
#include "core/error.h"
#include "engine/engine.h"
#include "meter/window_sum.h"

namespace ec::bench {
namespace {

double steady_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class T>
T parse_number(const std::string& key, const std::string& value, T least) {
  T v{};
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  EC_CHECK(ec == std::errc() && end == value.data() + value.size() && v >= least,
           "info {}: expected a number of at least {}, got '{}'", key, least, value);
  return v;
}

// Keys an `info` mark may set, for the whole command or (*) for the side marks go to.
constexpr std::string_view kCommandKeys[] = {
    "model", "params_b", "prompt", "prompt_tokens", "context_length", "device", "weights_source"};
constexpr std::string_view kSideKeys[] = {"quantization_backend", "compute_dtype", "kernel_variant",
                                          "weight_bytes"};

template <size_t N>
bool among(const std::string_view (&keys)[N], std::string_view key) {
  for (auto k : keys) {
    if (k == key) return true;
  }
  return false;
}

}  // namespace

MarkSession::MarkSession(meter::Meter& meter, MarkedOptions options)
    : meter_(meter), options_(std::move(options)), timestamp_(report::utc_timestamp_now()) {
  // Accepts FP16/INT8/... in any case and names the allowed values otherwise.
  auto precision = engine::parse_precision(options_.precision);
  options_.precision = std::string(engine::precision_name(precision));
  if (options_.label.empty()) options_.label = options_.precision;
  if (precision != engine::Precision::fp16 && options_.fp16_label.empty()) {
    fail_usage(
        "a {} measurement needs its FP16 baseline from the same invocation: --fp16-label names "
        "the command's FP16 side",
        options_.precision);
  }
  if (!options_.fp16_label.empty() && options_.fp16_label == options_.label) {
    fail_usage("--label and --fp16-label are both '{}': the two sides need two names",
               options_.label);
  }
  if (precision == engine::Precision::fp16 && !options_.fp16_label.empty()) {
    fail_usage("--precision FP16 is itself the baseline: --fp16-label is for a quantized run");
  }
  EC_CHECK(options_.min_window_periods >= 0.0, "--min-window-periods must not be negative");
  sides_[options_.label] = Side{options_.label, options_.precision, 0, {}, {}, {}, {}};
  if (!options_.fp16_label.empty()) {
    sides_[options_.fp16_label] = Side{options_.fp16_label, "FP16", 0, {}, {}, {}, {}};
  }
  current_ = options_.label;
}

double MarkSession::min_window_s() const {
  if (options_.min_window_periods <= 0.0 || !meter_.measures_energy()) return 0.0;
  auto period = meter_.counter_period_s();
  return period ? options_.min_window_periods * *period : 0.0;
}

MarkSession::Side& MarkSession::side() {
  return sides_.at(current_);
}

std::string MarkSession::handle(std::string_view line) {
  if (!error_.empty()) return "error an earlier mark failed: " + error_;
  try {
    return apply(line);
  } catch (const Error& e) {
    error_ = e.what();
    // A window left open would leave the meter mid-window for the report's sake: close it.
    if (open_ && !open_->warmup) meter_.end();
    open_.reset();
    return "error " + error_;
  }
}

std::string MarkSession::apply(std::string_view line) {
  Mark m = parse_mark(line);
  switch (m.kind) {
    case Mark::Kind::hello:
      EC_CHECK(m.version == kMarksProtocolVersion,
               "hello {}: this meter speaks version {} of the marker protocol", m.version,
               kMarksProtocolVersion);
      said_hello_ = true;
      return fmt::format("ok version={} measures_energy={} min_window_s={:.6f}",
                         kMarksProtocolVersion, meter_.measures_energy() ? 1 : 0, min_window_s());
    case Mark::Kind::info:
      if (m.key.rfind("version.", 0) == 0 && m.key.size() > 8) {
        versions_[m.key.substr(8)] = m.value;
      } else if (among(kCommandKeys, m.key)) {
        if (m.key == "params_b") parse_number<double>(m.key, m.value, 0.0);
        if (m.key == "prompt_tokens" || m.key == "context_length") {
          parse_number<int>(m.key, m.value, 1);
        }
        if (m.key == "weights_source") {
          EC_CHECK(m.value == "checkpoint" || m.value == "synthetic",
                   "info weights_source: expected checkpoint or synthetic, got '{}'", m.value);
        }
        info_[m.key] = m.value;
      } else if (among(kSideKeys, m.key)) {
        if (m.key == "weight_bytes") parse_number<int64_t>(m.key, m.value, 0);
        side().engine_info[m.key] = m.value;
      } else {
        fail(
            "info {}: unknown key (model, params_b, prompt, prompt_tokens, context_length, device, "
            "weights_source, quantization_backend, compute_dtype, kernel_variant, weight_bytes, "
            "version.NAME)",
            m.key);
      }
      return "ok";
    case Mark::Kind::label:
      EC_CHECK(!open_, "label {}: an iteration is still open", m.value);
      EC_CHECK(sides_.count(m.value) == 1,
               "label {}: not a side of this measurement (--label '{}'{})", m.value, options_.label,
               options_.fp16_label.empty()
                   ? std::string()
                   : fmt::format(", --fp16-label '{}'", options_.fp16_label));
      current_ = m.value;
      return "ok";
    case Mark::Kind::begin: {
      EC_CHECK(!open_, "begin {}: an iteration is already open (end it first)", m.window);
      OpenIteration it;
      it.warmup = m.window == "warmup";
      if (it.warmup) {
        EC_CHECK(side().iterations.empty(),
                 "side '{}': a warmup after its measured iterations (warmup comes first)",
                 side().label);
        it.started_s = steady_now();
      } else {
        // The command has synchronised its device; the meter starts the window at a counter
        // update before it answers, so the work starts after the edge.
        meter_.begin(m.window);
      }
      open_ = std::move(it);
      return "ok";
    }
    case Mark::Kind::next:
      EC_CHECK(open_ && !open_->warmup, "next {}: no measured iteration is open", m.window);
      EC_CHECK(m.window != "warmup", "next warmup: warmup is not a window of an iteration");
      open_->windows.push_back(meter_.next(m.window));
      return "ok";
    case Mark::Kind::end: {
      EC_CHECK(open_.has_value(), "end {}: no iteration is open", m.tokens);
      std::string reply;
      close_iteration(m.tokens, m.generations, reply);
      return reply;
    }
  }
  fail("unhandled mark");
}

void MarkSession::close_iteration(int64_t tokens, int64_t generations, std::string& reply) {
  OpenIteration it = std::move(*open_);
  open_.reset();
  Side& s = side();
  if (it.warmup) {
    ++s.warmups;
    reply = fmt::format("ok seconds={:.6f}", steady_now() - it.started_s);
    return;
  }
  it.windows.push_back(meter_.end());
  report::Iteration iteration;
  iteration.tokens = tokens;
  iteration.generations = generations;
  bool all_energy = true;
  double energy = 0.0;
  for (auto& w : it.windows) {
    iteration.seconds += w.seconds;
    if (w.energy_j) {
      energy += *w.energy_j;
    } else {
      all_energy = false;
    }
  }
  if (all_energy) iteration.energy_j = energy;
  const double least = min_window_s();
  EC_CHECK(iteration.seconds >= least,
           "side '{}', iteration {}: {:.3f} s is shorter than the window rule's {:g} counter "
           "periods ({:.3f} s): put more generations in one iteration (end TOKENS GENERATIONS), "
           "docs/marks.md",
           s.label, s.iterations.size(), iteration.seconds, options_.min_window_periods, least);
  if (!s.iterations.empty()) {
    const auto& first = s.iterations.front();
    EC_CHECK(first.tokens / first.generations == tokens / generations,
             "side '{}', iteration {}: {} tokens per generation, iteration 0 had {}: every "
             "generation of a run has the same length",
             s.label, s.iterations.size(), tokens / generations, first.tokens / first.generations);
  }
  for (auto& w : it.windows) {
    if (s.phases.count(w.name) == 0) s.phase_order.push_back(w.name);
    s.phases[w.name].push_back(std::move(w));
  }
  s.iterations.push_back(iteration);
  reply = iteration.energy_j ? fmt::format("ok seconds={:.6f} energy_j={:.6f}", iteration.seconds,
                                           *iteration.energy_j)
                             : fmt::format("ok seconds={:.6f}", iteration.seconds);
}

report::DecodeRun MarkSession::decode_run(Side& s, const report::RunRecord& record) const {
  report::DecodeRun run;
  auto& e = run.engine;
  e.backend = "external";
  e.precision = s.precision;
  e.weight_format = std::string(engine::weight_format(engine::parse_precision(s.precision)));
  auto get = [&](const char* key) {
    auto it = s.engine_info.find(key);
    return it == s.engine_info.end() ? std::string() : it->second;
  };
  e.kernel_variant = get("kernel_variant");
  e.compute_dtype = get("compute_dtype");
  if (auto wb = get("weight_bytes"); !wb.empty()) e.weight_bytes = std::stoll(wb);
  if (record.workload.context_length) e.max_context = *record.workload.context_length;
  e.device_name = record.system.gpu;
  e.external = report::ExternalCommand{options_.command, s.label, versions_};
  run.iterations = s.iterations;
  for (const auto& name : s.phase_order) {
    run.phases.push_back(meter::sum_windows(name, s.phases.at(name)));
  }
  return run;
}

report::RunRecord MarkSession::finish(int exit_status,
                                      std::vector<meter::WindowResult> idle_phase) {
  if (open_ && !open_->warmup) {
    meter_.end();
    error_ = error_.empty() ? "the command exited with an iteration open (no end mark)" : error_;
  } else if (open_ && error_.empty()) {
    error_ = "the command exited with a warmup open (no end mark)";
  }
  open_.reset();
  EC_CHECK(error_.empty(), "measure: {}", error_);
  EC_CHECK(exit_status == 0, "measure: the command exited with status {}; no report is written",
           exit_status);
  EC_CHECK(said_hello_,
           "measure: the command sent no marks (hello {} first); is it using the channel in ${}?",
           kMarksProtocolVersion, kMarksFdEnv);

  // Counts per side: as asked, or as the main side marked them, the same for both.
  const Side& main = sides_.at(options_.label);
  const int warmup = options_.warmup.value_or(main.warmups);
  const int iterations = options_.iterations.value_or(static_cast<int>(main.iterations.size()));
  for (const auto& [label, s] : sides_) {
    EC_CHECK(!s.iterations.empty(), "measure: side '{}' marked no measured iteration", label);
    EC_CHECK(s.warmups == warmup, "measure: side '{}' marked {} warmup iteration(s), expected {}",
             label, s.warmups, warmup);
    EC_CHECK(static_cast<int>(s.iterations.size()) == iterations,
             "measure: side '{}' marked {} measured iteration(s), expected {}", label,
             s.iterations.size(), iterations);
  }
  const auto& first = main.iterations.front();
  const int64_t new_tokens = first.tokens / first.generations;
  for (const auto& [label, s] : sides_) {
    const auto& f = s.iterations.front();
    EC_CHECK(f.tokens / f.generations == new_tokens,
             "measure: side '{}' generated {} tokens per generation, side '{}' {}: both sides "
             "run the same protocol",
             label, f.tokens / f.generations, options_.label, new_tokens);
  }

  auto info = [&](const char* key) {
    auto it = info_.find(key);
    return it == info_.end() ? std::string() : it->second;
  };
  report::RunRecord record;
  record.timestamp_utc = timestamp_;
  record.build = report::this_build();
  record.environment = report::probe_host_environment();

  const nlohmann::json described = meter_.describe();
  std::string device = info("device");
  std::string arch;
  if (auto d = described.find("device"); d != described.end() && d->is_object()) {
    if (device.empty()) device = d->value("name", std::string());
    arch = d->value("architecture", std::string());
  }
  record.system.gpu = device.empty() ? "unknown" : device;
  record.system.gpu_arch = arch.empty() ? "unknown" : arch;
  record.system.accelerator_count = 1;
  record.system.host = record.environment.os;

  record.workload.model_name = options_.model.empty() ? info("model") : options_.model;
  EC_CHECK(!record.workload.model_name.empty(),
           "measure: the command did not name its model ('info model NAME', or --model)");
  if (auto p = info("params_b"); !p.empty()) record.workload.params_b = std::stod(p);
  record.workload.precision = options_.precision;
  if (auto c = info("context_length"); !c.empty()) record.workload.context_length = std::stoi(c);
  record.workload.weights_source = info("weights_source");
  auto backend = sides_.at(options_.label).engine_info.find("quantization_backend");
  record.workload.quantization_backend =
      backend != sides_.at(options_.label).engine_info.end() ? backend->second : "external";

  auto prompt_tokens = info("prompt_tokens");
  EC_CHECK(!prompt_tokens.empty(),
           "measure: the command did not say how long its prompt is ('info prompt_tokens N')");
  record.protocol.prompt = info("prompt");
  record.protocol.prompt_tokens = std::stoi(prompt_tokens);
  record.protocol.new_tokens = static_cast<int>(new_tokens);
  record.protocol.warmup = warmup;
  record.protocol.iterations = iterations;
  record.protocol.batch = 1;
  if (min_window_s() > 0.0)
    record.protocol.min_window_counter_periods = options_.min_window_periods;

  record.run = decode_run(sides_.at(options_.label), record);
  record.run.phases.insert(record.run.phases.begin(), idle_phase.begin(), idle_phase.end());
  if (!options_.fp16_label.empty())
    record.baseline = decode_run(sides_.at(options_.fp16_label), record);
  record.meter = report::describe_meter(meter_);
  report::finalize(record);
  return record;
}

}  // namespace ec::bench
