// The default eval text compiled into the binary is byte-for-byte the original's corpus.
#include <gtest/gtest.h>

#include "core/embedded.h"
#include "core/sha256.h"

namespace ec {
namespace {

TEST(Embedded, EvalTextIsTheOriginalCorpus) {
  EXPECT_EQ(embedded::eval_text().size(), 60600u);
  EXPECT_EQ(sha256_hex(embedded::eval_text()),
            "22ac091a6383740d30f8e41ae144032c873c772db5e1c901112c1c330fdc5504");
}

}  // namespace
}  // namespace ec
