// An append-only file written around the page cache (O_DIRECT): what is
// appended is gathered into 4 MiB of huge pages and written 4 MiB at a
// time, the disk reading it in place. A recording is written once and read
// rarely; through the page cache the kernel's copy of every byte (and its
// write-back throttling) would cost the server several times what this does.
//
// What is not yet a whole 4 MiB (the tail) is written when asked
// (WriteTail, Close): its last block padded, then the file cut back to its
// length. A file system that refuses O_DIRECT, at open or for a write, is
// written through the page cache in the same pieces.
#ifndef IK_SERVER_OPS_DIRECT_FILE_H_
#define IK_SERVER_OPS_DIRECT_FILE_H_

#include <sys/uio.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/status.h"

namespace ik::server {

class DirectFile {
 public:
  // O_DIRECT's alignment of offsets, lengths and memory (a page: every
  // device's logical block divides it).
  static constexpr std::size_t kBlock = 4096;
  // The size of the writes while appending, in huge pages.
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kChunk = 2 * kHugePage;

  DirectFile();
  ~DirectFile() { Abandon(); }
  DirectFile(const DirectFile&) = delete;
  DirectFile& operator=(const DirectFile&) = delete;

  // Creates `path` (truncated when it exists); the file open before, if
  // any, is abandoned.
  absl::Status Open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  // Whether the page cache is bypassed (false: the file system refused).
  bool direct() const { return direct_; }

  // Appends `pieces`, writing each 4 MiB as it fills. On an error the
  // file is left as written so far; Abandon it.
  absl::Status Append(const iovec* pieces, std::size_t count);
  // Writes what is appended and not yet written.
  absl::Status WriteTail();
  // WriteTail, then closes.
  absl::Status Close();
  // Closes without writing what is left.
  void Abandon();

  // Bytes appended; bytes in the file (appended and written).
  std::int64_t size() const { return offset_ + staged_; }
  std::int64_t written() const { return written_; }
  // Whether appended bytes wait for a write.
  bool has_tail() const { return written_ < size(); }

 private:
  absl::Status WriteStaged(std::size_t length);
  // Drops O_DIRECT for the rest of this file.
  absl::Status ThroughPageCache();

  std::unique_ptr<char, decltype(&std::free)> stage_;
  std::string path_;
  int fd_ = -1;
  bool direct_ = false;
  std::int64_t offset_ = 0;  // where stage_ starts in the file (aligned)
  std::size_t staged_ = 0;   // bytes in stage_
  std::int64_t written_ = 0;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_DIRECT_FILE_H_
