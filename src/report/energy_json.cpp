// RunRecord -> energy.json and back, and write_report (validate first, then write atomically).
#include "report/energy_json.h"

#include <cmath>
#include <string>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/file_io.h"
#include "report/validate.h"

namespace ec::report {
namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json to_json(const Results& r) {
  json j = {
      {"total_energy_joules", or_null(r.total_energy_j)},
      {"tokens_generated", or_null(r.tokens_generated)},
      {"energy_per_token_mj", or_null(r.energy_per_token_mj)},
      {"fp16_energy_per_token_mj", or_null(r.fp16_energy_per_token_mj)},
      {"vs_fp16_energy_pct", or_null(r.vs_fp16_energy_pct)},
      {"avg_power_watts", or_null(r.avg_power_w)},
      {"throughput_tokens_per_s", or_null(r.throughput_tok_s)},
      {"seconds", or_null(r.seconds)},
      {"basis", basis_name(r.basis)},
  };
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

json to_json(const EngineRecord& e) {
  json j = {{"backend", e.backend},
            {"precision", e.precision},
            {"weight_format", e.weight_format},
            {"kernel_variant", e.kernel_variant},
            {"compute_dtype", e.compute_dtype},
            {"cuda_graph", e.cuda_graph},
            {"weight_bytes", e.weight_bytes},
            {"max_context", e.max_context},
            {"threads", e.threads},
            {"device_name", e.device_name}};
  // Reports written before it was recorded do not have it; they read back without it.
  if (!e.kernel_variant_choice.empty()) j["kernel_variant_choice"] = e.kernel_variant_choice;
  if (!e.tuning_table.empty()) {
    j["tuning_table"] = {{"name", e.tuning_table}, {"sha256", e.tuning_table_sha256}};
  }
  if (e.external) {
    j["external"] = {{"command", e.external->command},
                     {"label", e.external->label},
                     {"versions", e.external->versions}};
  }
  return j;
}

// `generations` is written whenever the window rule applied or an iteration held more than one
// (older reports have neither, and read back unchanged).
json to_json(const std::vector<Iteration>& iterations, bool with_generations) {
  json list = json::array();
  for (const auto& it : iterations) {
    json j = {{"seconds", it.seconds},
              {"tokens", it.tokens},
              {"energy_j", or_null(it.energy_j)},
              {"tokens_per_s", it.tokens_per_s()}};
    if (with_generations || it.generations != 1) j["generations"] = it.generations;
    list.push_back(std::move(j));
  }
  return list;
}

json to_json(const std::vector<meter::WindowResult>& phases) {
  json list = json::array();
  for (const auto& w : phases) {
    json p = {{"name", w.name},
              {"seconds", w.seconds},
              {"energy_j", or_null(w.energy_j)},
              {"energy_source", w.energy_source},
              {"avg_power_w", or_null(w.avg_power_w)},
              {"telemetry", w.telemetry.is_object() ? w.telemetry : json{{"value", w.telemetry}}}};
    if (w.cross_check_energy_j || !w.cross_check_source.empty()) {
      p["cross_check_energy_j"] = or_null(w.cross_check_energy_j);
      p["cross_check_source"] = w.cross_check_source;
    }
    list.push_back(std::move(p));
  }
  return list;
}

json to_json(const MeterRecord& m) {
  json j = {{"name", m.name},
            {"measures_energy", m.measures_energy},
            {"method", m.method},
            {"sample_rate_hz", or_null(m.sample_rate_hz)},
            {"counter_update_period_s", or_null(m.counter_update_period_s)},
            {"energy_source", m.energy_source},
            {"cross_check_source", m.cross_check_source},
            {"details", m.details.is_object() ? m.details : json::object()}};
  if (!m.reason.empty()) j["reason"] = m.reason;
  return j;
}

json to_json(const BuildRecord& b) {
  return {{"version", b.version},    {"commit", b.commit},
          {"compiler", b.compiler},  {"build_type", b.build_type},
          {"cuda", or_null(b.cuda)}, {"cuda_architectures", b.cuda_architectures},
          {"static", b.static_link}};
}

json to_json(const Environment& e) {
  json gpus = json::array();
  for (const auto& g : e.gpus) {
    json j = {{"index", g.index}, {"name", g.name}};
    if (!g.uuid.empty()) j["uuid"] = g.uuid;
    if (!g.arch.empty()) j["arch"] = g.arch;
    if (g.memory_bytes) j["memory_bytes"] = *g.memory_bytes;
    gpus.push_back(std::move(j));
  }
  json processes = nullptr;
  if (e.gpu_processes) {
    processes = json::array();
    for (const auto& p : *e.gpu_processes) {
      processes.push_back(
          {{"pid", p.pid}, {"name", p.name}, {"used_memory_bytes", or_null(p.used_memory_bytes)}});
    }
  }
  return {{"host", e.host},
          {"os", e.os},
          {"cpu", e.cpu},
          {"cpu_threads", e.cpu_threads},
          {"gpus", std::move(gpus)},
          {"driver", or_null(e.driver)},
          {"cuda_visible_devices", or_null(e.cuda_visible_devices)},
          {"gpu_processes", std::move(processes)},
          {"shared_gpu", or_null(e.shared_gpu)}};
}

json to_json(const Protocol& p) {
  json j = {{"prompt", p.prompt}, {"prompt_tokens", p.prompt_tokens}, {"new_tokens", p.new_tokens},
            {"warmup", p.warmup}, {"iterations", p.iterations},       {"batch", p.batch}};
  if (p.cool_off_s) j["cool_off_s"] = *p.cool_off_s;
  if (p.seed) j["seed"] = *p.seed;
  if (p.min_window_counter_periods) j["min_window_counter_periods"] = *p.min_window_counter_periods;
  return j;
}

json to_json(const Quality& q) {
  json j = {{"metric", "perplexity"},
            {"basis", basis_name(q.basis)},
            {"value", or_null(q.perplexity)},
            {"fp16_value", or_null(q.fp16_perplexity)},
            {"delta_vs_fp16_pct", or_null(q.delta_vs_fp16_pct)},
            {"mean_nll", or_null(q.mean_nll)},
            {"fp16_mean_nll", or_null(q.fp16_mean_nll)},
            {"tokens_evaluated", or_null(q.tokens_evaluated)},
            {"windows", or_null(q.windows)},
            {"seq_len", or_null(q.seq_len)},
            {"mean_kl_vs_fp16", or_null(q.mean_kl_vs_fp16)},
            {"top1_agreement_vs_fp16", or_null(q.top1_agreement_vs_fp16)}};
  j["corpus"] =
      q.corpus
          ? json{{"name", q.corpus->name}, {"bytes", q.corpus->bytes}, {"sha256", q.corpus->sha256}}
          : json(nullptr);
  if (!q.error.empty()) j["error"] = q.error;
  if (!q.note.empty()) j["note"] = q.note;
  if (!q.delta_note.empty()) j["delta_note"] = q.delta_note;
  return j;
}

// ---- reading back: every access names its JSON pointer ----

std::string join(const std::string& base, std::string_view key) {
  return fmt::format("{}/{}", base, key);
}

const json& member(const json& object, const std::string& base, const char* key) {
  EC_CHECK(object.is_object(), "{}: expected an object", base.empty() ? "/" : base);
  auto it = object.find(key);
  EC_CHECK(it != object.end(), "{}: missing required field", join(base, key));
  return *it;
}

template <class T>
T convert(const json& v, const std::string& pointer) {
  if constexpr (std::is_same_v<T, bool>) {
    EC_CHECK(v.is_boolean(), "{}: expected a boolean, got {}", pointer, v.dump());
  } else if constexpr (std::is_integral_v<T>) {
    EC_CHECK(v.is_number_integer(), "{}: expected an integer, got {}", pointer, v.dump());
  } else if constexpr (std::is_floating_point_v<T>) {
    EC_CHECK(v.is_number(), "{}: expected a number, got {}", pointer, v.dump());
  } else {
    EC_CHECK(v.is_string(), "{}: expected a string, got {}", pointer, v.dump());
  }
  return v.get<T>();
}

template <class T>
T req(const json& object, const std::string& base, const char* key) {
  return convert<T>(member(object, base, key), join(base, key));
}

// Missing or null: nullopt.
template <class T>
std::optional<T> opt(const json& object, const std::string& base, const char* key) {
  EC_CHECK(object.is_object(), "{}: expected an object", base.empty() ? "/" : base);
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return convert<T>(*it, join(base, key));
}

std::string opt_string(const json& object, const std::string& base, const char* key) {
  return opt<std::string>(object, base, key).value_or("");
}

Results results_from(const json& j, const std::string& base) {
  Results r;
  r.basis = parse_basis(req<std::string>(j, base, "basis"));
  r.total_energy_j = opt<double>(j, base, "total_energy_joules");
  r.tokens_generated = opt<int64_t>(j, base, "tokens_generated");
  r.seconds = opt<double>(j, base, "seconds");
  r.energy_per_token_mj = opt<double>(j, base, "energy_per_token_mj");
  r.avg_power_w = opt<double>(j, base, "avg_power_watts");
  r.throughput_tok_s = opt<double>(j, base, "throughput_tokens_per_s");
  r.fp16_energy_per_token_mj = opt<double>(j, base, "fp16_energy_per_token_mj");
  r.vs_fp16_energy_pct = opt<double>(j, base, "vs_fp16_energy_pct");
  r.note = opt_string(j, base, "note");
  return r;
}

const json& array_member(const json& object, const std::string& base, const char* key);

EngineRecord engine_from(const json& j, const std::string& base) {
  EngineRecord e;
  e.backend = req<std::string>(j, base, "backend");
  e.precision = req<std::string>(j, base, "precision");
  e.weight_format = req<std::string>(j, base, "weight_format");
  e.kernel_variant = req<std::string>(j, base, "kernel_variant");
  e.kernel_variant_choice = opt_string(j, base, "kernel_variant_choice");
  if (const auto it = j.find("tuning_table"); it != j.end()) {
    const std::string where = base + ".tuning_table";
    e.tuning_table = req<std::string>(*it, where, "name");
    e.tuning_table_sha256 = req<std::string>(*it, where, "sha256");
  }
  e.compute_dtype = req<std::string>(j, base, "compute_dtype");
  e.cuda_graph = req<bool>(j, base, "cuda_graph");
  e.weight_bytes = req<int64_t>(j, base, "weight_bytes");
  e.max_context = req<int>(j, base, "max_context");
  e.threads = req<int>(j, base, "threads");
  e.device_name = req<std::string>(j, base, "device_name");
  if (auto x = j.find("external"); x != j.end() && !x->is_null()) {
    const std::string at = join(base, "external");
    ExternalCommand ext;
    const json& command = array_member(*x, at, "command");
    for (size_t i = 0; i < command.size(); ++i) {
      ext.command.push_back(convert<std::string>(command[i], fmt::format("{}/command/{}", at, i)));
    }
    ext.label = req<std::string>(*x, at, "label");
    const json& versions = member(*x, at, "versions");
    EC_CHECK(versions.is_object(), "{}/versions: expected an object", at);
    for (const auto& [name, value] : versions.items()) {
      ext.versions[name] = convert<std::string>(value, fmt::format("{}/versions/{}", at, name));
    }
    e.external = std::move(ext);
  }
  return e;
}

const json& array_member(const json& object, const std::string& base, const char* key) {
  const json& list = member(object, base, key);
  EC_CHECK(list.is_array(), "{}: expected an array", join(base, key));
  return list;
}

std::vector<Iteration> iterations_from(const json& object, const std::string& base) {
  std::vector<Iteration> out;
  const std::string pointer = join(base, "iterations");
  const json& list = array_member(object, base, "iterations");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("{}/{}", pointer, i);
    Iteration it;
    it.seconds = req<double>(list[i], at, "seconds");
    it.tokens = req<int64_t>(list[i], at, "tokens");
    it.energy_j = opt<double>(list[i], at, "energy_j");
    it.generations = opt<int64_t>(list[i], at, "generations").value_or(1);
    out.push_back(it);
  }
  return out;
}

std::vector<meter::WindowResult> phases_from(const json& object, const std::string& base) {
  std::vector<meter::WindowResult> out;
  const std::string pointer = join(base, "phases");
  const json& list = array_member(object, base, "phases");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("{}/{}", pointer, i);
    meter::WindowResult w;
    w.name = req<std::string>(list[i], at, "name");
    w.seconds = req<double>(list[i], at, "seconds");
    w.energy_j = opt<double>(list[i], at, "energy_j");
    w.energy_source = opt_string(list[i], at, "energy_source");
    w.cross_check_energy_j = opt<double>(list[i], at, "cross_check_energy_j");
    w.cross_check_source = opt_string(list[i], at, "cross_check_source");
    w.avg_power_w = opt<double>(list[i], at, "avg_power_w");
    if (auto t = list[i].find("telemetry"); t != list[i].end()) w.telemetry = *t;
    out.push_back(std::move(w));
  }
  return out;
}

