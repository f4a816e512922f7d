// Conversion of the rig parts the later API steps added (legs, colliders,
// dynamic chains, the forward axis) and of the StepDynamics state, between
// protobuf and the core's types. Values pass through raw: Rig::Create and
// the step job validate them, naming the field.
#ifndef IK_SERVER_CONVERT_PARTS_H_
#define IK_SERVER_CONVERT_PARTS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/dynamics.h"
#include "ik/rig.h"
#include "ik/v1/ik.pb.h"

namespace ik::server {

// Fills `definition`'s forward axis, legs, colliders and dynamic chains from
// `rig`. Fails only for what the core types cannot hold (an unset collider
// shape, a negative count); errors name the field without any prefix.
absl::Status PartsFromProto(const v1::Rig& rig, RigDefinition& definition);

// A chain's swivel and torque settings (`path` is "chains[i]"); raw values,
// except that an unknown swivel space is refused.
absl::Status ChainSettingsFromProto(const v1::Chain& chain,
                                    absl::string_view path,
                                    ChainDefinition& definition);

// Wire wind -> core wind, with the documented defaults for unset fields.
WindSettings WindFromProto(const v1::Wind& wind);

// A state from a request, raw (StepDynamicsJob validates it; errors are
// named relative to the state by the caller).
DynamicState StateFromProto(const v1::DynamicChainState& state);

// The state for the answer, tagged with the chain and rig revision.
v1::DynamicChainState StateToProto(const DynamicState& state,
                                   absl::string_view chain,
                                   absl::string_view revision);

v1::DynamicsReset ResetToProto(DynamicsReset reset);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_PARTS_H_
