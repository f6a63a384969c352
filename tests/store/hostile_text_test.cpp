// Text the importers accept but C strings and JSON writers trip on: NUL bytes inside JSON strings
// ("\u0000"), and text that is not UTF-8 in a hand-built row. The store must keep the first exactly
// and never throw on the second.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "store/store.h"

namespace ec::store {
namespace {

RunRow row_with(const std::string& text, int i) {
  RunRow r;
  r.run_id = "hostile-" + std::to_string(i);
  r.gpu = text;
  r.model = "m" + text;
  r.precision = "INT8";
  r.basis = "measured";
  r.energy_j_per_1k_tok = 1000.0 + i;
  r.versions = {{"torch", text}, {"engine.note", "x" + text}};
  return r;
}

TEST(StoreHostileText, NulBytesRoundTripExactly) {
  std::mt19937 rng(1234);
  std::vector<RunRow> rows;
  for (int i = 0; i < 8; ++i) {
    std::string text = "a";
    for (int k = 0; k < 6; ++k)
      text.push_back(static_cast<char>(rng() % 3 == 0 ? 0 : 'a' + rng() % 26));
    text.push_back('\0');
    rows.push_back(row_with(text, i));
  }
  Store store = Store::in_memory();
  EXPECT_EQ(store.ingest(rows).inserted, rows.size());
  const auto back = store.runs();
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].gpu, rows[i].gpu) << i;
    EXPECT_EQ(back[i].model, rows[i].model) << i;
    EXPECT_EQ(back[i].versions, rows[i].versions) << i;
    EXPECT_EQ(row_hash(back[i]), row_hash(rows[i])) << i;
  }
  EXPECT_EQ(store.ingest(rows).unchanged, rows.size()) << "re-ingest must be a no-op";
}

TEST(StoreHostileText, VersionsThatAreNotUtf8DoNotThrow) {
  const RunRow r = row_with("caf\xE9", 1);  // Latin-1 é
  Store store = Store::in_memory();
  EXPECT_NO_THROW(store.ingest(std::span<const RunRow>(&r, 1)));
  const auto back = store.runs();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].gpu, r.gpu) << "plain columns keep the bytes";
  EXPECT_EQ(back[0].versions.at("torch"), "caf\xEF\xBF\xBD") << "the version stack holds U+FFFD";
}

}  // namespace
}  // namespace ec::store
