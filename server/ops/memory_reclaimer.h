// Gives the heap's free memory back to the system after a burst. ikd keeps
// freed blocks for reuse (main.cc's mallopt: a tick's megabytes are not
// mapped afresh every call), so after a burst of large requests the freed
// memory would stay resident for good; once a second this checks how much
// of the heap is free (mallinfo2) and, above `keep_free_bytes`, returns the
// free pages of every arena to the system (malloc_trim). Steady load frees
// and reuses far less than that, so it is not slowed.
#ifndef IK_SERVER_OPS_MEMORY_RECLAIMER_H_
#define IK_SERVER_OPS_MEMORY_RECLAIMER_H_

#include <malloc.h>

#include <cstddef>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace ik::server {

class MemoryReclaimer {
 public:
  explicit MemoryReclaimer(size_t keep_free_bytes)
      : keep_free_bytes_(keep_free_bytes), thread_([this] { Run(); }) {}
  ~MemoryReclaimer() {
    stop_.Notify();
    thread_.join();
  }
  MemoryReclaimer(const MemoryReclaimer&) = delete;
  MemoryReclaimer& operator=(const MemoryReclaimer&) = delete;

 private:
  void Run() {
    while (!stop_.WaitForNotificationWithTimeout(absl::Seconds(1))) {
      const struct mallinfo2 info = mallinfo2();
      if (info.fordblks > keep_free_bytes_) malloc_trim(0);
    }
  }

  const size_t keep_free_bytes_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_MEMORY_RECLAIMER_H_
