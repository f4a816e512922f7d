// Wire <-> core for StepDynamics (ik/v1/dynamics.proto): the state a caller
// carries from step to step, and each chain's result. States pass through
// raw; the core's step validates them, naming "states[i]....".
#ifndef IK_SERVER_CONVERT_DYNAMICS_H_
#define IK_SERVER_CONVERT_DYNAMICS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "convert/values.h"
#include "ik/dynamics/dynamic_chain_binding.h"
#include "ik/dynamics/dynamics.h"
#include "ik/rig/rig.h"
#include "ik/v1/dynamics.pb.h"

namespace ik::server {

// A state from a request, raw, from either of its forms (after
// CheckStateForm).
DynamicState StateFromProto(const v1::DynamicChainState& state);
// The same into `out`, whose vectors keep their memory (a reused state
// allocates nothing once it has held a chain's joints).
void StateFromProto(const v1::DynamicChainState& state, DynamicState& out);

// OK unless `state` mixes its forms (packed, packed_floats, the three
// vectors) or its packed numbers are not 10 a joint; errors name
// "<path>.packed" (or ".packed_floats").
absl::Status CheckStateForm(const v1::DynamicChainState& state,
                            absl::string_view path);

// The core names a state's numbers "<path>.positions[k]",
// ".previous_positions[k]" and ".rotations[k]"; for a packed `state` this
// renames them to the number in `packed` or `packed_floats`
// ("<path>.packed[10k]", "[10k+3]",
// "[10k+6]"). Other statuses pass as they are.
absl::Status InStateForm(const absl::Status& status,
                         const v1::DynamicChainState& state,
                         absl::string_view path);

// One chain's answer: the simulated joints, the rotations of those that
// turn (`rotations`, one per chain joint), the new state tagged with the
// chain and the rig revision (packed unless `form` is kFull), and the step's
// report, into `result`.
void DynamicChainResultToProto(const Rig& rig, const DynamicChainBinding& chain,
                               absl::Span<const Quat> rotations,
                               const DynamicState& state,
                               const DynamicsReport& report,
                               absl::string_view revision, AnswerForm form,
                               v1::DynamicChainResult& result);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_DYNAMICS_H_