DecodeRun decode_run_from(const json& object, const std::string& base) {
  DecodeRun side;
  side.engine = engine_from(member(object, base, "engine"), join(base, "engine"));
  side.results = results_from(member(object, base, "results"), join(base, "results"));
  side.iterations = iterations_from(object, base);
  side.phases = phases_from(object, base);
  return side;
}

Quality quality_from(const json& j, const std::string& base) {
  Quality q;
  q.basis = parse_basis(req<std::string>(j, base, "basis"));
  q.perplexity = opt<double>(j, base, "value");
  q.fp16_perplexity = opt<double>(j, base, "fp16_value");
  q.delta_vs_fp16_pct = opt<double>(j, base, "delta_vs_fp16_pct");
  q.mean_nll = opt<double>(j, base, "mean_nll");
  q.fp16_mean_nll = opt<double>(j, base, "fp16_mean_nll");
  q.tokens_evaluated = opt<int64_t>(j, base, "tokens_evaluated");
  q.windows = opt<int>(j, base, "windows");
  q.seq_len = opt<int>(j, base, "seq_len");
  q.mean_kl_vs_fp16 = opt<double>(j, base, "mean_kl_vs_fp16");
  q.top1_agreement_vs_fp16 = opt<double>(j, base, "top1_agreement_vs_fp16");
  if (auto c = j.find("corpus"); c != j.end() && !c->is_null()) {
    const std::string at = join(base, "corpus");
    q.corpus = Corpus{req<std::string>(*c, at, "name"), req<int64_t>(*c, at, "bytes"),
                      req<std::string>(*c, at, "sha256")};
  }
  q.error = opt_string(j, base, "error");
  q.note = opt_string(j, base, "note");
  q.delta_note = opt_string(j, base, "delta_note");
  return q;
}

