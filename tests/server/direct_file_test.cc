// The recorder's file written around the page cache (ops/direct_file.h), on
// real files: seeded runs of appends of every size (empty, a byte, a block
// and a byte, past the 4 MiB of a write) with tails written between them, the
// file read back after each tail and compared with what was appended; closing
// writes what is left; Open truncates; a directory that cannot hold the
// file names it.
#include "ops/direct_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ik::server {
namespace {

class DirectFileTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Appends `bytes` cut into pieces of seeded sizes.
  static void AppendInPieces(DirectFile& file, const std::string& bytes,
                             std::mt19937& random) {
    std::vector<iovec> pieces;
    for (size_t at = 0; at < bytes.size();) {
      const size_t length = std::min<size_t>(
          bytes.size() - at,
          std::uniform_int_distribution<size_t>(0, 70000)(random));
      pieces.push_back({const_cast<char*>(bytes.data() + at), length});
      at += length;
    }
    ASSERT_TRUE(file.Append(pieces.data(), pieces.size()).ok());
  }

  const std::string dir_ =
      (std::filesystem::temp_directory_path() /
       ("ikd_direct_file_test_" + std::to_string(getpid())))
          .string();
};

TEST_F(DirectFileTest, HoldsExactlyWhatWasAppendedAfterEachTail) {
  const size_t kSizes[] = {0,
                           1,
                           DirectFile::kBlock - 1,
                           DirectFile::kBlock,
                           DirectFile::kBlock + 1,
                           DirectFile::kChunk - 1,
                           DirectFile::kChunk,
                           DirectFile::kChunk + DirectFile::kBlock + 1,
                           2 * DirectFile::kChunk + 17};
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 random(seed);
    const std::string path = dir_ + "/seed" + std::to_string(seed);
    DirectFile file;
    ASSERT_TRUE(file.Open(path).ok());
    std::string expected;
    for (int round = 0; round < 10; ++round) {
      std::string bytes(
          kSizes[random() % std::size(kSizes)] + random() % 3000 * (seed % 2),
          '\0');
      for (size_t at = 0; at < bytes.size(); at += 4) {
        const std::uint32_t word = static_cast<std::uint32_t>(random());
        std::memcpy(bytes.data() + at, &word,
                    std::min<size_t>(4, bytes.size() - at));
      }
      AppendInPieces(file, bytes, random);
      expected += bytes;
      ASSERT_EQ(file.size(), static_cast<std::int64_t>(expected.size()));
      // Less than one write's 4 MiB waits.
      EXPECT_GT(file.written(),
                file.size() - static_cast<std::int64_t>(DirectFile::kChunk));
      if (random() % 2 == 0) {
        ASSERT_TRUE(file.WriteTail().ok());
        EXPECT_FALSE(file.has_tail());
        ASSERT_EQ(Contents(path), expected) << "seed " << seed;
      }
    }
    ASSERT_TRUE(file.Close().ok());
    EXPECT_FALSE(file.is_open());
    EXPECT_EQ(Contents(path), expected) << "seed " << seed;
  }
}

TEST_F(DirectFileTest, OpenTruncatesAndAbandonLeavesTheTailUnwritten) {
  const std::string path = dir_ + "/file";
  DirectFile file;
  ASSERT_TRUE(file.Open(path).ok());
  std::string first(DirectFile::kChunk + 10, 'a');
  iovec piece = {first.data(), first.size()};
  ASSERT_TRUE(file.Append(&piece, 1).ok());
  EXPECT_TRUE(file.has_tail());
  file.Abandon();
  // The whole 4 MiB were written, the ten bytes after them were not.
  EXPECT_EQ(Contents(path), first.substr(0, DirectFile::kChunk));

  ASSERT_TRUE(file.Open(path).ok());
  std::string second = "short";
  piece = {second.data(), second.size()};
  ASSERT_TRUE(file.Append(&piece, 1).ok());
  ASSERT_TRUE(file.Close().ok());
  EXPECT_EQ(Contents(path), "short");
}

TEST_F(DirectFileTest, AFileThatCannotBeCreatedIsNamed) {
  DirectFile file;
  const std::string path = dir_ + "/no/such/dir/file";
  const absl::Status opened = file.Open(path);
  EXPECT_EQ(opened.code(), absl::StatusCode::kInternal);
  EXPECT_NE(opened.message().find(path), std::string::npos) << opened;
  EXPECT_FALSE(file.is_open());
}

}  // namespace
}  // namespace ik::server
