// The original EcoCompute container's command line (`energy_estimate --model … --precision …
// --output_dir …`, its parameters file, its option names), translated into `ecocompute run`, so
// scripts and MLCube tasks written for the original run unchanged.
#pragma once

#include <string>
#include <vector>

namespace ec::cli {

struct OriginalInvocation {
  std::vector<std::string> args;   // the equivalent command line, without the program name
  std::string output_dir;          // created before the run; the report is energy.json in it
  std::vector<std::string> notes;  // one line per original option ecocompute treats differently
};

// True when `args` (without the program name) read as the original's command line: its task
// name first (`energy_estimate`), options with no command, or `run` with an option only the
// original has (`--output_dir`, `--model_name`, `--parameters_file`, `--tokens`, ...).
bool is_original_command_line(const std::vector<std::string>& args);

// The `ecocompute run` equivalent, with the original's defaults where `args` and the parameters
// file say nothing (TinyLlama-1.1B, NF4, 256 tokens, 2 + 10 iterations, 10 Hz). Options of
// ecocompute's own pass through unchanged. A Hugging Face model id with no local directory of
// that name becomes the preset of the same architecture (synthetic weights), and a note says so.
// Throws ec::UsageError naming the option or parameters-file line and what was expected.
OriginalInvocation translate_original_command_line(const std::vector<std::string>& args);

// For main(): when argv is the original's command line, prints the notes to stderr, creates the
// output directory (as the original does), sets `translated` to the full new argv and returns true.
bool translate_if_original(int argc, char** argv, std::vector<std::string>& translated);

}  // namespace ec::cli