Environment environment_from(const json& j, const std::string& base) {
  Environment e;
  e.host = req<std::string>(j, base, "host");
  e.os = req<std::string>(j, base, "os");
  e.cpu = req<std::string>(j, base, "cpu");
  e.cpu_threads = req<int>(j, base, "cpu_threads");
  const json& gpus = array_member(j, base, "gpus");
  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::string at = fmt::format("{}/gpus/{}", base, i);
    GpuRecord g;
    g.index = req<int>(gpus[i], at, "index");
    g.name = req<std::string>(gpus[i], at, "name");
    g.uuid = opt_string(gpus[i], at, "uuid");
    g.arch = opt_string(gpus[i], at, "arch");
    g.memory_bytes = opt<int64_t>(gpus[i], at, "memory_bytes");
    e.gpus.push_back(std::move(g));
  }
  e.driver = opt<std::string>(j, base, "driver");
  e.cuda_visible_devices = opt<std::string>(j, base, "cuda_visible_devices");
  if (auto p = j.find("gpu_processes"); p != j.end() && !p->is_null()) {
    EC_CHECK(p->is_array(), "{}/gpu_processes: expected an array or null", base);
    e.gpu_processes.emplace();
    for (size_t i = 0; i < p->size(); ++i) {
      const std::string at = fmt::format("{}/gpu_processes/{}", base, i);
      const json& item = (*p)[i];
      e.gpu_processes->push_back({req<int64_t>(item, at, "pid"), req<std::string>(item, at, "name"),
                                  opt<int64_t>(item, at, "used_memory_bytes")});
    }
  }
  e.shared_gpu = opt<bool>(j, base, "shared_gpu");
  return e;
}

