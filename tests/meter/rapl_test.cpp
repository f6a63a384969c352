// RAPL zone discovery (packages + dram, never core), wraparound, and reasons when absent.
#include "meter/rapl.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.h"
#include "support/paths.h"

namespace ec::meter {
namespace {

TEST(RaplDelta, ForwardAndWrapped) {
  EXPECT_DOUBLE_EQ(rapl_delta_j(1'000'000, 3'500'000, 262'143'328'850), 2.5);
  // Wrapped past max_energy_range_uj back to a small value.
  EXPECT_DOUBLE_EQ(rapl_delta_j(262'143'000'000, 671'150, 262'143'328'850), 1.0);
}

TEST(RaplReader, FindsPackagesAndDramButNotCore) {
  RaplReader rapl(ec::test::fixture("meter/powercap"));
  ASSERT_TRUE(rapl.available()) << rapl.reason();
  ASSERT_EQ(rapl.zones().size(), 3u);
  EXPECT_EQ(rapl.zones()[0].name, "package-0");
  EXPECT_EQ(rapl.zones()[1].name, "package-0/dram");
  EXPECT_TRUE(rapl.zones()[1].dram);
  EXPECT_EQ(rapl.zones()[1].max_range_uj, 65'712'999'613ULL);
  EXPECT_EQ(rapl.zones()[2].name, "package-1");
  auto now = rapl.read();
  ASSERT_EQ(now.size(), 3u);
  EXPECT_EQ(now[0], 123'456'789ULL);
}

TEST(RaplReader, EnergyBetweenSumsPackagesAndDramSeparately) {
  ec::test::ScratchDir dir;
  auto make = [&](const std::string& zone, const std::string& name, unsigned long long uj,
                  unsigned long long max) {
    std::filesystem::create_directories(dir.path() / zone);
    write_file_atomic(dir.path() / zone / "name", name + "\n");
    write_file_atomic(dir.path() / zone / "energy_uj", std::to_string(uj) + "\n");
    write_file_atomic(dir.path() / zone / "max_energy_range_uj", std::to_string(max) + "\n");
  };
  make("intel-rapl:0", "package-0", 1'000'000, 10'000'000);
  make("intel-rapl:0/intel-rapl:0:1", "dram", 500, 10'000'000);
  RaplReader rapl(dir.path());
  ASSERT_TRUE(rapl.available()) << rapl.reason();
  auto before = rapl.read();
  make("intel-rapl:0", "package-0", 250'000, 10'000'000);  // wrapped: 9.25 J
  make("intel-rapl:0/intel-rapl:0:1", "dram", 3'000'500, 10'000'000);
  auto e = rapl.energy_between(before, rapl.read());
  EXPECT_DOUBLE_EQ(e["package_j"].get<double>(), 9.25);
  EXPECT_DOUBLE_EQ(e["dram_j"].get<double>(), 3.0);
  // A zone that could not be read at one edge is named, not counted as zero.
  auto partial = rapl.energy_between({before[0], std::nullopt}, rapl.read());
  EXPECT_FALSE(partial.contains("dram_j"));
  EXPECT_EQ(partial["unreadable"][0], "package-0/dram");
}

TEST(RaplReader, AbsentOrUnreadableSaysWhy) {
  ec::test::ScratchDir dir;
  RaplReader missing(dir.path() / "nope");
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.reason().find("does not exist"), std::string::npos);

  RaplReader empty(dir.path());
  EXPECT_FALSE(empty.available());
  EXPECT_NE(empty.reason().find("no intel-rapl"), std::string::npos);
  EXPECT_EQ(empty.energy_between({}, {})["available"], false);

  // energy_uj present but unreadable (a directory stands in for a root-only file).
  std::filesystem::create_directories(dir.path() / "intel-rapl:0" / "energy_uj");
  write_file_atomic(dir.path() / "intel-rapl:0" / "max_energy_range_uj", "100\n");
  RaplReader unreadable(dir.path());
  EXPECT_FALSE(unreadable.available());
  EXPECT_NE(unreadable.reason().find("unreadable"), std::string::npos) << unreadable.reason();
  EXPECT_TRUE(unreadable.zones().empty());
}

}  // namespace
}  // namespace ec::meter
