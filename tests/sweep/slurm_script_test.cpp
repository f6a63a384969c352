// The emitted sbatch script: one task per unfinished cell, a GPU only for GPU sweeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "sweep/slurm_script.h"

namespace ec::sweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Manifest manifest_for_backend(const std::string& backend) {
  SweepSpec s;
  s.models = {"tiny-llama"};
  s.precisions = {"FP16", "INT8"};
  s.repeats = 2;
  s.new_tokens = {4};
  s.backend = backend;
  return new_manifest(s, "x");
}

TEST(SlurmScript, ArrayOverUnfinishedCells) {
  Manifest m = manifest_for_backend("cuda");
  m.cells[1].state = CellState::done;
  m.cells[2].state = CellState::failed;
  m.cells[3].state = CellState::running;
  const auto cells = unfinished_cells(m);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0], "tiny-llama_FP16_t4_r1");
  EXPECT_EQ(cells[1], "tiny-llama_FP16_t4_r2");
  SlurmOptions o;
  o.program = "/opt/ec/bin/ecocompute";
  o.time = "00:30:00";
  o.max_parallel = 2;
  o.extra = {"--account=energy"};
  const std::string s = slurm_script(m, cells, "/shared/sweep1", o);
  EXPECT_THAT(s, HasSubstr("#SBATCH --array=0-2%2\n"));
  EXPECT_THAT(s, HasSubstr("#SBATCH --gres=gpu:1\n"));
  EXPECT_THAT(s, HasSubstr("#SBATCH --time=00:30:00\n"));
  EXPECT_THAT(s, HasSubstr("#SBATCH --account=energy\n"));
  EXPECT_THAT(s, HasSubstr("#SBATCH --output=/shared/sweep1/slurm/%A_%a.out\n"));
  EXPECT_THAT(s, HasSubstr("ECOCOMPUTE=\"${ECOCOMPUTE:-/opt/ec/bin/ecocompute}\""));
  EXPECT_THAT(s, HasSubstr("  'tiny-llama_INT8_t4_r2'\n)"));
  EXPECT_THAT(s, Not(HasSubstr("tiny-llama_INT8_t4_r1")));
  EXPECT_THAT(s, HasSubstr("sweep --out \"$SWEEP_DIR\" --cell \"${CELLS[$SLURM_ARRAY_TASK_ID]}\""));
}

TEST(SlurmScript, CpuSweepsRequestNoGpu) {
  Manifest m = manifest_for_backend("cpu");
  SlurmOptions o;
  o.program = "/x/ecocompute";
  const std::string s = slurm_script(m, unfinished_cells(m), "/d", o);
  EXPECT_THAT(s, Not(HasSubstr("--gres")));
  EXPECT_THAT(s, HasSubstr("#SBATCH --array=0-3\n"));
}

TEST(SlurmScript, RefusesWhatItCannotWriteSafely) {
  Manifest m = manifest_for_backend("cpu");
  SlurmOptions o;
  o.program = "/x/ecocompute";
  EXPECT_THROW(slurm_script(m, unfinished_cells(m), "relative/dir", o), UsageError);
  EXPECT_THROW(slurm_script(m, unfinished_cells(m), "/a dir", o), UsageError);
  EXPECT_THROW(slurm_script(m, {}, "/d", o), Error);
  o.partition = "gpu; rm";
  EXPECT_THROW(slurm_script(m, unfinished_cells(m), "/d", o), UsageError);
}

}  // namespace
}  // namespace ec::sweep