// grams of CO2e per 1k tokens = J per 1k tokens / 3.6e6 J/kWh × PUE × g/kWh, from measured energy
// only.
json co2e_json(const Co2eInputs& in, const Results& run, const std::optional<DecodeRun>& baseline) {
  auto grams_per_1k = [&](const Results& r) -> json {
    if (r.basis != Basis::measured || !r.energy_per_token_mj) return nullptr;
    return *r.energy_per_token_mj / 3.6e6 * in.pue * in.grid_gco2_per_kwh;
  };
  json out = {{"basis", "derived"},
              {"grid_gco2_per_kwh", in.grid_gco2_per_kwh},
              {"pue", in.pue},
              {"g_per_1k_tokens", grams_per_1k(run)},
              {"fp16_g_per_1k_tokens", baseline ? grams_per_1k(baseline->results) : json(nullptr)}};
  out["note"] =
      out["g_per_1k_tokens"].is_null()
          ? "no measured energy in this run, so no CO2e was derived"
          : "derived: measured energy × the user-supplied PUE and grid intensity; not measured";
  return out;
}

}  // namespace

json to_json(const RunRecord& record) {
  const auto& m = record.meter;
  const auto& p = record.protocol;
  json report;
  report["schema_version"] = kSchemaVersion;
  report["report_format"] = kReportFormat;
  report["benchmark"] = kBenchmark;
  report["certified_benchmark_result"] = false;
  report["scenario"] = p.batch == 1 ? "SingleStream" : "Offline";
  if (!record.scenario_note.empty()) report["scenario_note"] = record.scenario_note;
  report["timestamp_utc"] = record.timestamp_utc;

  json sut = {{"gpu", record.system.gpu},
              {"gpu_arch", record.system.gpu_arch},
              {"accelerator_count", record.system.accelerator_count}};
  if (!record.system.host.empty()) sut["host"] = record.system.host;
  report["system_under_test"] = std::move(sut);

  const auto& w = record.workload;
  json workload = {{"model_name", w.model_name},
                   {"params_b", or_null(w.params_b)},
                   {"precision", w.precision},
                   {"batch_size", w.batch_size},
                   {"quantization_backend", w.quantization_backend}};
  if (w.context_length) workload["context_length"] = *w.context_length;
  if (!w.weights_source.empty()) workload["weights_source"] = w.weights_source;
  report["workload"] = std::move(workload);

  // The original's measurement block, derived from the meter and the protocol.
  std::string method = m.method;
  if (method.empty()) {
    method = m.measures_energy ? fmt::format("{} meter, source {}", m.name, m.energy_source)
                               : fmt::format("no energy meter ({})", m.name);
  }
  report["measurement"] = {
      {"method", method},
      {"sample_rate_hz", static_cast<int64_t>(std::llround(m.sample_rate_hz.value_or(0.0)))},
      {"tokens_per_run", p.new_tokens},
      {"iterations", p.iterations},
      {"warmup", p.warmup},
      {"iterations_note",
       "decode iterations within this run, integrated into one total; NOT independent trials"}};

  json software = {
      {"packages", {{"ecocompute", record.build.version}}},
      {"comparability_note",
       fmt::format("ecocompute's own kernels (commit {}, {} backend), not bitsandbytes: compare "
                   "with the original's reports as a method, not kernel for kernel",
                   record.build.commit, record.run.engine.backend)}};
  if (const auto& ext = record.run.engine.external) {
    for (const auto& [name, version] : ext->versions) software["packages"][name] = version;
    software["comparability_note"] = fmt::format(
        "the model ran in an external command ({}), metered by ecocompute {} through the marker "
        "protocol: its kernels are the command's, its meter, windows and statistics ecocompute's",
        ext->command.empty() ? std::string("?") : ext->command.front(), record.build.version);
  }
  if (record.environment.driver) software["nvidia_driver"] = *record.environment.driver;
  report["software"] = std::move(software);

  report["measurement_source"] =
      m.measures_energy && !m.energy_source.empty() ? m.energy_source : std::string("none");
  report["results"] = to_json(record.run.results);
  if (record.quality) report["quality"] = to_json(*record.quality);

  report["engine"] = to_json(record.run.engine);
  const bool with_generations = p.min_window_counter_periods.has_value();
  report["iterations"] = to_json(record.run.iterations, with_generations);
  report["phases"] = to_json(record.run.phases);
  if (record.baseline) {
    report["baseline"] = {{"engine", to_json(record.baseline->engine)},
                          {"results", to_json(record.baseline->results)},
                          {"iterations", to_json(record.baseline->iterations, with_generations)},
                          {"phases", to_json(record.baseline->phases)}};
  }
  report["meter"] = to_json(m);
  report["build"] = to_json(record.build);
  report["environment"] = to_json(record.environment);
  report["protocol"] = to_json(p);
  if (record.co2e) report["co2e"] = co2e_json(*record.co2e, record.run.results, record.baseline);
  return report;
}

