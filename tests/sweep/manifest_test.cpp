// The manifest: JSON round trip, strict reading, atomic saving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "sweep/manifest.h"

namespace ec::sweep {
namespace {

using ::testing::HasSubstr;

SweepSpec spec() {
  SweepSpec s;
  s.models = {"tiny-llama"};
  s.precisions = {"FP16", "NF4"};
  s.repeats = 2;
  s.new_tokens = {4, 8};
  return s;
}

TEST(Manifest, NewHasEveryCellPending) {
  Manifest m = new_manifest(spec(), "s1");
  ASSERT_EQ(m.cells.size(), 8u);
  EXPECT_EQ(m.count(CellState::pending), 8u);
  EXPECT_EQ(m.session, "s1");
  ASSERT_NE(m.find("tiny-llama_NF4_t8_r2"), nullptr);
  EXPECT_EQ(m.find("nope"), nullptr);
  EXPECT_EQ(m.cells[0].report(), "cells/tiny-llama_FP16_t4_r1/energy.json");
}

TEST(Manifest, SaveAndLoadKeepEveryField) {
  test::ScratchDir dir;
  Manifest m = new_manifest(spec(), "s2");
  Cell& c = m.cells[3];
  c.state = CellState::failed;
  c.attempts = 2;
  c.gpu = 1;
  c.host = "node7";
  c.started_utc = "2026-01-02T03:04:05.000001Z";
  c.finished_utc = "2026-01-02T03:04:09.5Z";
  c.seconds = 4.25;
  c.signal = 11;
  c.error = "killed by signal 11 (SIGSEGV)";
  c.slurm_job = "17_3";
  m.cells[0].state = CellState::done;
  m.cells[0].run_id = "sha256:0123";
  m.cells[0].exit_status = 0;
  save_manifest(dir.path(), m);
  EXPECT_FALSE(m.updated_utc.empty());
  auto back = load_manifest(dir.path());
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back), to_json(m));
  EXPECT_EQ(back->cells[3].gpu, 1);
  EXPECT_EQ(back->cells[3].signal, 11);
  EXPECT_FALSE(back->cells[3].exit_status);
  EXPECT_EQ(back->cells[0].state, CellState::done);
}

TEST(Manifest, AbsentIsNulloptMalformedIsAnErrorNamingTheFile) {
  test::ScratchDir dir;
  EXPECT_FALSE(load_manifest(dir.path()));
  write_file_atomic(dir / "manifest.json", "{not json");
  try {
    load_manifest(dir.path());
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("manifest.json"));
  }
}

TEST(Manifest, CellsMustMatchTheSpec) {
  test::ScratchDir dir;
  Manifest m = new_manifest(spec(), "s");
  auto j = to_json(m);
  j["cells"][2]["id"] = "something-else";
  write_file_atomic(dir / "manifest.json", j.dump());
  EXPECT_THROW(load_manifest(dir.path()), Error);
  j = to_json(m);
  j["cells"].erase(1);
  write_file_atomic(dir / "manifest.json", j.dump());
  EXPECT_THROW(load_manifest(dir.path()), Error);
  j = to_json(m);
  j["cells"][1]["state"] = "finished";
  write_file_atomic(dir / "manifest.json", j.dump());
  try {
    load_manifest(dir.path());
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("finished"));
    EXPECT_THAT(e.what(), HasSubstr(m.cells[1].config.id));
  }
  j = to_json(m);
  j["format"] = "other";
  write_file_atomic(dir / "manifest.json", j.dump());
  EXPECT_THROW(load_manifest(dir.path()), Error);
}

TEST(Manifest, StateNames) {
  for (auto s : {CellState::pending, CellState::running, CellState::done, CellState::failed}) {
    EXPECT_EQ(parse_state(state_name(s)), s);
  }
  EXPECT_THROW(parse_state("Done"), Error);
}

}  // namespace
}  // namespace ec::sweep
