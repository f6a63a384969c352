// The measurement protocol: idle baseline, FP16 then the requested precision (warmup, metered
// iterations split into prefill and decode windows), then the quality probe after the meter stops.
#include "bench/protocol.h"

#include <chrono>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "bench/preflight.h"
#include "core/embedded.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/progress.h"
#include "core/sha256.h"
#include "engine/perplexity.h"
#include "meter/window_sum.h"
#include "model/loader.h"
#include "report/from_engine_info.h"
#include "tokenizer/tokenizer.h"

namespace ec::bench {
namespace {

using Clock = std::chrono::steady_clock;

void say(const std::function<void(const std::string&)>& log, const std::string& line) {
  if (log) log(line);
}

// Seconds on the steady clock (the meter's windows use the same clock).
double now_s() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// One precision: warmup generations, then metered iterations. An iteration holds one or more
// generations (the window rule); each is prefill of the prompt (first token) plus new_tokens - 1
// decode steps, in abutting meter windows: only the iteration's outer edges wait for counter
// updates, the rest share one counter read each, so the iteration's energy telescopes.
report::DecodeRun measure_decode(engine::Engine& engine, std::span<const int32_t> prompt,
                                 const RunOptions& options, meter::Meter& meter,
                                 std::vector<int32_t>& first_generation) {
  report::DecodeRun run;
  run.engine = report::from_engine_info(engine.info());

  // One generation; `split` (metered) closes the window open before it (at a shared edge) and
  // opens "prefill", then "decode" after the first token.
  double decode_opened_s = 0.0;  // when the open decode window started
  auto generate = [&](std::vector<int32_t>& generated, std::vector<meter::WindowResult>* windows,
                      bool first_in_window) {
    generated.clear();
    engine.reset();
    engine.synchronize();
    if (windows) {
      if (first_in_window) {
        meter.begin("prefill");
      } else {
        windows->push_back(meter.next("prefill"));
      }
    }
    int32_t token = engine::argmax(engine.forward(prompt, false));
    engine.synchronize();
    // One counter read ends the prefill and starts the decode: their energies add up exactly.
    if (windows) {
      windows->push_back(meter.next("decode"));
      decode_opened_s = now_s();
    }
    generated.push_back(token);
    for (int i = 1; i < options.new_tokens; ++i) {
      token = engine.decode_greedy(token);
      generated.push_back(token);
    }
    engine.synchronize();
  };

  std::vector<int32_t> generated;
  {
    Progress progress(fmt::format("{} warmup", engine.info().precision), options.warmup);
    for (int i = 0; i < options.warmup; ++i) {
      generate(generated, nullptr, true);
      progress.update(i + 1);
    }
  }

  // The rule's least window, from the counter period the meter sees now (it has been sampling
  // since it opened, so the period is detected, not assumed, on a real counter).
  const auto period = meter.measures_energy() ? meter.counter_period_s() : std::nullopt;
  const double least_s =
      period && options.min_window_periods > 0.0 ? options.min_window_periods * *period : 0.0;

  std::vector<meter::WindowResult> prefills;
  std::vector<meter::WindowResult> decodes;
  Progress progress(fmt::format("{} measured", engine.info().precision), options.iterations);
  for (int i = 0; i < options.iterations; ++i) {
    std::vector<meter::WindowResult> windows;
    int generations = 0;
    for (;;) {
      generate(generated, &windows, generations == 0);
      ++generations;
      // Greedy decoding is deterministic: a different continuation means the engine is not.
      if (i == 0 && generations == 1) {
        first_generation = generated;
      } else {
        EC_CHECK(generated == first_generation,
                 "{}: iteration {} generation {} differs from the first; greedy decoding must be "
                 "deterministic",
                 engine.info().precision, i, generations - 1);
      }
      if (options.generations_per_window > 0) {
        if (generations >= options.generations_per_window) break;
        continue;
      }
      // What the windows have lasted so far: the closed ones by the meter, the open decode by
      // this clock (the shared edges' own reads count in no window). 2 % above the rule covers
      // the microseconds between this clock and the meter's end edge.
      double lasted = now_s() - decode_opened_s;
      for (const auto& w : windows) lasted += w.seconds;
      if (lasted >= least_s * 1.02) break;
    }
    windows.push_back(meter.end());
    report::Iteration iteration;
    iteration.tokens = static_cast<int64_t>(generated.size()) * generations;
    iteration.generations = generations;
    bool all_energy = true;
    double energy = 0.0;
    for (auto& w : windows) {
      iteration.seconds += w.seconds;
      if (w.energy_j) {
        energy += *w.energy_j;
      } else {
        all_energy = false;
      }
      (w.name == "prefill" ? prefills : decodes).push_back(std::move(w));
    }
    if (all_energy) iteration.energy_j = energy;
    EC_CHECK(iteration.seconds >= least_s,
             "{}: measured iteration {} lasted {:.3f} s ({} generation(s) of {} tokens), under the "
             "window rule's {:g} energy-counter updates ({:.3f} s): its energy would be a few "
             "counter steps; let the rule size the windows (--generations-per-window 0) or pin "
             "more generations",
             engine.info().precision, i, iteration.seconds, generations, options.new_tokens,
             options.min_window_periods, least_s);
    run.iterations.push_back(iteration);
    progress.update(i + 1);
  }
  run.phases.push_back(meter::sum_windows("prefill", prefills));
  run.phases.push_back(meter::sum_windows("decode", decodes));
  return run;
}

report::Corpus corpus_of(const RunOptions& options, std::string& text) {
  report::Corpus corpus;
  if (options.quality_text) {
    text = read_file_at_most(*options.quality_text, tok::kMaxTextBytes, "quality-probe text");
    EC_CHECK(!text.empty(), "{}: the quality text is empty", options.quality_text->string());
    corpus.name = options.quality_text->filename().string();
  } else {
    text = std::string(embedded::eval_text());
    corpus.name = "ecocompute-mlcube eval_text.txt (Carroll + Darwin excerpts)";
  }
  corpus.bytes = static_cast<int64_t>(text.size());
  corpus.sha256 = sha256_hex(text);
  return corpus;
}

}  // namespace

report::RunRecord run_protocol(const RunOptions& options, meter::Meter& meter,
                               const std::function<void(const std::string&)>& log) {
  const engine::Precision only[] = {options.precision};
  return std::move(run_protocol(options, only, meter, log).front());
}

std::vector<report::RunRecord> run_protocol(const RunOptions& options,
                                            std::span<const engine::Precision> precisions,
                                            meter::Meter& meter,
                                            const std::function<void(const std::string&)>& log) {
  EC_CHECK(!precisions.empty(), "no precision to measure");
  // Everything that could fail late fails here, before the model loads or a joule is spent.
  check_run_inputs(options);

  report::RunRecord common;
  common.timestamp_utc = report::utc_timestamp_now();
  common.build = report::this_build();
  common.environment = report::probe_host_environment();
  common.meter = report::describe_meter(meter);

  std::string corpus_text;
  std::optional<report::Corpus> corpus;
  if (options.quality) corpus = corpus_of(options, corpus_text);

  say(log, fmt::format("loading model '{}'", options.model));
  auto weights = model::load_model(options.model, options.seed);
  const model::ModelConfig& config = weights->config;
  tok::Tokenizer tokenizer = resolve_tokenizer(options);
  std::vector<int32_t> prompt = tokenizer.encode(options.prompt, true);
  // Every decode step of this job attends to the prompt and at most new_tokens more: both engines
  // size their decode attention for that, as bench_decode does for the same workload.
  engine::EngineOptions job_engine = options.engine;
  if (job_engine.decode_length == 0) {
    job_engine.decode_length = static_cast<int>(prompt.size()) + options.new_tokens;
  }

  bool synthetic = !std::filesystem::is_directory(options.model);
  common.workload.model_name = config.name;
  common.workload.params_b = config.params_b();
  common.workload.context_length = config.max_position_embeddings;
  common.workload.weights_source = synthetic ? "synthetic" : "checkpoint";
  common.protocol.prompt = options.prompt;
  common.protocol.prompt_tokens = static_cast<int>(prompt.size());
  common.protocol.new_tokens = options.new_tokens;
  common.protocol.warmup = options.warmup;
  common.protocol.iterations = options.iterations;
  EC_CHECK(options.min_window_periods >= 0.0, "--min-window-periods must not be negative (got {})",
           options.min_window_periods);
  EC_CHECK(options.generations_per_window >= 0,
           "--generations-per-window must not be negative (got {})",
           options.generations_per_window);
  if (options.min_window_periods > 0.0 && meter.measures_energy() && meter.counter_period_s()) {
    common.protocol.min_window_counter_periods = options.min_window_periods;
  }
  common.protocol.batch = 1;
  if (options.cool_off_seconds > 0) common.protocol.cool_off_s = options.cool_off_seconds;
  if (synthetic) common.protocol.seed = static_cast<int64_t>(options.seed);

  std::vector<meter::WindowResult> idle_phase;
  if (meter.measures_energy() && options.idle_seconds > 0) {
    say(log, fmt::format("idle baseline: {:.1f} s", options.idle_seconds));
    meter.begin("idle");
    std::this_thread::sleep_for(std::chrono::duration<double>(options.idle_seconds));
    idle_phase.push_back(meter.end());
  }

  // FP16 among other precisions is their shared baseline, not a run of its own.
  std::vector<engine::Precision> runs;
  for (engine::Precision p : precisions) {
    if (p == engine::Precision::fp16 && precisions.size() > 1) continue;
    runs.push_back(p);
  }
  if (runs.empty()) runs.push_back(engine::Precision::fp16);
  bool with_baseline = runs.front() != engine::Precision::fp16 && options.baseline;
  EC_CHECK(runs.front() == engine::Precision::fp16 || options.baseline,
           "a {} run needs its FP16 baseline from the same process",
           engine::precision_name(runs.front()));

  std::unique_ptr<engine::Engine> fp16;
  std::optional<report::DecodeRun> baseline;
  if (with_baseline) {
    engine::EngineOptions fp16_options = job_engine;
    fp16_options.precision = engine::Precision::fp16;
    fp16 = engine::make_engine(weights, fp16_options);
    say(log, fmt::format("FP16 baseline: {} warmup + {} measured iterations of {} tokens",
                         options.warmup, options.iterations, options.new_tokens));
    RunOptions fp16_run = options;
    fp16_run.precision = engine::Precision::fp16;
    std::vector<int32_t> fp16_generation;
    baseline = measure_decode(*fp16, prompt, fp16_run, meter, fp16_generation);
  }

  std::vector<report::RunRecord> records;
  for (engine::Precision precision : runs) {
    if (with_baseline && options.cool_off_seconds > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(options.cool_off_seconds));
    }
    report::RunRecord record = common;
    record.workload.precision = std::string(engine::precision_name(precision));
    record.baseline = baseline;
    RunOptions this_run = options;
    this_run.precision = precision;
    engine::EngineOptions engine_options = job_engine;
    engine_options.precision = precision;
    auto engine = engine::make_engine(weights, engine_options);
    say(log, fmt::format("{}: {} warmup + {} measured iterations of {} tokens",
                         engine::precision_name(precision), options.warmup, options.iterations,
                         options.new_tokens));
    std::vector<int32_t> generation;
    record.run = measure_decode(*engine, prompt, this_run, meter, generation);
    record.run.phases.insert(record.run.phases.begin(), idle_phase.begin(), idle_phase.end());
    const auto& info = engine->info();
    record.system.gpu = info.device_name;
    record.system.gpu_arch = info.device_arch.empty() ? "unknown" : info.device_arch;
    record.system.accelerator_count = 1;
    record.system.host = record.environment.os;

    if (options.quality) {
      say(log,
          fmt::format("{} quality probe: perplexity over the corpus (after the energy windows)",
                      engine::precision_name(precision)));
      std::vector<int32_t> corpus_tokens = tokenizer.encode(corpus_text, true);
      int seq_len = engine::perplexity_seq_len(*engine, options.quality_seq_len);
      report::Quality quality;
      meter.begin("quality");
      engine::PerplexityResult result =
          engine::evaluate_perplexity(*engine, corpus_tokens, seq_len, fp16.get());
      record.run.phases.push_back(meter.end());
      quality.basis = report::Basis::measured;
      quality.perplexity = result.perplexity;
      quality.mean_nll = result.nll_sum / static_cast<double>(result.predicted_tokens);
      quality.tokens_evaluated = result.predicted_tokens;
      quality.windows = static_cast<int>(result.windows);
      quality.seq_len = result.seq_len;
      quality.corpus = corpus;
      if (result.has_reference) {
        quality.fp16_perplexity = result.reference_perplexity;
        quality.fp16_mean_nll =
            result.reference_nll_sum / static_cast<double>(result.predicted_tokens);
        quality.mean_kl_vs_fp16 = result.mean_kl;
        quality.top1_agreement_vs_fp16 = result.top1_agreement;
      }
      quality.note =
          "teacher-forced perplexity over non-overlapping windows, scored after the energy "
          "windows closed; comparable across runs only with the same corpus sha256 and tokenizer";
      record.quality = quality;
    }

    // Described again at the end, so the report carries what the meter did over the whole run
    // (sampler ticks and CPU time, the counter update period it detected), not its state at start.
    record.meter = report::describe_meter(meter);
    report::finalize(record);
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace ec::bench
