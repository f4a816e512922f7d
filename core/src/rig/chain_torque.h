// A chain's torque-solver settings, checked against its rig: the chain-wide
// settings in range and per-joint settings for joints of the chain before
// its tip. Not part of the public API (Rig::Create and Rig::MakeChain call
// it for every chain).
#ifndef IK_SRC_RIG_CHAIN_TORQUE_H_
#define IK_SRC_RIG_CHAIN_TORQUE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/rig/rig.h"

namespace ik::internal {

// Checks `definition`'s torque settings against `rig` (whose joints must
// be in place) and fills chain.torque and chain.torque_joints (one per
// chain joint; the rest rotation is the preferred one unless given). Paths
// start with `path_prefix` ("chains[2]." or ""): "<prefix>torque.gain",
// "<prefix>torque.joints[1].joint" (NOT_FOUND for an unknown joint).
absl::Status BuildChainTorque(const Rig& rig, const ChainDefinition& definition,
                              absl::string_view path_prefix, Chain& chain);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_CHAIN_TORQUE_H_
