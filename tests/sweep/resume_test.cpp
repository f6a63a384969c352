// What a stopped sweep or a Slurm array left behind becomes on resume.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "support/paths.h"
#include "sweep/resume.h"

namespace ec::sweep {
namespace {

Manifest four_cells() {
  SweepSpec s;
  s.models = {"tiny-llama"};
  s.precisions = {"FP16", "INT8"};
  s.repeats = 2;
  s.new_tokens = {4};
  return new_manifest(s, "t");
}

TEST(Resume, RunningIsDiscardedDoneIsKeptFailedIsRetried) {
  test::ScratchDir dir;
  Manifest m = four_cells();
  for (auto& c : m.cells) reset_cell_dir(dir.path(), c);
  m.cells[0].state = CellState::done;
  write_file_atomic(dir / m.cells[0].report().string(), "{}");
  m.cells[1].state = CellState::running;
  write_file_atomic(dir / m.cells[1].report().string(), "{\"partial");
  m.cells[2].state = CellState::failed;
  m.cells[2].error = "exit status 1";
  m.cells[3].state = CellState::done;  // its report is gone

  Manifest keep_failed = m;
  const auto notes = prepare_resume(m, dir.path(), {.retry_failed = true});
  EXPECT_EQ(notes.size(), 3u);
  EXPECT_EQ(m.cells[0].state, CellState::done);
  EXPECT_EQ(m.cells[1].state, CellState::pending);
  EXPECT_FALSE(std::filesystem::exists(dir / m.cells[1].report().string()));
  EXPECT_TRUE(std::filesystem::is_directory(dir / m.cells[1].dir().string()));
  EXPECT_EQ(m.cells[2].state, CellState::pending);
  EXPECT_EQ(m.cells[3].state, CellState::pending);

  prepare_resume(keep_failed, dir.path(), {.retry_failed = false});
  EXPECT_EQ(keep_failed.cells[2].state, CellState::failed);
}

TEST(Resume, SlurmStatusFilesAreFoldedIn) {
  test::ScratchDir dir;
  Manifest m = four_cells();
  Cell task = m.cells[2];
  reset_cell_dir(dir.path(), task);
  task.state = CellState::done;
  task.attempts = 1;
  task.started_utc = "2026-05-01T00:00:00Z";
  task.finished_utc = "2026-05-01T00:00:09Z";
  task.run_id = "sha256:abc";
  task.slurm_job = "12_2";
  write_file_atomic(dir / task.status().string(), to_json(task).dump());
  reset_cell_dir(dir.path(), m.cells[3]);
  write_file_atomic(dir / m.cells[3].status().string(), "{broken");

  const auto notes = fold_cell_status(m, dir.path());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(m.cells[2].state, CellState::done);
  EXPECT_EQ(m.cells[2].slurm_job, "12_2");
  EXPECT_EQ(m.cells[2].run_id, "sha256:abc");
  EXPECT_EQ(m.cells[3].state, CellState::pending);
  EXPECT_THAT(notes[1], ::testing::HasSubstr("ignored"));
  // Folding twice changes nothing more.
  EXPECT_EQ(fold_cell_status(m, dir.path()).size(), 1u);  // only the broken file is reported
}

}  // namespace
}  // namespace ec::sweep
