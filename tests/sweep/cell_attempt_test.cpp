// One attempt: which GPU a child sees, and how its end becomes the cell's state.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "sweep/cell_attempt.h"
#include "sweep/resume.h"

namespace ec::sweep {
namespace {

using ::testing::HasSubstr;

TEST(VisibleDevice, FollowsTheSweepsOwnVisibleList) {
  EXPECT_EQ(visible_device_for(1, std::nullopt), "1");
  EXPECT_EQ(visible_device_for(1, std::string("4,6")), "6");
  EXPECT_EQ(visible_device_for(0, std::string("GPU-abc,GPU-def")), "GPU-abc");
  EXPECT_THROW(visible_device_for(2, std::string("4,6")), UsageError);
}

Manifest one_cell() {
  SweepSpec s;
  s.models = {"tiny-llama"};
  s.precisions = {"NF4"};
  s.repeats = 1;
  s.new_tokens = {4};
  return new_manifest(s, "sess-1");
}

TEST(CellAttempt, ChildSeesOneGpuAndWritesIntoItsCell) {
  Manifest m = one_cell();
  const ChildSpec c = cell_child(m, m.cells[0], "/sw", "/bin/ecocompute", 1, std::string("2,3"));
  EXPECT_EQ(c.program, "/bin/ecocompute");
  EXPECT_EQ(c.log, "/sw/cells/tiny-llama_NF4_t4_r1/run.log");
  EXPECT_EQ(c.args.back(), "/sw/cells/tiny-llama_NF4_t4_r1/energy.json");
  ASSERT_FALSE(c.env.empty());
  EXPECT_EQ(c.env[0].first, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(c.env[0].second, "3");
  const ChildSpec no_gpu =
      cell_child(m, m.cells[0], "/sw", "/bin/ecocompute", std::nullopt, std::nullopt);
  for (const auto& [k, v] : no_gpu.env) EXPECT_NE(k, "CUDA_VISIBLE_DEVICES");
}

TEST(CellAttempt, DoneNeedsExitZeroAndAReadableReport) {
  test::ScratchDir dir;
  Manifest m = one_cell();
  Cell& cell = m.cells[0];
  reset_cell_dir(dir.path(), cell);
  begin_attempt(cell, 0);
  EXPECT_EQ(cell.state, CellState::running);
  EXPECT_EQ(cell.attempts, 1);
  EXPECT_FALSE(cell.started_utc.empty());

  // Exit 0 without a report is a failure.
  write_file_atomic(dir / cell.log().string(), "ecocompute: loading\n");
  EXPECT_FALSE(finish_attempt(cell, m, dir.path(), ExitInfo{0, std::nullopt}, 1.5));
  EXPECT_EQ(cell.state, CellState::failed);
  EXPECT_THAT(cell.error, HasSubstr("no report"));

  // A crash names the signal and the log's last line.
  begin_attempt(cell, 0);
  write_file_atomic(dir / cell.log().string(), "ecocompute: decoding\nSegmentation fault\n");
  EXPECT_FALSE(finish_attempt(cell, m, dir.path(), ExitInfo{std::nullopt, 11}, 2.0));
  EXPECT_EQ(cell.attempts, 2);
  EXPECT_EQ(cell.signal, 11);
  EXPECT_EQ(cell.error, "killed by signal 11 (SIGSEGV): Segmentation fault");

  // A real report: done, with the report's run id and the sweep's session.
  begin_attempt(cell, 0);
  write_file_atomic(dir / cell.report().string(),
                    read_file(test::fixture("analysis/ecocompute_nf4_1p1.energy.json")));
  auto row = finish_attempt(cell, m, dir.path(), ExitInfo{0, std::nullopt}, 3.0);
  ASSERT_TRUE(row);
  EXPECT_EQ(cell.state, CellState::done);
  EXPECT_EQ(cell.run_id, row->run_id);
  EXPECT_FALSE(cell.run_id.empty());
  EXPECT_EQ(row->session, "sess-1");
  EXPECT_EQ(cell.seconds, 3.0);

  // A report that does not parse is a failure, not a crash.
  begin_attempt(cell, 0);
  write_file_atomic(dir / cell.report().string(), "{\"truncated\": ");
  EXPECT_FALSE(finish_attempt(cell, m, dir.path(), ExitInfo{0, std::nullopt}, 1.0));
  EXPECT_THAT(cell.error, HasSubstr("does not read back"));
}

}  // namespace
}  // namespace ec::sweep
