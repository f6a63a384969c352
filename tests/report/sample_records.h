// Seeded, complete run records for the report tests: a measured INT8 run with its FP16 baseline on
// a GPU, and a CPU run without an energy meter.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "report/run_record.h"

namespace ec::report::test {

inline std::vector<Iteration> random_iterations(std::mt19937& rng, int count, int tokens,
                                                double watts_lo, double watts_hi, bool energy) {
  std::uniform_real_distribution<double> secs(2.5, 3.5);
  std::uniform_real_distribution<double> watts(watts_lo, watts_hi);
  std::vector<Iteration> out;
  for (int i = 0; i < count; ++i) {
    Iteration it;
    it.seconds = secs(rng);
    it.tokens = tokens;
    if (energy) it.energy_j = it.seconds * watts(rng);
    out.push_back(it);
  }
  return out;
}

inline meter::WindowResult random_window(std::mt19937& rng, const std::string& name, bool energy) {
  std::uniform_real_distribution<double> secs(0.2, 4.0);
  std::uniform_real_distribution<double> watts(60.0, 300.0);
  meter::WindowResult w;
  w.name = name;
  w.seconds = secs(rng);
  if (energy) {
    const double power = watts(rng);
    w.energy_j = power * w.seconds;
    w.avg_power_w = power;
    w.energy_source = "nvml_total_energy_counter";
    w.cross_check_energy_j = *w.energy_j * 0.97;
    w.cross_check_source = "nvml_power_instant_trapezoid";
    w.telemetry = {{"temperature_c", {{"min", 41}, {"max", 57}}}, {"sm_clock_mhz", 1980}};
  }
  return w;
}

inline EngineRecord engine_record(const std::string& backend, const std::string& precision,
                                  const std::string& format, int64_t weight_bytes) {
  EngineRecord e;
  e.backend = backend;
  e.precision = precision;
  e.weight_format = format;
  e.kernel_variant = backend == "cuda" ? "cuda-gemv-" + format + "-v2" : "cpu-fp32-accumulate";
  e.kernel_variant_choice = backend == "cuda" ? "tuned" : "fixed";
  e.compute_dtype = backend == "cuda" ? "fp16" : "fp32";
  e.cuda_graph = backend == "cuda";
  e.weight_bytes = weight_bytes;
  e.max_context = 4096;
  e.threads = backend == "cuda" ? 0 : 2;
  e.device_name = backend == "cuda" ? "NVIDIA H200" : "Intel Xeon";
  return e;
}

inline Protocol standard_protocol() {
  Protocol p;
  p.prompt = "The quick brown fox";
  p.prompt_tokens = 5;
  p.new_tokens = 256;
  p.warmup = 2;
  p.iterations = 10;
  p.batch = 1;
  p.cool_off_s = 5.0;
  p.seed = 17;
  return p;
}

inline BuildRecord sample_build(bool cuda) {
  BuildRecord b;
  b.version = "0.1.0";
  b.commit = "174c438abcde";
  b.compiler = "GNU 12.2.0";
  b.build_type = "Release";
  if (cuda) b.cuda = "12.4";
  b.cuda_architectures = cuda ? "90" : "";
  b.static_link = cuda;
  return b;
}

// A measured INT8 (LLM.int8) run on an H200 with its FP16 baseline and quality; finalize() applied.
inline RunRecord measured_record(uint32_t seed = 20260819, const std::string& precision = "INT8",
                                 const std::string& format = "int8-llm") {
  std::mt19937 rng(seed);
  RunRecord r;
  r.timestamp_utc = "2026-08-19T06:05:13.804523Z";
  r.system = {"NVIDIA H200", "hopper", 1, "Linux-6.8.0-x86_64-with-glibc2.36"};
  r.workload.model_name = "Qwen/Qwen2-0.5B";
  r.workload.params_b = 0.5;
  r.workload.precision = precision;
  r.workload.context_length = 2048;
  r.workload.weights_source = "checkpoint";
  r.protocol = standard_protocol();

  r.run.engine = engine_record("cuda", precision, format, 620'000'000);
  r.run.iterations = random_iterations(rng, 10, 256, 70.0, 95.0, true);
  r.run.phases = {random_window(rng, "idle", true), random_window(rng, "prefill", true),
                  random_window(rng, "decode", true), random_window(rng, "quality", true)};
  DecodeRun base;
  base.engine = engine_record("cuda", "FP16", "fp16", 988'000'000);
  base.iterations = random_iterations(rng, 10, 256, 60.0, 80.0, true);
  base.phases = {random_window(rng, "prefill", true), random_window(rng, "decode", true)};
  r.baseline = base;

  std::uniform_real_distribution<double> nll(2.80, 2.95);
  Quality q;
  q.basis = Basis::measured;
  q.mean_nll = nll(rng);
  q.perplexity = std::exp(*q.mean_nll);
  q.fp16_mean_nll = *q.mean_nll - 0.004;
  q.fp16_perplexity = std::exp(*q.fp16_mean_nll);
  q.tokens_evaluated = 14123;
  q.windows = 14;
  q.seq_len = 1024;
  q.corpus = Corpus{"ecocompute-mlcube/eval_text.txt", 60600,
                    "22ac091a6383740d30f8e41ae144032c873c772db5e1c901112c1c330fdc5504"};
  q.mean_kl_vs_fp16 = 0.0123;
  q.top1_agreement_vs_fp16 = 0.964;
  r.quality = q;

  r.meter.name = "nvml";
  r.meter.measures_energy = true;
  r.meter.method = "difference of nvmlDeviceGetTotalEnergyConsumption across each window";
  r.meter.sample_rate_hz = 50.0;
  r.meter.counter_update_period_s = 0.1;
  r.meter.details = {{"sample_hz", 50}, {"driver_version", "550.54.15"}};
  r.build = sample_build(true);
  r.environment.host = "gpu-node-1";
  r.environment.os = "Debian GNU/Linux 12 (bookworm) (Linux 6.8.0 x86_64)";
  r.environment.cpu = "AMD EPYC 9654";
  r.environment.cpu_threads = 16;
  r.environment.gpus = {GpuRecord{0, "NVIDIA H200", "GPU-1234", "hopper", 150'000'000'000}};
  r.environment.driver = "550.54.15";
  r.environment.cuda_visible_devices = "0";
  r.environment.gpu_processes = std::vector<GpuProcess>{{4242, "ecocompute", 2'000'000'000}};
  r.environment.shared_gpu = false;
  finalize(r);
  return r;
}

// A CPU run without any energy meter: timings only; energies must come out null.
inline RunRecord unavailable_cpu_record(uint32_t seed = 7) {
  std::mt19937 rng(seed);
  RunRecord r;
  r.timestamp_utc = "2026-08-20T10:00:00Z";
  r.system = {"Intel Xeon", "cpu", 1, "Linux-6.1.0-x86_64"};
  r.workload.model_name = "synthetic-qwen2-0.5b";
  r.workload.precision = "NF4";
  r.workload.weights_source = "synthetic";
  r.protocol = standard_protocol();
  r.protocol.cool_off_s.reset();
  r.run.engine = engine_record("cpu", "NF4", "nf4", 260'000'000);
  r.run.iterations = random_iterations(rng, 10, 256, 0, 1, false);
  r.run.phases = {random_window(rng, "prefill", false), random_window(rng, "decode", false)};
  DecodeRun base;
  base.engine = engine_record("cpu", "FP16", "fp16", 988'000'000);
  base.iterations = random_iterations(rng, 10, 256, 0, 1, false);
  r.baseline = base;
  Quality q;
  q.basis = Basis::unavailable;
  q.error = "quality probe skipped (--no-quality)";
  r.quality = q;
  r.meter.name = "unavailable";
  r.meter.measures_energy = false;
  r.meter.reason = "no NVIDIA GPU and no readable RAPL counters on this machine";
  r.meter.details = {{"name", "unavailable"}, {"measures_energy", false}};
  r.build = sample_build(false);
  r.environment.host = "cpu-box";
  r.environment.os = "Debian GNU/Linux 12 (bookworm)";
  r.environment.cpu = "Intel Xeon";
  r.environment.cpu_threads = 2;
  finalize(r);
  return r;
}

}  // namespace ec::report::test