RunRecord run_record_from_json(const json& report) {
  EC_CHECK(report.is_object(), "/: expected a report object");
  RunRecord r;
  r.timestamp_utc = req<std::string>(report, "", "timestamp_utc");
  r.scenario_note = opt_string(report, "", "scenario_note");
  if (auto c = report.find("co2e"); c != report.end() && !c->is_null()) {
    r.co2e =
        Co2eInputs{req<double>(*c, "/co2e", "grid_gco2_per_kwh"), req<double>(*c, "/co2e", "pue")};
  }

  const json& sut = member(report, "", "system_under_test");
  r.system.gpu = req<std::string>(sut, "/system_under_test", "gpu");
  r.system.gpu_arch = req<std::string>(sut, "/system_under_test", "gpu_arch");
  r.system.accelerator_count = req<int>(sut, "/system_under_test", "accelerator_count");
  r.system.host = opt_string(sut, "/system_under_test", "host");

  const json& w = member(report, "", "workload");
  r.workload.model_name = req<std::string>(w, "/workload", "model_name");
  r.workload.params_b = opt<double>(w, "/workload", "params_b");
  r.workload.precision = req<std::string>(w, "/workload", "precision");
  r.workload.batch_size = req<int>(w, "/workload", "batch_size");
  r.workload.context_length = opt<int>(w, "/workload", "context_length");
  r.workload.quantization_backend = opt_string(w, "/workload", "quantization_backend");
  r.workload.weights_source = opt_string(w, "/workload", "weights_source");

  const json& p = member(report, "", "protocol");
  r.protocol.prompt = req<std::string>(p, "/protocol", "prompt");
  r.protocol.prompt_tokens = req<int>(p, "/protocol", "prompt_tokens");
  r.protocol.new_tokens = req<int>(p, "/protocol", "new_tokens");
  r.protocol.warmup = req<int>(p, "/protocol", "warmup");
  r.protocol.iterations = req<int>(p, "/protocol", "iterations");
  r.protocol.batch = req<int>(p, "/protocol", "batch");
  r.protocol.cool_off_s = opt<double>(p, "/protocol", "cool_off_s");
  r.protocol.seed = opt<int64_t>(p, "/protocol", "seed");
  r.protocol.min_window_counter_periods = opt<double>(p, "/protocol", "min_window_counter_periods");

  r.run.engine = engine_from(member(report, "", "engine"), "/engine");
  r.run.results = results_from(member(report, "", "results"), "/results");
  r.run.iterations = iterations_from(report, "");
  r.run.phases = phases_from(report, "");
  if (auto b = report.find("baseline"); b != report.end() && !b->is_null()) {
    r.baseline = decode_run_from(*b, "/baseline");
  }
  if (auto q = report.find("quality"); q != report.end() && !q->is_null()) {
    r.quality = quality_from(*q, "/quality");
  }

  const json& m = member(report, "", "meter");
  r.meter.name = req<std::string>(m, "/meter", "name");
  r.meter.measures_energy = req<bool>(m, "/meter", "measures_energy");
  r.meter.reason = opt_string(m, "/meter", "reason");
  r.meter.method = opt_string(m, "/meter", "method");
  r.meter.sample_rate_hz = opt<double>(m, "/meter", "sample_rate_hz");
  r.meter.counter_update_period_s = opt<double>(m, "/meter", "counter_update_period_s");
  r.meter.energy_source = opt_string(m, "/meter", "energy_source");
  r.meter.cross_check_source = opt_string(m, "/meter", "cross_check_source");
  if (auto d = m.find("details"); d != m.end() && d->is_object()) r.meter.details = *d;

  const json& b = member(report, "", "build");
  r.build.version = req<std::string>(b, "/build", "version");
  r.build.commit = req<std::string>(b, "/build", "commit");
  r.build.compiler = req<std::string>(b, "/build", "compiler");
  r.build.build_type = req<std::string>(b, "/build", "build_type");
  r.build.cuda = opt<std::string>(b, "/build", "cuda");
  r.build.cuda_architectures = opt_string(b, "/build", "cuda_architectures");
  r.build.static_link = req<bool>(b, "/build", "static");

  r.environment = environment_from(member(report, "", "environment"), "/environment");
  return r;
}

void write_report_json(const std::filesystem::path& path, const json& report) {
  // Validated as `validate` will read it back: a NaN or Inf in memory is written as null, which
  // the schema refuses, so checking the in-memory document alone would let such a report out.
  const std::string text = report.dump(2) + "\n";
  const ValidationResult result = validate_report(json::parse(text), path.string());
  if (!result.ok()) {
    fail("refusing to write invalid report {} ({} failure{}):\n  {}", path.string(),
         result.failures.size(), result.failures.size() == 1 ? "" : "s",
         fmt::join(result.failures, "\n  "));
  }
  write_file_atomic(path, text);
}

void write_report(const std::filesystem::path& path, const RunRecord& record) {
  write_report_json(path, to_json(record));
}

}  // namespace ec::report
