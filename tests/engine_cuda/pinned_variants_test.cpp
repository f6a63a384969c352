// EC_CUDA_VARIANTS' parsing (no GPU needed): every GEMV variant name reads back as the config that
// wrote it, a report's kernel_variant string reads back as its roles and splits, and malformed
// text is refused with a message naming the source, the entry and what was expected.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/pinned_variants.h"

namespace ec::engine::cuda {
namespace {

bool same(const GemvConfig& a, const GemvConfig& b) {
  return a.rows_per_warp == b.rows_per_warp && a.persistent == b.persistent &&
         a.pipeline == b.pipeline && a.unroll == b.unroll && a.pdl == b.pdl;
}

TEST(PinnedVariants, EveryCandidateNameParsesBackToItsConfig) {
  int checked = 0;
  for (quant::Format f : {quant::Format::fp16, quant::Format::bf16, quant::Format::int8_wo,
                          quant::Format::int8_llm, quant::Format::nf4, quant::Format::nf4_dq}) {
    for (bool swiglu : {false, true}) {
      GemvArgs a;
      a.format = f;
      a.swiglu = swiglu;
      a.cols = 3584;
      // An H200's offer, so the bulk-copy variants are among the names.
      for (GemvConfig c : gemv_candidates(a, GemvDevice{true, 227 * 1024})) {
        for (bool pdl : {false, true}) {
          c.pdl = pdl;
          const std::string name = gemv_config_name(c);
          EXPECT_TRUE(same(parse_gemv_config(name), c)) << name;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);  // every format's candidates, not an empty loop
}

TEST(PinnedVariants, MalformedVariantNamesAreRefused) {
  for (const char* bad : {"",
                          "r",
                          "r3p",
                          "r2",
                          "r2x",
                          "r2p-u4",
                          "r2p-l2pf-dbuf",
                          "r2p+pdl+pdl",
                          "r2p-u2-l2pf",
                          "R2p",
                          "r2p ",
                          "r2p-bulk-dbuf",
                          "r2p-u2-bulk",
                          "r2p-flat-dbuf",
                          "r2p-u2-flat",
                          "r2p-whole-flat",
                          "r2p-u2-whole",
                          "r2p-stream-whole",
                          "r2p-pass-whole",
                          "r2p-u2-pass"}) {
    try {
      (void)parse_gemv_config(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
    }
  }
}

// As an H200 run of Qwen2-7B NF4 reported it (its energy.json's engine.kernel_variant).
constexpr const char* kReported =
    "cuda-f32acc-nf4-gemv-v2[qkv:r1p-l2pf+pdl,o:r2p-l2pf+pdl,gu:r2p-dbuf-u2+pdl,"
    "down:r2p-dbuf-u2+pdl,head:r1p-dbuf+pdl,attn-fused-splits:8]";

TEST(PinnedVariants, AReportedKernelVariantReadsBackAsItsRolesAndSplits) {
  const PinnedVariants p = parse_pinned_variants(kReported, "EC_CUDA_VARIANTS");
  EXPECT_EQ(p.prefix, "cuda-f32acc-nf4-gemv-v2");
  EXPECT_TRUE(p.fused_attention);
  EXPECT_EQ(p.splits, 8);
  const char* want[] = {"r1p-l2pf+pdl", "r2p-l2pf+pdl", "r2p-dbuf-u2+pdl", "r2p-dbuf-u2+pdl",
                        "r1p-dbuf+pdl"};
  for (size_t i = 0; i < kDecodeRoleNames.size(); ++i) {
    EXPECT_EQ(gemv_config_name(p.roles[i]), want[i]) << kDecodeRoleNames[i];
  }
  // The bracket's contents alone, in another order, with the split attention.
  const PinnedVariants q = parse_pinned_variants(
      "head:r2g,down:r1p-u16,gu:r2p,o:r4p,attn-splits:16,qkv:r2p-dbuf", "test");
  EXPECT_TRUE(q.prefix.empty());
  EXPECT_FALSE(q.fused_attention);
  EXPECT_EQ(q.splits, 16);
  EXPECT_EQ(gemv_config_name(q.roles[0]), "r2p-dbuf");
  EXPECT_EQ(gemv_config_name(q.roles[4]), "r2g");
}

TEST(PinnedVariants, MalformedStringsNameTheSourceAndTheEntry) {
  const struct {
    const char* text;
    const char* names;  // a part the message must contain
  } cases[] = {
      {"qkv:r2p,o:r2p,gu:r2p,down:r2p,head:r2p", "splits are missing"},
      {"qkv:r2p,o:r2p,gu:r2p,down:r2p,attn-splits:4", "role head is missing"},
      {"qkv:r2p,qkv:r1p,o:r2p,gu:r2p,down:r2p,head:r2p,attn-splits:4", "role qkv is given twice"},
      {"qkv:r2p,o:r2p,gu:r2p,down:r2p,head:r2p,attn-splits:0", "at least 1"},
      {"qkv:r2p,o:r2p,gu:r2p,down:r2p,head:r2p,attn-splits:4x", "'4x'"},
      {"qkv:r2p,o:r2p,gu:r2p,down:r2p,head:r2p,attn-splits:4,attn-splits:2", "given twice"},
      {"qkv:r2p,o:r2p,up:r2p,down:r2p,head:r2p,attn-splits:4", "unknown entry 'up'"},
      {"qkv:r2p,o,gu:r2p,down:r2p,head:r2p,attn-splits:4", "entry 'o' is not name:value"},
      {"qkv:r9p,o:r2p,gu:r2p,down:r2p,head:r2p,attn-splits:4", "role qkv: GEMV variant 'r9p'"},
      {"cuda-f32acc-f16-gemv-v1[qkv:r2p,o:r2p", "does not end with ']'"},
  };
  for (const auto& c : cases) {
    try {
      (void)parse_pinned_variants(c.text, "EC_CUDA_VARIANTS");
      ADD_FAILURE() << "accepted '" << c.text << "'";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("EC_CUDA_VARIANTS: ", 0), 0u) << what;
      EXPECT_NE(what.find(c.names), std::string::npos) << what;
    }
  }
}

// A run loads an FP16 baseline and its precision in one process; its report records both strings.
TEST(PinnedVariants, OfSeveralEntriesTheEnginesOwnIsTaken) {
  const std::string fp16 =
      "cuda-f32acc-f16-gemv-v1[qkv:r1p-dbuf,o:r2p-dbuf,gu:r2p-dbuf,down:r2p-dbuf,head:r4p,"
      "attn-fused-splits:8]";
  const std::string list = " " + fp16 + " ;\n" + kReported + ";";
  EXPECT_EQ(gemv_config_name(
                pinned_variants_for(list, "cuda-f32acc-f16-gemv-v1", "EC_CUDA_VARIANTS").roles[4]),
            "r4p");
  EXPECT_EQ(gemv_config_name(
                pinned_variants_for(list, "cuda-f32acc-nf4-gemv-v2", "EC_CUDA_VARIANTS").roles[4]),
            "r1p-dbuf+pdl");
  // One entry without a prefix is for whichever engine loads.
  EXPECT_EQ(pinned_variants_for("qkv:r2p,o:r2p,gu:r2p,down:r2p,head:r1g,attn-splits:2",
                                "cuda-f32acc-int8-wo-gemv-v2", "EC_CUDA_VARIANTS")
                .splits,
            2);

  const struct {
    std::string list;
    const char* names;
  } cases[] = {
      {fp16, "given for cuda-f32acc-f16-gemv-v1 but not for this engine, cuda-f32acc-nf4-gemv-v2"},
      {fp16 + ";" + kReported + ";" + kReported, "two entries are for cuda-f32acc-nf4-gemv-v2"},
      {fp16 + ";qkv:r2p,o:r2p,gu:r2p,down:r2p,head:r2p,attn-splits:4", "each needs its prefix"},
      {" ; ", "no variants given"},
      {fp16 + ";" + std::string(kReported).substr(0, 40), "does not end with ']'"},
  };
  for (const auto& c : cases) {
    try {
      (void)pinned_variants_for(c.list, "cuda-f32acc-nf4-gemv-v2", "EC_CUDA_VARIANTS");
      ADD_FAILURE() << "accepted '" << c.list << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.names), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ec::engine::cuda
