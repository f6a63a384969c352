// The plain record one benchmark run produces; energy_json.h turns it into energy.json.
// One struct per report block (docs/report-format.md). Absent optionals become JSON null: "not
// measured", never zero. Units: J, mJ per token (== J per 1k tokens), W, s, tokens per s.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meter/meter.h"

namespace ec::report {

// How a figure was obtained. Only a hardware meter reading taken in this run is `measured`.
enum class Basis { measured, interpolated, extrapolated, unavailable };
std::string_view basis_name(Basis basis);
// Throws ec::Error naming the text and the allowed values.
Basis parse_basis(std::string_view text);

// report "system_under_test": the device that ran the model.
struct SystemUnderTest {
  std::string gpu;       // GPU name; for a CPU run the CPU model
  std::string gpu_arch;  // "ada", "hopper", ...; "cpu" for a CPU run
  int accelerator_count = 1;
  std::string host;  // OS/platform string, as the original writes it
};

// report "workload": what was run.
struct Workload {
  std::string model_name;          // e.g. "Qwen/Qwen2-0.5B" or a preset name for synthetic weights
  std::optional<double> params_b;  // billions of parameters
  std::string precision = "FP16";  // FP16 | BF16 | INT8 | INT8-WO | NF4 | NF4-DQ
  int batch_size = 1;
  std::optional<int> context_length;  // the model's context, tokens
  std::string quantization_backend = "ecocompute";
  std::string weights_source;  // "checkpoint" | "synthetic"; "" = not recorded
};

// report "protocol": the published protocol's parameters as run.
struct Protocol {
  std::string prompt;
  int prompt_tokens = 0;
  int new_tokens = 256;  // generated per iteration (greedy, min = max)
  int warmup = 2;        // unmeasured iterations
  int iterations = 10;   // measured decode iterations, integrated into one total
  int batch = 1;
  std::optional<double> cool_off_s;  // s of rest before the measured iterations
  std::optional<int64_t> seed;
  // The window rule (docs/method.md): each measured iteration lasted at least this many updates
  // of the energy counter; absent when no rule applied (no counter, or turned off).
  std::optional<double> min_window_counter_periods;
};

// One measured decode iteration (report "iterations[]" and "baseline.iterations[]").
struct Iteration {
  double seconds = 0.0;            // s of decode
  int64_t tokens = 0;              // tokens generated (new_tokens × generations)
  int64_t generations = 1;         // generations of new_tokens inside this one window
  std::optional<double> energy_j;  // J; absent when the meter measures no energy
  double tokens_per_s() const {
    return seconds > 0.0 ? static_cast<double>(tokens) / seconds : 0.0;
  }
};

// report "results" (and "baseline.results"): the original's totals block, field for field.
struct Results {
  Basis basis = Basis::unavailable;
  std::optional<double> total_energy_j;            // J over all measured iterations
  std::optional<int64_t> tokens_generated;         // tokens over all measured iterations
  std::optional<double> seconds;                   // s of measured decode
  std::optional<double> energy_per_token_mj;       // mJ per token == J per 1k tokens
  std::optional<double> avg_power_w;               // W = total_energy_j / seconds
  std::optional<double> throughput_tok_s;          // tokens per s = tokens / seconds
  std::optional<double> fp16_energy_per_token_mj;  // the FP16 baseline's mJ per token
  std::optional<double> vs_fp16_energy_pct;  // (E / E_fp16 - 1) * 100; negative = saves energy
  std::string note;                          // required (non-empty) when basis is unavailable
};

// report "engine.external": a command measured through the marker protocol (docs/marks.md).
struct ExternalCommand {
  std::vector<std::string> command;             // argv as run
  std::string label;                            // the command's name for this side
  std::map<std::string, std::string> versions;  // what the command reported ("torch": "2.11")
};

// report "engine" (and "baseline.engine"): mirrors engine::EngineInfo (see from_engine_info.h).
struct EngineRecord {
  std::string backend;        // "cpu" | "cuda"
  std::string precision;      // "FP16", "INT8", ...
  std::string weight_format;  // "fp16", "int8-llm", "nf4-dq", ...
  std::string kernel_variant;
  // "table" | "table+heuristic" | "heuristic" | "pinned" | "fixed"; older reports also "tuned" |
  // "untuned"; "" = not recorded
  std::string kernel_variant_choice;
  // The tuning table the kernel choice read (name and SHA-256); empty when none was read.
  std::string tuning_table;
  std::string tuning_table_sha256;
  std::string compute_dtype;
  bool cuda_graph = false;
  int64_t weight_bytes = 0;  // bytes of weights read per decoded token
  int max_context = 0;       // tokens
  int threads = 0;
  std::string device_name;
  std::optional<ExternalCommand> external;  // backend "external": the command that ran the model
};

// One precision's decode measurement: the quantized run at the top level, the FP16 one in
// "baseline".
struct DecodeRun {
  EngineRecord engine;
  Results results;
  std::vector<Iteration> iterations;
  std::vector<meter::WindowResult> phases;  // named meter windows (prefill, decode, quality, ...)
};

// report "meter": which meter produced the energy figures and how.
struct MeterRecord {
  std::string name;  // "nvml", "rapl", "unavailable"
  bool measures_energy = false;
  std::string reason;                             // why not, when measures_energy is false
  std::string method;                             // one line for the original's measurement.method
  std::optional<double> sample_rate_hz;           // power samples per s
  std::optional<double> counter_update_period_s;  // s between energy-counter updates
  std::string energy_source;                      // e.g. "nvml_total_energy_counter"
  std::string cross_check_source;                 // e.g. "nvml_power_samples_trapezoid"
  nlohmann::json details = nlohmann::json::object();  // Meter::describe(), verbatim
};

// report "build": this binary (see this_build()).
struct BuildRecord {
  std::string version;
  std::string commit;
  std::string compiler;
  std::string build_type;
  std::optional<std::string> cuda;  // CUDA toolkit version; absent without the CUDA backend
  std::string cuda_architectures;
  bool static_link = false;  // "static" in the report
};

struct GpuRecord {
  int index = 0;
  std::string name;
  std::string uuid;  // "" = not recorded
  std::string arch;  // "" = not recorded
  std::optional<int64_t> memory_bytes;
};

struct GpuProcess {
  int64_t pid = 0;
  std::string name;
  std::optional<int64_t> used_memory_bytes;
};

// report "environment": the machine the run happened on.
struct Environment {
  std::string host;  // hostname
  std::string os;    // kernel and distribution
  std::string cpu;   // CPU model
  int cpu_threads = 0;
  std::vector<GpuRecord> gpus;
  std::optional<std::string> driver;                     // NVIDIA driver version
  std::optional<std::string> cuda_visible_devices;       // absent = variable not set
  std::optional<std::vector<GpuProcess>> gpu_processes;  // absent = could not be listed
  std::optional<bool> shared_gpu;                        // another process used the GPU
};

struct Corpus {
  std::string name;
  int64_t bytes = 0;
  std::string sha256;  // lower-case hex
};

// report "quality": teacher-forced perplexity, scored after the meter stopped.
struct Quality {
  Basis basis = Basis::unavailable;         // measured | unavailable only
  std::optional<double> perplexity;         // "value"
  std::optional<double> mean_nll;           // nats per predicted token
  std::optional<int64_t> tokens_evaluated;  // predicted tokens
  std::optional<int> windows;
  std::optional<int> seq_len;
  std::optional<Corpus> corpus;
  std::optional<double> fp16_perplexity;  // "fp16_value"
  std::optional<double> fp16_mean_nll;
  std::optional<double> delta_vs_fp16_pct;       // (ppl / ppl_fp16 - 1) * 100; positive = worse
  std::optional<double> mean_kl_vs_fp16;         // nats per predicted token, KL(P_fp16 || P_this)
  std::optional<double> top1_agreement_vs_fp16;  // fraction in [0, 1]
  std::string error;                             // why it is unavailable
  std::string note;
  std::string delta_note;
};

// Everything one `ecocompute run` records.
// Optional CO2e inputs the user supplied (--grid-gco2-per-kwh, --pue); the report derives grams
// from the measured energy with them and labels the result `derived`, never `measured`.
struct Co2eInputs {
  double grid_gco2_per_kwh = 0.0;
  double pue = 1.0;
};

struct RunRecord {
  std::string timestamp_utc;  // "2026-08-19T06:05:13.804523Z" (utc_timestamp_now())
  SystemUnderTest system;
  Workload workload;
  Protocol protocol;
  DecodeRun run;                      // the requested precision
  std::optional<DecodeRun> baseline;  // FP16 in the same process; absent for an FP16 run
  std::optional<Quality> quality;
  MeterRecord meter;
  BuildRecord build;
  Environment environment;
  std::string scenario_note;  // "" = none
  std::optional<Co2eInputs> co2e;
};

// Totals of `iterations`: tokens, seconds and, when every iteration has one, energy, with the
// derived mJ per token, W and tokens per s. Basis and note are copied from `basis`/`note`.
Results summarize_iterations(const std::vector<Iteration>& iterations, Basis basis,
                             std::string note);

// Derives what follows from the rest, so a bench fills only what it observed:
// * results (run and baseline) from their iterations when there are any; basis `measured` when the
//   meter measures energy and every iteration has an energy figure, else `unavailable` with the
//   reason (and then the partial iteration energies are cleared: a total with a hole is not
//   reported);
// * results.fp16_energy_per_token_mj and vs_fp16_energy_pct from the baseline;
// * quality.delta_vs_fp16_pct from its perplexities;
// * meter.energy_source / cross_check_source, when empty, from the first phase that has them.
void finalize(RunRecord& record);

// The meter's self-description as a record (describe() keys "method", "sample_rate_hz" or
// "sample_hz", "counter_update_period_s", "energy_source", "cross_check_source" when present).
MeterRecord describe_meter(const meter::Meter& meter);

// This binary's build facts (ec::build_info()).
BuildRecord this_build();

// Host name, OS, CPU model and threads, CUDA_VISIBLE_DEVICES; GPU fields are left to the
// bench/meter.
Environment probe_host_environment();

// Now, as "YYYY-MM-DDTHH:MM:SS.ffffffZ".
std::string utc_timestamp_now();

}  // namespace ec::report
