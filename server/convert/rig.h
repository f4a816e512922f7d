// Wire <-> core for rigs (ik/v1/rig.proto): joints and their limits, chains
// with their solver settings, and the rig's parts (legs, colliders, dynamic
// chains). Size limits are checked here (RESOURCE_EXHAUSTED); everything
// else is validated by the core (Character::Create), which names the field.
#ifndef IK_SERVER_CONVERT_RIG_H_
#define IK_SERVER_CONVERT_RIG_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/character/character.h"
#include "ik/dynamics/dynamics.h"
#include "ik/rig/rig.h"
#include "ik/v1/rig.pb.h"
#include "service_limits.h"

namespace ik::server {

// Converts and validates a rig definition. `path` is where the rig sits in
// the caller's input ("rig" in a RegisterRig request, "" for a rig file):
// every error names "<path>.<field>". Checks the size limits first, then
// resolves parent references, then lets Character::Create check the rest
// (the API's Rig is the core's Character: the rig and its parts).
absl::StatusOr<Character> RigFromProto(const v1::Rig& rig,
                                       const ServiceLimits& limits,
                                       absl::string_view path);

// The rig as stored and hashed: `rig` with every rest rotation replaced by
// the normalised one of `validated`.
v1::Rig NormalizedRig(const v1::Rig& rig, const Rig& validated);

// The solver enum, both ways (SOLVER_UNSPECIFIED means auto); an unknown
// value is INVALID_ARGUMENT naming `path`.
absl::StatusOr<SolverKind> SolverFromProto(v1::Solver solver,
                                           absl::string_view path);
v1::Solver SolverToProto(SolverKind solver);

// Wire wind -> core wind, with the documented defaults for unset fields; raw
// values (the dynamics step validates them).
WindSettings WindFromProto(const v1::Wind& wind);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_RIG_H_
