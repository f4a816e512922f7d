#include "rpc/unread_answers.h"

#include "absl/strings/str_cat.h"

namespace ik::server {

absl::Status UnreadAnswers::Admit(absl::string_view caller) const {
  absl::MutexLock lock(&mutex_);
  auto found = by_caller_.find(caller);
  const std::int64_t own = found == by_caller_.end() ? 0 : found->second;
  if (own >= per_caller_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "ikd holds ", own,
        " bytes of this caller's answers that it has not "
        "read, the most it holds for one caller "
        "(ikd --max_unread_answer_bytes_per_caller); read them, then retry"));
  }
  if (held_ >= total_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "ikd holds ", held_,
        " bytes of answers that their callers have not "
        "read, the most it holds in all (ikd --max_unread_answer_bytes); "
        "retry later"));
  }
  return absl::OkStatus();
}

void UnreadAnswers::Hold(absl::string_view caller, std::int64_t bytes) {
  absl::MutexLock lock(&mutex_);
  by_caller_[caller] += bytes;
  held_ += bytes;
}

void UnreadAnswers::Release(absl::string_view caller, std::int64_t bytes) {
  absl::MutexLock lock(&mutex_);
  auto found = by_caller_.find(caller);
  if (found == by_caller_.end()) return;
  found->second -= bytes;
  held_ -= bytes;
  if (found->second <= 0) by_caller_.erase(found);
}

std::int64_t UnreadAnswers::held(absl::string_view caller) const {
  absl::MutexLock lock(&mutex_);
  auto found = by_caller_.find(caller);
  return found == by_caller_.end() ? 0 : found->second;
}

std::int64_t UnreadAnswers::held() const {
  absl::MutexLock lock(&mutex_);
  return held_;
}

}  // namespace ik::server
