// Sweep specs: JSON form, comparison on resume, expansion into cells and the child's command line.
#include "sweep/sweep_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/sha256.h"

namespace ec::sweep {

nlohmann::json to_json(const SweepSpec& spec) {
  nlohmann::json j = {{"models", spec.models},   {"precisions", spec.precisions},
                      {"repeats", spec.repeats}, {"new_tokens", spec.new_tokens},
                      {"backend", spec.backend}, {"iterations", spec.iterations},
                      {"warmup", spec.warmup},   {"run_args", spec.run_args}};
  j["seed"] = spec.seed ? nlohmann::json(*spec.seed) : nlohmann::json(nullptr);
  return j;
}

SweepSpec spec_from_json(const nlohmann::json& j, const std::string& where) {
  SweepSpec s;
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(name)) fail("{}: spec has no field '{}'", where, name);
    return j.at(name);
  };
  try {
    s.models = field("models").get<std::vector<std::string>>();
    s.precisions = field("precisions").get<std::vector<std::string>>();
    s.repeats = field("repeats").get<int>();
    s.new_tokens = field("new_tokens").get<std::vector<int>>();
    s.backend = field("backend").get<std::string>();
    s.iterations = field("iterations").get<int>();
    s.warmup = field("warmup").get<int>();
    s.run_args = field("run_args").get<std::vector<std::string>>();
    if (const auto& seed = field("seed"); !seed.is_null()) {
      // get<uint64_t> would read -1 as 2^64 - 1: only a non-negative integer is a seed.
      if (!seed.is_number_unsigned()) {
        fail("{}: spec field 'seed' is {}, expected null or an integer from 0 to 2^64 - 1", where,
             seed.dump().substr(0, 40));
      }
      s.seed = seed.get<uint64_t>();
    }
  } catch (const nlohmann::json::exception& e) {
    fail("{}: spec field has the wrong type: {}", where, e.what());
  }
  return s;
}

std::vector<std::string> spec_differences(const SweepSpec& manifest, const SweepSpec& now) {
  std::vector<std::string> out;
  const nlohmann::json a = to_json(manifest), b = to_json(now);
  for (const auto& [key, value] : a.items()) {
    if (b.at(key) != value) {
      out.push_back(fmt::format("{}: {} on this command line, {} in the manifest", key,
                                b.at(key).dump(), value.dump()));
    }
  }
  return out;
}

std::string model_slug(const std::string& model) {
  std::string base = model;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  bool path = base.find('/') != std::string::npos;
  if (path) base = base.substr(base.rfind('/') + 1);
  std::string slug;
  for (char c : base) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '-';
    slug += keep ? c : '-';
  }
  if (slug.empty() || slug.front() == '.') slug = "m" + slug;  // never a hidden or empty name
  if (path) slug += "-" + sha256_hex(model).substr(0, 8);
  return slug;
}

std::vector<CellConfig> expand_cells(const SweepSpec& spec) {
  // A value listed twice on one axis would make two cells one: name the axis that repeats it.
  auto once_each = [](const auto& values, std::string_view flag) {
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t k = i + 1; k < values.size(); ++k) {
        if (values[i] == values[k])
          fail_usage("{} lists {} twice: list each once", flag, values[i]);
      }
    }
  };
  once_each(spec.precisions, "--precisions");
  once_each(spec.new_tokens, "--new-tokens");
  // Counted before anything is allocated: a manifest or flag asking for 10^9 replicates is a
  // typo, not a sweep.
  constexpr long double kMaxCells = 100000;
  const long double count = static_cast<long double>(spec.repeats) * spec.models.size() *
                            spec.precisions.size() * spec.new_tokens.size();
  if (spec.repeats < 1 || count > kMaxCells) {
    fail_usage(
        "the sweep has {} cells ({} models × {} precisions × {} token counts × {} repeats); "
        "expected 1 to {}",
        static_cast<double>(count), spec.models.size(), spec.precisions.size(),
        spec.new_tokens.size(), spec.repeats, static_cast<double>(kMaxCells));
  }
  std::vector<CellConfig> cells;
  for (int r = 1; r <= spec.repeats; ++r) {
    for (const auto& model : spec.models) {
      for (const auto& precision : spec.precisions) {
        for (int tokens : spec.new_tokens) {
          CellConfig c{fmt::format("{}_{}_t{}_r{}", model_slug(model), precision, tokens, r), model,
                       precision, tokens, r};
          cells.push_back(std::move(c));
        }
      }
    }
  }
  // Two models with the same slug ("a/x" and "b/x" differ by their hash; "x" and "x/" do not).
  for (size_t i = 0; i < cells.size(); ++i) {
    for (size_t k = i + 1; k < cells.size(); ++k) {
      if (cells[i].id == cells[k].id) {
        fail_usage("models '{}' and '{}' name the same cell '{}': list each model once",
                   cells[i].model, cells[k].model, cells[i].id);
      }
    }
  }
  return cells;
}

std::vector<std::string> run_arguments(const SweepSpec& spec, const CellConfig& cell,
                                       const std::filesystem::path& report, bool one_gpu_visible) {
  std::vector<std::string> args = {"run",
                                   "--model",
                                   cell.model,
                                   "--precision",
                                   cell.precision,
                                   "--backend",
                                   spec.backend,
                                   "--new-tokens",
                                   std::to_string(cell.new_tokens),
                                   "--iterations",
                                   std::to_string(spec.iterations),
                                   "--warmup",
                                   std::to_string(spec.warmup)};
  if (spec.seed) {
    args.push_back("--seed");
    args.push_back(std::to_string(*spec.seed));
  }
  // The child sees exactly one GPU (CUDA_VISIBLE_DEVICES), which is its index 0 for both the
  // engine (cudaSetDevice(0)) and the meter (--gpu counts in CUDA_VISIBLE_DEVICES order).
  if (one_gpu_visible) {
    args.push_back("--gpu");
    args.push_back("0");
  }
  args.insert(args.end(), spec.run_args.begin(), spec.run_args.end());
  args.push_back("--out");
  args.push_back(report.string());
  return args;
}

}  // namespace ec::sweep
