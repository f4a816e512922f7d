#include "ops/direct_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace ik::server {
namespace {

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

DirectFile::DirectFile()
    : stage_(static_cast<char*>(std::aligned_alloc(kHugePage, kChunk)),
             &std::free) {
  // In huge pages, each write pins two pages instead of a thousand (the
  // kernel pins the memory a direct write reads). Advice only: without
  // them it is as correct, and slower.
  ::madvise(stage_.get(), kChunk, MADV_HUGEPAGE);
}

absl::Status DirectFile::Open(const std::string& path) {
  Abandon();
  path_ = path;
  constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  fd_ = ::open(path.c_str(), kFlags | O_DIRECT, 0644);
  direct_ = fd_ >= 0;
  if (fd_ < 0 && errno == EINVAL) fd_ = ::open(path.c_str(), kFlags, 0644);
  if (fd_ < 0) return Errno("create", path);
  offset_ = 0;
  staged_ = 0;
  written_ = 0;
  return absl::OkStatus();
}

absl::Status DirectFile::ThroughPageCache() {
  direct_ = false;
  if (::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_DIRECT) != 0) {
    return Errno("write", path_);
  }
  return absl::OkStatus();
}

// Writes the first `length` bytes of the stage (a multiple of kBlock) at
// offset_.
absl::Status DirectFile::WriteStaged(std::size_t length) {
  std::size_t done = 0;
  while (done < length) {
    const ssize_t wrote = ::pwrite(fd_, stage_.get() + done, length - done,
                                   static_cast<off_t>(offset_ + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && errno == EINVAL && direct_) {
      // The file system took O_DIRECT at open and not for this write (its
      // blocks larger than a page; a size limit leaving part of a block):
      // through the page cache, which says what is wrong, if anything.
      if (absl::Status cached = ThroughPageCache(); !cached.ok()) {
        return cached;
      }
      continue;
    }
    if (wrote <= 0) {
      if (wrote == 0) errno = ENOSPC;
      return Errno("write", path_);
    }
    // Continued through the page cache: O_DIRECT takes whole blocks only.
    if (direct_ && static_cast<std::size_t>(wrote) % kBlock != 0) {
      if (absl::Status cached = ThroughPageCache(); !cached.ok()) {
        return cached;
      }
    }
    done += static_cast<std::size_t>(wrote);
  }
  written_ = std::max(
      written_, std::min(offset_ + static_cast<std::int64_t>(length), size()));
  return absl::OkStatus();
}

absl::Status DirectFile::Append(const iovec* pieces, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) {
    const char* from = static_cast<const char*>(pieces[k].iov_base);
    std::size_t left = pieces[k].iov_len;
    while (left > 0) {
      const std::size_t step = std::min(left, kChunk - staged_);
      std::memcpy(stage_.get() + staged_, from, step);
      staged_ += step;
      from += step;
      left -= step;
      if (staged_ == kChunk) {
        if (absl::Status wrote = WriteStaged(kChunk); !wrote.ok()) {
          return wrote;
        }
        offset_ += kChunk;
        staged_ = 0;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status DirectFile::WriteTail() {
  if (!has_tail()) return absl::OkStatus();
  const std::size_t padded = (staged_ + kBlock - 1) / kBlock * kBlock;
  std::memset(stage_.get() + staged_, 0, padded - staged_);
  if (absl::Status wrote = WriteStaged(padded); !wrote.ok()) return wrote;
  if (::ftruncate(fd_, static_cast<off_t>(size())) != 0) {
    return Errno("cut", path_);
  }
  // The whole blocks are done with; the last, partial one stays to be
  // written again, longer.
  const std::size_t whole = staged_ / kBlock * kBlock;
  std::memmove(stage_.get(), stage_.get() + whole, staged_ - whole);
  offset_ += static_cast<std::int64_t>(whole);
  staged_ -= whole;
  return absl::OkStatus();
}

absl::Status DirectFile::Close() {
  absl::Status status = is_open() ? WriteTail() : absl::OkStatus();
  Abandon();
  return status;
}

void DirectFile::Abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  offset_ = 0;
  staged_ = 0;
  written_ = 0;
}

}  // namespace ik::server
