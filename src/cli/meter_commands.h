// The meter's subcommands: `ecocompute measure -- CMD ARGS...`.
#pragma once

namespace CLI {
class App;
}

namespace ec::cli {

// Registers `measure`. (`info` lists GPUs through ec::meter::describe_gpus() in meter/meter.h.)
void add_measure_command(CLI::App& app);

}  // namespace ec::cli
