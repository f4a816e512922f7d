// A dynamic chain validated once and laid out for stepping, for callers that
// step the same chain many times (every frame of a character).
//
// StepDynamicsJob with `chain` validates the whole chain description and
// resolves every joint's overrides on each call; with `prepared_chain` that
// is done once, here, and each call checks only what changes between calls
// (the animated pose, the colliders, delta_time, the state and the
// outputs). Both run the same step and give the same bits.
//
//   absl::StatusOr<ik::PreparedDynamicChain> prepared =
//       ik::PreparedDynamicChain::Create(ponytail);  // validates it
//   if (!prepared.ok()) return prepared.status();
//   ik::StepDynamicsJob job;
//   job.prepared_chain = &*prepared;  // instead of job.chain
//   ...                               // every frame: job.Run()
#ifndef IK_PREPARED_DYNAMIC_CHAIN_H_
#define IK_PREPARED_DYNAMIC_CHAIN_H_

#include <memory>

#include "absl/status/statusor.h"
#include "ik/dynamics/dynamic_chain.h"

namespace ik {

namespace dynamics_internal {
struct ChainLayout;
}  // namespace dynamics_internal

// Immutable once created; copies share the prepared data, and distinct jobs
// may use one PreparedDynamicChain on several threads at once. A default-
// constructed one is empty and refused by StepDynamicsJob::Validate.
class PreparedDynamicChain {
 public:
  PreparedDynamicChain() = default;

  // DynamicChain::Validate's errors, else the prepared chain (a copy of
  // `chain`).
  static absl::StatusOr<PreparedDynamicChain> Create(const DynamicChain& chain);

  bool empty() const { return layout_ == nullptr; }
  // The chain it was created from; must not be called on an empty one.
  const DynamicChain& chain() const;
  // For the step's own use.
  const dynamics_internal::ChainLayout& layout() const { return *layout_; }

 private:
  std::shared_ptr<const dynamics_internal::ChainLayout> layout_;
};

}  // namespace ik

#endif  // IK_PREPARED_DYNAMIC_CHAIN_H_
