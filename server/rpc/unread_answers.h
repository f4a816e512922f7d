// The bytes of answers ikd has written that their callers have not read
// yet: a unary call's answer from the moment it is written until the call
// ends (gRPC ends it once the answer is sent within the client's flow
// control window), a TickStream's tick answer until its write completes. A
// client that never reads its answers keeps them here; they are bounded per
// caller (callers.h) and in all, so such a client costs ikd a bounded
// amount of memory: a caller holding its bound or more, or any caller
// while all of them together hold theirs, has its next call refused with
// RESOURCE_EXHAUSTED before the call runs. A caller under its bound may
// still start calls whose answers take it over: what ikd holds is at most
// the bounds plus the answers of the calls admitted meanwhile.
// Thread-safe.
//
//   UnreadAnswers unread(8 << 20, 48 << 20);
//   if (absl::Status admitted = unread.Admit(caller); !admitted.ok()) ...;
//   unread.Hold(caller, answer.Length());    // written
//   unread.Release(caller, answer.Length());  // read (the call ended)
#ifndef IK_SERVER_RPC_UNREAD_ANSWERS_H_
#define IK_SERVER_RPC_UNREAD_ANSWERS_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace ik::server {

class UnreadAnswers {
 public:
  // Bounds in bytes (>= 1): per caller, and for all callers together.
  UnreadAnswers(std::int64_t per_caller, std::int64_t total)
      : per_caller_(per_caller), total_(total) {}

  // OK when `caller` may start a call; RESOURCE_EXHAUSTED saying whose
  // bound is reached otherwise.
  absl::Status Admit(absl::string_view caller) const
      ABSL_LOCKS_EXCLUDED(mutex_);
  void Hold(absl::string_view caller, std::int64_t bytes)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // Each Hold is released once, with the same bytes.
  void Release(absl::string_view caller, std::int64_t bytes)
      ABSL_LOCKS_EXCLUDED(mutex_);

  // Bytes held now, by `caller` and by everyone.
  std::int64_t held(absl::string_view caller) const ABSL_LOCKS_EXCLUDED(mutex_);
  std::int64_t held() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  const std::int64_t per_caller_;
  const std::int64_t total_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, std::int64_t> by_caller_
      ABSL_GUARDED_BY(mutex_);
  std::int64_t held_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace ik::server

#endif  // IK_SERVER_RPC_UNREAD_ANSWERS_H_
