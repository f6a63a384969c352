// The original EcoCompute command line translated into `ecocompute run` (original_compat.h).
#include "cli/original_compat.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

#include "cli/original_params.h"
#include "core/error.h"
#include "core/file_io.h"
#include "model/presets.h"

namespace ec::cli {
namespace {

constexpr std::string_view kOriginalTask = "energy_estimate";

// The original's options that take a value, and its flags. Its parameters file uses the same
// names without the dashes.
constexpr std::array<std::string_view, 16> kValueOptions = {
    "parameters_file", "output_dir",      "model_name", "model",      "precision", "gpu_arch",
    "batch_size",      "params_b",        "tokens",     "iterations", "warmup",    "sample_rate_hz",
    "context_length",  "quality_seq_len", "api_base",   "site"};
constexpr std::array<std::string_view, 3> kFlags = {"dry_run", "prefetch", "share"};
// Names only the original has: `run` followed by one of them is the original's `run` task.
constexpr std::array<std::string_view, 13> kOriginalOnly = {"parameters_file",
                                                            "output_dir",
                                                            "model_name",
                                                            "gpu_arch",
                                                            "batch_size",
                                                            "params_b",
                                                            "tokens",
                                                            "sample_rate_hz",
                                                            "context_length",
                                                            "dry_run",
                                                            "prefetch",
                                                            "api_base",
                                                            "site"};

template <std::size_t N>
bool is_listed(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "--output_dir=x" → ("output_dir", "x"); "--output_dir" → ("output_dir", nullopt).
std::pair<std::string, std::optional<std::string>> split_original_option(std::string_view arg) {
  arg.remove_prefix(2);
  const auto eq = arg.find('=');
  if (eq == std::string_view::npos) return {std::string(arg), std::nullopt};
  return {std::string(arg.substr(0, eq)), std::string(arg.substr(eq + 1))};
}

bool original_true(std::string_view v) {
  return v == "true" || v == "True" || v == "1" || v == "yes";
}
bool original_false(std::string_view v) {
  return v == "false" || v == "False" || v == "0" || v == "no";
}

// A model the original names by its Hugging Face id: a local directory of that name is a
// checkpoint; otherwise the preset copying that repository's config.json, if there is one.
std::string original_model(const std::string& name, std::vector<std::string>& notes) {
  if (std::filesystem::is_directory(name)) return name;
  for (const model::Preset& preset : model::all_presets()) {
    if (preset.source == name) {
      notes.push_back("model '" + name +
                      "': no local checkpoint directory of that name, so the "
                      "preset '" +
                      preset.config.name +
                      "' is measured (the same architecture "
                      "with synthetic weights: its energy figures hold, its perplexity does not); "
                      "pass a checkpoint directory for the real weights");
      return preset.config.name;
    }
  }
  return name;  // a preset name, or an error `run` reports with the list of presets
}

void note_ignored(std::vector<std::string>& notes, std::string_view name, std::string_view why) {
  notes.push_back(std::string("--") + std::string(name) + " ignored: " + std::string(why));
}

}  // namespace

bool is_original_command_line(const std::vector<std::string>& args) {
  if (args.empty()) return false;
  const std::string& first = args.front();
  if (first == kOriginalTask) return true;
  if (first.starts_with("--")) return first != "--help" && first != "--version";
  if (first != "run") return false;
  return std::any_of(args.begin() + 1, args.end(), [](const std::string& a) {
    return a.starts_with("--") && is_listed(kOriginalOnly, split_original_option(a).first);
  });
}

OriginalInvocation translate_original_command_line(const std::vector<std::string>& args) {
  // The original's parameters, then its options over them, as the original merges them.
  std::map<std::string, std::string> params;
  std::map<std::string, std::string> given;
  std::vector<std::string> passthrough;
  std::size_t i = 0;
  if (i < args.size() && (args[i] == kOriginalTask || args[i] == "run")) ++i;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("--")) {
      passthrough.push_back(arg);
      continue;
    }
    auto [name, inline_value] = split_original_option(arg);
    if (is_listed(kFlags, name)) {
      if (inline_value) fail_usage("--{} takes no value", name);
      given[name] = "true";
    } else if (is_listed(kValueOptions, name)) {
      if (!inline_value) {
        if (i + 1 >= args.size()) fail_usage("--{} needs a value", name);
        inline_value = args[++i];
      }
      given[name == "model" ? "model_name" : name] = *inline_value;
    } else {
      passthrough.push_back(arg);  // one of ecocompute's own options, with its value after it
    }
  }
  if (const auto file = given.find("parameters_file"); file != given.end()) {
    params = parse_original_params(read_file(file->second), file->second);
  }
  for (const auto& [key, value] : given) params[key] = value;

