// Children: exit statuses, signals, logs, environment, a program that cannot start.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "sweep/child_process.h"

namespace ec::sweep {
namespace {

using ::testing::HasSubstr;

ExitInfo wait_for(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return decode_wait_status(status);
}

TEST(Child, ExitStatusAndLog) {
  test::ScratchDir dir;
  ChildSpec spec{"/bin/sh",
                 {"-c", "echo out; echo err >&2; echo \"v=$EC_T1 u=${EC_T2-unset}\"; exit 3"},
                 dir / "log.txt",
                 {{"EC_T1", "seven"}, {"EC_T2", std::nullopt}}};
  ::setenv("EC_T2", "inherited", 1);
  const ExitInfo e = wait_for(spawn_child(spec));
  ::unsetenv("EC_T2");
  EXPECT_EQ(e.exit_status, 3);
  EXPECT_FALSE(e.signal);
  EXPECT_FALSE(e.success());
  EXPECT_EQ(describe(e), "exit status 3");
  EXPECT_EQ(read_file(dir / "log.txt"), "out\nerr\nv=seven u=unset\n");
  EXPECT_EQ(last_log_line(dir / "log.txt"), "v=seven u=unset");
}

TEST(Child, ASignalIsRecordedAsSuch) {
  test::ScratchDir dir;
  const ExitInfo e = wait_for(spawn_child({"/bin/sh", {"-c", "kill -ABRT $$"}, dir / "l", {}}));
  EXPECT_FALSE(e.exit_status);
  EXPECT_EQ(e.signal, SIGABRT);
  EXPECT_EQ(describe(e), "killed by signal 6 (SIGABRT)");
}

TEST(Child, RunsInItsOwnProcessGroup) {
  test::ScratchDir dir;
  const pid_t pid =
      spawn_child({"/bin/sh", {"-c", "ps -o pgid= -p $$ | tr -d ' '"}, dir / "l", {}});
  wait_for(pid);
  EXPECT_EQ(read_file(dir / "l"), std::to_string(pid) + "\n");
}

TEST(Child, AProgramThatCannotRunExits127WithTheReason) {
  test::ScratchDir dir;
  const ExitInfo e = wait_for(spawn_child({"/no/such/program", {}, dir / "l", {}}));
  EXPECT_EQ(e.exit_status, 127);
  EXPECT_THAT(read_file(dir / "l"), HasSubstr("/no/such/program: No such file or directory"));
}

TEST(Child, AnUncreatableLogIsAnErrorNamingIt) {
  test::ScratchDir dir;
  try {
    spawn_child({"/bin/true", {}, dir / "missing" / "log", {}});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing/log"));
  }
}

TEST(Child, LastLogLineSkipsBlanksAndRedraws) {
  test::ScratchDir dir;
  write_file_atomic(dir / "l", "a\nprogress 1\rprogress 2\n\n  \n");
  EXPECT_EQ(last_log_line(dir / "l"), "progress 2");
  EXPECT_EQ(last_log_line(dir / "absent"), "");
  EXPECT_FALSE(self_executable().empty());
}

}  // namespace
}  // namespace ec::sweep
