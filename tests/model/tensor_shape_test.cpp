// Tensor's rows() and cols() for every rank, including empty leading dimensions.
#include <gtest/gtest.h>

#include "model/weights.h"

namespace ec::model {
namespace {

Tensor shaped(std::vector<int64_t> shape) {
  Tensor t;
  t.name = "t";
  t.shape = std::move(shape);
  return t;
}

TEST(TensorShape, RowsAndColsOfEveryRank) {
  EXPECT_EQ(shaped({}).rows(), 1);
  EXPECT_EQ(shaped({}).cols(), 1);
  EXPECT_EQ(shaped({7}).rows(), 7);
  EXPECT_EQ(shaped({7}).cols(), 1);
  EXPECT_EQ(shaped({3, 5}).rows(), 3);
  EXPECT_EQ(shaped({3, 5}).cols(), 5);
  EXPECT_EQ(shaped({2, 3, 4}).cols(), 12);
}

// A [0, 5] tensor has no rows but still 5 columns; cols() used to be numel / rows, 0 / 0.
TEST(TensorShape, ZeroRowsKeepTheirColumnCount) {
  EXPECT_EQ(shaped({0, 5}).rows(), 0);
  EXPECT_EQ(shaped({0, 5}).cols(), 5);
  EXPECT_EQ(shaped({0, 5}).numel(), 0);
  EXPECT_EQ(shaped({4, 0}).cols(), 0);
}

}  // namespace
}  // namespace ec::model
