// The bundled example tail (examples/rigs/tail.json), built in C++ for the
// core tests, which must not depend on the server's JSON loader. Keep the
// two in step: same joints, order, numbers, limits and chains.
//
// A hips joint and a 13-joint tail (tail_00 .. tail_12) hanging back (-Z)
// and slightly down; every tail joint is a ball-and-socket with a 0.52 rad
// cone about its bone and +-0.2 rad of twist.
#ifndef IK_TESTS_CORE_TAIL_RIG_H_
#define IK_TESTS_CORE_TAIL_RIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"

namespace ik::testing {

inline constexpr int kTailJoints = 13;
// The tail chain's solver settings (AUTO: FABRIK): CCD needs up to ~250
// sweeps for the hardest reachable targets, FABRIK ~100 (the property test).
inline constexpr int kTailMaxIterations = 300;
inline constexpr double kTailTolerance = 1e-3;

inline RigDefinition TailRigDefinition() {
  RigDefinition definition;
  definition.name = "tail";
  JointDefinition hips;
  hips.name = "hips";
  hips.rest.translation = Vec3(0.0, 0.95, 0.0);
  definition.joints.push_back(hips);
  for (int i = 0; i < kTailJoints; ++i) {
    JointDefinition joint;
    joint.name = absl::StrFormat("tail_%02d", i);
    joint.parent = i;
    joint.rest.translation =
        i == 0 ? Vec3(0.0, -0.05, -0.1) : Vec3(0.0, -0.005, -0.09);
    joint.limit.kind = JointLimit::Kind::kBallSocket;
    // The last joint has no child: its cone axis is given.
    joint.limit.axis_from_child = i + 1 < kTailJoints;
    joint.limit.ball_socket.axis = Vec3(0.0, 0.0, -1.0);
    joint.limit.ball_socket.swing_max = 0.52;
    joint.limit.ball_socket.has_twist = true;
    joint.limit.ball_socket.twist = {-0.2, 0.2};
    definition.joints.push_back(joint);
  }
  ChainDefinition chain;
  chain.name = "tail";
  chain.root = "tail_00";
  chain.tip = "tail_12";
  chain.max_iterations = kTailMaxIterations;
  chain.tolerance = kTailTolerance;
  definition.chains.push_back(chain);
  return definition;
}

inline absl::StatusOr<Rig> TailRig() {
  return Rig::Create(TailRigDefinition());
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_TAIL_RIG_H_
