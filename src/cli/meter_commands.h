// The meter's subcommands (`ecocompute measure -- CMD ARGS...`) and the meter flags run shares.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ec::cli {

// Registers `measure`. (`info` lists GPUs through ec::meter::describe_gpus() in meter/meter.h.)
void add_measure_command(CLI::App& app);

// `--counter-edges aligned|plain` (MeterOptions::align_counter_edges), for measure and run.
void add_counter_edges_flag(CLI::App& cmd, std::string& value);

}  // namespace ec::cli
