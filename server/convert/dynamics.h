// Wire <-> core for StepDynamics (ik/v1/dynamics.proto): the state a caller
// carries from step to step, and each chain's result. States pass through
// raw; the core's step validates them, naming "states[i]....".
#ifndef IK_SERVER_CONVERT_DYNAMICS_H_
#define IK_SERVER_CONVERT_DYNAMICS_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "ik/dynamics/dynamic_chain_binding.h"
#include "ik/dynamics/dynamics.h"
#include "ik/rig/rig.h"
#include "ik/v1/dynamics.pb.h"
#include "server/convert/values.h"

namespace ik::server {

// A state from a request, raw.
DynamicState StateFromProto(const v1::DynamicChainState& state);

// One chain's answer: the simulated joints, the rotations of those that
// turn (`rotations`, one per chain joint), the new state tagged with the
// chain and the rig revision, and the step's report, into `result`.
void DynamicChainResultToProto(const Rig& rig, const DynamicChainBinding& chain,
                               const std::vector<Quat>& rotations,
                               const DynamicState& state,
                               const DynamicsReport& report,
                               absl::string_view revision, AnswerForm form,
                               v1::DynamicChainResult& result);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_DYNAMICS_H_
