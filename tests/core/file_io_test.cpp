// Whole-file reads name the file on failure; atomic writes replace whole files and leave no temp
// files.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "support/paths.h"

namespace ec {
namespace {

TEST(FileIo, WriteThenReadBack) {
  test::ScratchDir dir;
  write_file_atomic(dir / "a.json", "first");
  write_file_atomic(dir / "a.json", "second, longer");
  EXPECT_EQ(read_file(dir / "a.json"), "second, longer");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1) << "a temp file was left behind";
}

TEST(FileIo, ReadMissingFileNamesIt) {
  test::ScratchDir dir;
  try {
    read_file(dir / "missing.txt");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.txt"), std::string::npos) << e.what();
  }
}

TEST(FileIo, WriteIntoMissingDirectoryNamesTarget) {
  test::ScratchDir dir;
  try {
    write_file_atomic(dir / "no" / "such" / "out.json", "x");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out.json"), std::string::npos) << e.what();
  }
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace ec
