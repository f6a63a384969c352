// Every subcommand registers itself on the root CLI11 app through one of these functions.
#pragma once

namespace CLI {
class App;
}

namespace ec::cli {

// Thrown by a command that has already explained itself and wants a particular exit status.
struct ExitStatus {
  int code;
};

// Exit statuses beyond 0 success, 1 failure, 2 usage are listed per command in
// docs/exit-codes.md.

void add_info_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_tokenize_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_tune_command(CLI::App& app);

}  // namespace ec::cli
