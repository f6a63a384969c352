// The RAPL meter over a fake powercap tree: package + DRAM energy per window, abutting windows
// sharing one read, no energy (and a reason) when the counters do not read.
#include "meter/rapl_meter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/file_io.h"
#include "support/paths.h"

namespace ec::meter {
namespace {

class FakePowercap {
 public:
  FakePowercap() {
    set("intel-rapl:0", "package-0", 1'000'000);
    set("intel-rapl:0/intel-rapl:0:1", "dram", 500);
  }
  void set(const std::string& zone, const std::string& name, unsigned long long uj) {
    std::filesystem::create_directories(dir_.path() / zone);
    write_file_atomic(dir_.path() / zone / "name", name + "\n");
    write_file_atomic(dir_.path() / zone / "energy_uj", std::to_string(uj) + "\n");
    write_file_atomic(dir_.path() / zone / "max_energy_range_uj", "10000000\n");
  }
  void package(unsigned long long uj) { set("intel-rapl:0", "package-0", uj); }
  void dram(unsigned long long uj) { set("intel-rapl:0/intel-rapl:0:1", "dram", uj); }
  const std::filesystem::path& root() const { return dir_.path(); }

 private:
  ec::test::ScratchDir dir_;
};

TEST(RaplMeter, AWindowIsPackagePlusDram) {
  FakePowercap tree;
  auto meter = make_rapl_meter(tree.root());
  ASSERT_TRUE(meter->measures_energy()) << meter->unavailable_reason();
  EXPECT_EQ(meter->name(), "rapl");
  EXPECT_EQ(meter->describe()["energy_source"], "rapl_package_dram");
  meter->begin("decode");
  tree.package(3'500'000);  // +2.5 J
  tree.dram(1'000'500);     // +1.0 J
  WindowResult w = meter->end();
  EXPECT_EQ(w.name, "decode");
  ASSERT_TRUE(w.energy_j);
  EXPECT_DOUBLE_EQ(*w.energy_j, 3.5);
  EXPECT_EQ(w.energy_source, "rapl_package_dram");
  EXPECT_DOUBLE_EQ(w.telemetry["rapl"]["package_j"].get<double>(), 2.5);
}

TEST(RaplMeter, AbuttingWindowsShareOneRead) {
  FakePowercap tree;
  auto meter = make_rapl_meter(tree.root());
  meter->begin("prefill");
  tree.package(2'000'000);
  WindowResult prefill = meter->next("decode");
  tree.package(5'000'000);
  WindowResult decode = meter->end();
  ASSERT_TRUE(prefill.energy_j && decode.energy_j);
  EXPECT_DOUBLE_EQ(*prefill.energy_j, 1.0);
  EXPECT_DOUBLE_EQ(*decode.energy_j, 3.0);
}

TEST(RaplMeter, AWindowWithAnUnreadableZoneHasNoEnergy) {
  FakePowercap tree;
  auto meter = make_rapl_meter(tree.root());
  meter->begin("decode");
  // The DRAM counter disappears mid-run: the window has no energy, not the package's alone.
  std::filesystem::remove(tree.root() / "intel-rapl:0/intel-rapl:0:1/energy_uj");
  WindowResult w = meter->end();
  EXPECT_FALSE(w.energy_j);
  EXPECT_TRUE(w.energy_source.empty());
}

TEST(RaplMeter, NoPowercapMeansNoEnergyAndAReason) {
  ec::test::ScratchDir empty;
  auto meter = make_rapl_meter(empty.path());
  EXPECT_FALSE(meter->measures_energy());
  EXPECT_NE(meter->unavailable_reason().find("no intel-rapl"), std::string::npos);
  meter->begin("decode");
  EXPECT_FALSE(meter->end().energy_j);
  EXPECT_FALSE(meter->describe().contains("energy_source"));
}

}  // namespace
}  // namespace ec::meter
