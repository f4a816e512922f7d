// Pauses a long build (a mesh's hierarchy and grid, its validation) between
// pieces of bounded work, so that a caller sharing its thread -- a server's
// solver pool, where another caller's call may run in between -- waits for
// one piece, not for the build. The build reports its elementary steps (a
// box grown, a primitive binned, a vertex checked); after every kPaceSteps
// of them the pacer calls `pause`. A pause changes nothing the build
// computes: the result is the same with any pause or none.
//
//   Pacer pacer(pause);                  // absl::FunctionRef<void()>
//   for (...) { ...; pacer.Step(); }
#ifndef IK_BASE_PACER_H_
#define IK_BASE_PACER_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace ik {

// Steps between two pauses: a few hundred microseconds of a build's loops.
inline constexpr std::int64_t kPaceSteps = 16384;

// The pause of a build nobody shares a thread with.
inline void NoPause() {}

// Not thread-safe: one per build. `pause` must outlive the pacer and must
// not touch what the build reads or writes.
class Pacer {
 public:
  explicit Pacer(absl::FunctionRef<void()> pause) : pause_(pause) {}

  // Counts one step (or `steps`), pausing once kPaceSteps have passed.
  void Step(std::int64_t steps = 1) {
    done_ += steps;
    if (done_ >= kPaceSteps) {
      done_ = 0;
      pause_();
    }
  }

 private:
  absl::FunctionRef<void()> pause_;
  std::int64_t done_ = 0;
};

}  // namespace ik

#endif  // IK_BASE_PACER_H_
