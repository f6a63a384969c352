// `ecocompute sweep`: models × precisions × repeats as independent runs, locally or as a Slurm
// array.
#pragma once

namespace CLI {
class App;
}

namespace ec::cli {

void add_sweep_command(CLI::App& app);

}  // namespace ec::cli
