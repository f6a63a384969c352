// `ecocompute sweep`: flag parsing and printing around ec::sweep (run here, --emit-slurm,
// --collect, and the array task's --cell).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "analysis/table.h"
#include "bench/preflight.h"
#include "cli/commands.h"
#include "cli/sweep_commands.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/progress.h"
#include "engine/engine.h"
#include "sweep/child_process.h"
#include "sweep/cool_off.h"
#include "sweep/manifest.h"
#include "sweep/summary.h"
#include "sweep/sweep_driver.h"
#include "sweep/value_list.h"

namespace ec::cli {
namespace {

struct SweepFlags {
  std::string models;
  std::string precisions = "FP16,INT8,NF4";
  int repeats = 3;
  std::string new_tokens = "256";
  int iterations = 10;
  int warmup = 2;
  std::string backend = "auto";
  std::optional<uint64_t> seed;
  std::vector<std::string> run_args;
  std::optional<std::string> gpus;  // given but empty is refused, not read as "every GPU"
  std::optional<double> cooloff_s;
  std::optional<double> cooloff_temp_c;
  double cooloff_max_s = 600.0;
  bool no_retry = false;
  std::string out;
  std::string db;
  std::string session;
  std::string format;
  std::string emit_slurm;
  sweep::SlurmOptions slurm;
  std::string collect;
  std::string cell;
};

void log_line(const std::string& line) {
  fmt::print(stderr, "ecocompute: sweep: {}\n", line);
}

// --backend auto: a sweep that already has a manifest in `dir` keeps its backend, so the same
// command resumes it on any host; a new local sweep runs on the GPU when one is visible here. The
// tasks of a Slurm array run on other nodes, whose GPUs this node cannot see: it needs cpu or cuda.
std::string sweep_backend(const SweepFlags& f, const std::filesystem::path& dir, bool slurm) {
  if (f.backend != "auto" && f.backend != "AUTO") {
    return std::string(engine::backend_name(engine::parse_backend(f.backend)));
  }
  if (!dir.empty()) {
    if (auto m = sweep::load_manifest(dir)) return m->spec.backend;
  }
  if (slurm) {
    fail_usage(
        "sweep --emit-slurm: give --backend cpu or cuda; auto would look at this node's GPUs, and "
        "the tasks run on other nodes");
  }
  return std::string(engine::backend_name(engine::resolve_backend("auto")));
}

sweep::SweepSpec make_spec(const SweepFlags& f, const std::filesystem::path& dir, bool slurm) {
  if (f.models.empty())
    fail_usage("sweep: --models is required (a comma list of presets or checkpoint directories)");
  sweep::SweepSpec spec;
  spec.models = sweep::parse_name_list(f.models, "--models");
  // Canonical names, so "int8" and "INT8" are the same cell and a typo fails before any run.
  for (const auto& p : sweep::parse_name_list(f.precisions, "--precisions")) {
    spec.precisions.emplace_back(engine::precision_name(engine::parse_precision(p)));
  }
  spec.repeats = f.repeats;
  spec.new_tokens = sweep::parse_int_list(f.new_tokens, "--new-tokens", 1);
  spec.backend = sweep_backend(f, dir, slurm);
  spec.iterations = f.iterations;
  spec.warmup = f.warmup;
  spec.seed = f.seed;
  spec.run_args = f.run_args;
  for (const auto& a : spec.run_args) {
    for (const char* owned : {"--out", "-o", "--model", "-m", "--precision", "--backend",
                              "--new-tokens", "--iterations", "--warmup", "--gpu", "--seed"}) {
      if (a == owned || a.rfind(std::string(owned) + "=", 0) == 0) {
        fail_usage("sweep: '{}' after -- is set by the sweep itself; use the sweep's own flag", a);
      }
    }
  }
  return spec;
}

// The value `run_args` gives `flag` ("--flag V" or "--flag=V"), if any.
std::optional<std::string> run_arg(const std::vector<std::string>& run_args,
                                   const std::string& flag) {
  for (size_t i = 0; i < run_args.size(); ++i) {
    if (run_args[i] == flag && i + 1 < run_args.size()) return run_args[i + 1];
    if (run_args[i].rfind(flag + "=", 0) == 0) return run_args[i].substr(flag.size() + 1);
  }
  return std::nullopt;
}

// Every cell's model, tokenizer, prompt and token count checked before the first cell runs, so a
// typo fails the sweep in a second instead of failing its cells one by one.
void check_cells(const sweep::SweepSpec& spec) {
  for (const auto& model : spec.models) {
    for (int new_tokens : spec.new_tokens) {
      bench::RunOptions cell;
      cell.model = model;
      cell.new_tokens = new_tokens;
      cell.iterations = spec.iterations;
      cell.warmup = spec.warmup;
      if (auto v = run_arg(spec.run_args, "--tokenizer")) cell.tokenizer = *v;
      if (auto v = run_arg(spec.run_args, "--prompt")) cell.prompt = *v;
      if (auto v = run_arg(spec.run_args, "--quality-text")) cell.quality_text = *v;
      try {
        bench::check_run_inputs(cell);
      } catch (const UsageError& e) {
        fail_usage("sweep: cell {} at {} new tokens: {}", model, new_tokens, e.what());
      } catch (const Error& e) {
        fail("sweep: cell {} at {} new tokens: {}", model, new_tokens, e.what());
      }
    }
  }
}

analysis::OutputFormat output_format(const std::string& name) {
  if (name.empty())
    return isatty(STDOUT_FILENO) ? analysis::OutputFormat::md : analysis::OutputFormat::csv;
  return analysis::parse_output_format(name);
}

std::string extension(analysis::OutputFormat f) {
  switch (f) {
    case analysis::OutputFormat::md:
      return "md";
    case analysis::OutputFormat::csv:
      return "csv";
    case analysis::OutputFormat::json:
      return "json";
    case analysis::OutputFormat::jsonl:
      return "jsonl";
    case analysis::OutputFormat::sql:
      return "sql";
  }
  return "txt";
}

// Prints the summary and writes it beside the manifest (DIR/summary.<format>).
void print_summary(const sweep::SweepRun& r, const std::filesystem::path& dir,
                   const std::string& format_name) {
  const auto format = output_format(format_name);
  const bool brief = format == analysis::OutputFormat::md;
  const std::string text =
      analysis::render(sweep::summary_table(r.manifest, r.collected.rows, brief), format);
  fmt::print("{}", text);
  std::fflush(stdout);
  const auto path = dir / ("summary." + extension(format));
  write_file_atomic(path, text);
  const auto& m = r.manifest;
  size_t measured = 0;
  for (const auto& row : r.collected.rows) measured += row.is_measured() ? 1 : 0;
  log_line(fmt::format(
      "{} of {} cells done, {} failed, {} pending or running; {} measured run(s)",
      m.count(sweep::CellState::done), m.cells.size(), m.count(sweep::CellState::failed),
      m.count(sweep::CellState::pending) + m.count(sweep::CellState::running), measured));
  log_line(fmt::format("manifest {}, summary {}, store {} (session '{}')",
                       sweep::manifest_path(dir).string(), path.string(), r.db.string(),
                       m.session));
  for (const auto& c : m.cells) {
    if (c.state == sweep::CellState::failed) {
      log_line(
          fmt::format("failed: {}: {} (log {})", c.config.id, c.error, (dir / c.log()).string()));
    }
  }
}

void run_mode(const SweepFlags& f) {
  if (f.out.empty()) fail_usage("sweep: --out DIR is required");
  if (f.cooloff_s && f.cooloff_temp_c)
    fail_usage("sweep: give --cooloff-s or --cooloff-temp-c, not both");
  sweep::RunRequest req;
  req.dir = f.out;
  req.spec = make_spec(f, f.out, false);
  check_cells(req.spec);
  req.session = f.session;
  req.db = f.db;
  req.retry_failed = !f.no_retry;
  if (f.gpus) {
    if (f.gpus->find_first_not_of(" \t") == std::string::npos) {
      fail_usage("--gpus '{}': no GPU listed (leave --gpus out to use every visible GPU)", *f.gpus);
    }
    req.local.gpus = sweep::parse_int_list(*f.gpus, "--gpus", 0);
    std::set<int> unique(req.local.gpus.begin(), req.local.gpus.end());
    if (unique.size() != req.local.gpus.size())
      fail_usage("--gpus {}: a GPU is listed twice", *f.gpus);
  }
  req.local.cool_off.seconds = f.cooloff_s.value_or(0.0);
  if (f.cooloff_temp_c) {
    if (req.spec.backend == "cpu")
      fail_usage("--cooloff-temp-c waits for a GPU to cool; this sweep runs on the CPU backend");
    req.local.cool_off.within_c = *f.cooloff_temp_c;
    req.local.cool_off.max_wait_s = f.cooloff_max_s;
    req.local.cool_off.read_temperature = sweep::nvml_temperature_reader();
  }
  req.local.program = sweep::self_executable();
  req.local.log = log_line;
  req.local.progress = Progress::enabled();
  // A full disk must surface as a write error, not kill the sweep (RLIMIT_FSIZE sends SIGXFSZ).
  std::signal(SIGXFSZ, SIG_IGN);
  output_format(f.format);  // a bad --format fails before hours of runs, not after
  sweep::SweepRun r = sweep::run_sweep(req);
  for (const auto& n : r.notes) log_line(n);
  for (const auto& p : r.collected.problems) log_line(p);
  if (r.run.interrupted) {
    log_line("interrupted; run the same command again to resume");
    throw ExitStatus{130};
  }
  log_line(fmt::format("ran {} cell(s) in {}", r.run.started,
                       r.run.wall_s < 60 ? fmt::format("{:.1f} s", r.run.wall_s)
                                         : fmt::format("{:.1f} min", r.run.wall_s / 60)));
  print_summary(r, req.dir, f.format);
  if (r.manifest.count(sweep::CellState::done) != r.manifest.cells.size()) throw ExitStatus{1};
}

void emit_mode(const SweepFlags& f) {
  std::filesystem::path dir = std::filesystem::absolute(f.emit_slurm).lexically_normal();
  if (!f.out.empty() && std::filesystem::absolute(f.out).lexically_normal() != dir) {
    fail_usage(
        "sweep: --emit-slurm {} and --out {} name different directories; the emitted sweep lives "
        "in the --emit-slurm directory",
        f.emit_slurm, f.out);
  }
  if (f.cooloff_temp_c)
    fail_usage("--cooloff-temp-c is not available for Slurm arrays (tasks land on any node)");
  sweep::SlurmOptions slurm = f.slurm;
  slurm.program = sweep::self_executable();
  // The cells are not checked here: their models may live on the nodes' disks, not on this one.
  sweep::EmitResult r = sweep::emit_slurm(dir, make_spec(f, dir, true), f.session, slurm);
  for (const auto& n : r.notes) log_line(n);
  if (!r.running.empty()) {
    log_line(
        fmt::format("{} cell(s) are marked running by an earlier Slurm task and are listed again; "
                    "if that job is still queued or running, wait for it instead of submitting: {}",
                    r.running.size(), fmt::join(r.running, ", ")));
  }
  fmt::print("{}\n", r.script.string());
  log_line(fmt::format("{} of {} cells unfinished; submit with: sbatch {}", r.cells.size(),
                       r.manifest.cells.size(), r.script.string()));
}

void collect_mode(const SweepFlags& f) {
  const std::filesystem::path dir = f.collect;
  sweep::SweepRun r = sweep::collect(dir, f.db);
  for (const auto& n : r.notes) log_line(n);
  for (const auto& p : r.collected.problems) log_line(p);
  print_summary(r, dir, f.format);
  if (r.manifest.count(sweep::CellState::done) != r.manifest.cells.size()) throw ExitStatus{1};
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto f = std::make_shared<SweepFlags>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Run models × precisions × new-tokens × repeats as independent `run` processes; resumable; "
      "one child per GPU; or emit a Slurm job array");
  cmd->add_option("--models", f->models, "Comma list of presets or checkpoint directories");
  cmd->add_option("--precisions", f->precisions,
                  "Comma list: FP16, BF16, INT8, INT8-WO, NF4, NF4-DQ")
      ->capture_default_str();
  cmd->add_option("--repeats", f->repeats, "Independent replicates per configuration")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--new-tokens", f->new_tokens,
                  "Tokens per iteration: list or range (128,256 / 64-256+64 / 16-128*2)")
      ->capture_default_str();
  cmd->add_option("--iterations", f->iterations, "Measured iterations per precision (each run)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", f->warmup, "Unmeasured iterations per precision (each run)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--backend", f->backend,
                  "auto (a resumed sweep keeps its manifest's; else cuda when a GPU is visible "
                  "here, else cpu), cpu or cuda; --emit-slurm needs cpu or cuda")
      ->capture_default_str();
  cmd->add_option("--seed", f->seed, "Seed of synthetic weights (every run)");
  cmd->add_option("--gpus", f->gpus, "Run one child per listed GPU at a time (e.g. 0,1 or 0-3)");
  cmd->add_option("--cooloff-s", f->cooloff_s, "Seconds of rest on a GPU between its cells")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cooloff-temp-c", f->cooloff_temp_c,
                  "Rest until the GPU is within this many °C of its temperature at sweep start")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cooloff-max-s", f->cooloff_max_s, "Longest temperature cool-off")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-retry", f->no_retry, "On resume, leave failed cells failed");
  cmd->add_option("-o,--out", f->out, "Sweep directory (manifest, cells/, summary, store)");
  cmd->add_option("--db", f->db, "Results store (default DIR/store.sqlite)");
  cmd->add_option("--session", f->session,
                  "Store session of every run (default sweep-<start time>)");
  cmd->add_option("--format", f->format, "Summary: md, csv, json, jsonl or sql (md on a terminal)");
  cmd->add_option(
      "--emit-slurm", f->emit_slurm,
      "Write DIR/sweep.sbatch (an array over the unfinished cells) and DIR/manifest.json");
  cmd->add_option("--slurm-time", f->slurm.time, "sbatch --time of each task");
  cmd->add_option("--slurm-partition", f->slurm.partition, "sbatch --partition");
  cmd->add_option("--slurm-max-parallel", f->slurm.max_parallel, "Array throttle (%N)");
  cmd->add_option("--slurm-cpus-per-task", f->slurm.cpus_per_task, "sbatch --cpus-per-task");
  cmd->add_option("--slurm-job-name", f->slurm.job_name, "sbatch --job-name")
      ->capture_default_str();
  cmd->add_option("--slurm-option", f->slurm.extra, "Another #SBATCH line, verbatim (repeatable)");
  cmd->add_option("--collect", f->collect,
                  "Fold a Slurm array's results into DIR's manifest and store; print the summary");
  cmd->add_option("--cell", f->cell, "Run one cell of --out DIR (what each Slurm array task does)")
      ->group("");
  cmd->add_option("run-args", f->run_args,
                  "After --: more flags for every `run` (e.g. -- --no-quality)");
  cmd->callback([f] {
    const int modes = !f->collect.empty() + !f->emit_slurm.empty() + !f->cell.empty();
    if (modes > 1) fail_usage("sweep: --collect, --emit-slurm and --cell exclude each other");
    if (!f->collect.empty()) return collect_mode(*f);
    if (!f->emit_slurm.empty()) return emit_mode(*f);
    if (!f->cell.empty()) {
      if (f->out.empty()) fail_usage("sweep --cell needs --out DIR");
      std::signal(SIGXFSZ, SIG_IGN);
      int status = sweep::run_cell_task(f->out, f->cell, sweep::self_executable());
      if (status != 0) throw ExitStatus{status};
      return;
    }
    run_mode(*f);
  });
}

}  // namespace ec::cli
