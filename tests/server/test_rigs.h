// Small rigs for service and client tests, built as protos.
#ifndef IK_TESTS_SERVER_TEST_RIGS_H_
#define IK_TESTS_SERVER_TEST_RIGS_H_

#include "ik/v1/ik.pb.h"

namespace ik::testing {

// "arm": shoulder (root at the origin) -> elbow (0.3 m down, bent slightly
// forward) -> wrist (0.25 m down) with a 3-joint chain "arm" and, for
// error tests, nothing else. Upper arm 0.3 m, forearm 0.25 m.
v1::Rig ArmRig();

// A vec3 / quaternion literal in wire order.
v1::Vec3 Vec(double x, double y, double z);
v1::Quat Rotation(double x, double y, double z, double w);

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_TEST_RIGS_H_