  OriginalInvocation out;
  const auto get = [&](const std::string& key, std::string fallback) {
    const auto it = params.find(key);
    return it == params.end() ? fallback : it->second;
  };
  for (const auto& [key, value] : params) {
    const bool known =
        is_listed(kValueOptions, key) || is_listed(kFlags, key) || key == "quality_probe";
    if (!known) fail_usage("parameter '{}' is not one of the original's run parameters", key);
  }
  for (const char* flag : {"dry_run", "prefetch", "share"}) {
    const std::string value = get(flag, "false");
    if (!original_true(value) && !original_false(value)) {
      fail_usage("{} '{}': expected true or false", flag, value);
    }
  }
  if (original_true(get("dry_run", "false"))) {
    fail_usage(
        "--dry_run asks for the original's no-GPU path, a figure read off the published "
        "curves rather than a measurement: use `ecocompute estimate` for that, or "
        "`--backend cpu` to measure on the CPU");
  }
  if (const std::string batch = get("batch_size", "1"); batch != "1") {
    fail_usage(
        "batch_size {}: ecocompute measures batch 1 only (the original's SingleStream "
        "scenario)",
        batch);
  }
  out.output_dir = get("output_dir", "workspace/outputs");
  out.args = {"run"};
  // Each option once: one of ecocompute's own given on the line wins over the translation.
  const auto add = [&](const char* option, std::string value) {
    const bool given_as_own = std::any_of(passthrough.begin(), passthrough.end(), [&](auto& a) {
      return a == option || a.starts_with(std::string(option) + "=");
    });
    if (given_as_own) return;
    out.args.push_back(option);
    if (!value.empty()) out.args.push_back(std::move(value));
  };
  add("--model",
      original_model(get("model_name", "TinyLlama/TinyLlama-1.1B-Chat-v1.0"), out.notes));
  add("--precision", get("precision", "NF4"));
  add("--new-tokens", get("tokens", "256"));
  add("--iterations", get("iterations", "10"));
  add("--warmup", get("warmup", "2"));
  add("--hz", get("sample_rate_hz", "10"));
  add("--out", (std::filesystem::path(out.output_dir) / "energy.json").string());
  if (params.contains("quality_seq_len")) add("--quality-seq-len", params["quality_seq_len"]);
  if (const std::string quality = get("quality_probe", "true"); original_false(quality)) {
    add("--no-quality", "");
  } else if (!original_true(quality)) {
    fail_usage("quality_probe '{}': expected true or false", quality);
  }
  if (params.contains("gpu_arch") && params["gpu_arch"] != "auto") {
    note_ignored(
        out.notes, "gpu_arch",
        "ecocompute names the architecture of the GPU it measures (system_under_test.gpu_arch)");
  }
  if (params.contains("params_b")) {
    note_ignored(out.notes, "params_b", "ecocompute counts the parameters of the model it loads");
  }
  if (params.contains("context_length")) {
    note_ignored(out.notes, "context_length",
                 "the engine sizes its cache from the model and the run");
  }
  for (const char* name : {"prefetch", "share"}) {
    if (original_true(get(name, "false"))) {
      note_ignored(out.notes, name, "ecocompute sends nothing over the network");
    }
  }
  out.args.insert(out.args.end(), passthrough.begin(), passthrough.end());
  return out;
}

bool translate_if_original(int argc, char** argv, std::vector<std::string>& translated) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!is_original_command_line(args)) return false;
  OriginalInvocation inv = translate_original_command_line(args);
  for (const std::string& note : inv.notes) fmt::print(stderr, "ecocompute: note: {}\n", note);
  std::error_code ec;
  std::filesystem::create_directories(inv.output_dir, ec);
  if (ec) fail_usage("--output_dir {}: cannot create it: {}", inv.output_dir, ec.message());
  translated = {argv[0]};
  translated.insert(translated.end(), inv.args.begin(), inv.args.end());
  return true;
}

}  // namespace ec::cli
