// Small rigs for service and client tests, built as protos.
#ifndef IK_TESTS_SERVER_TEST_RIGS_H_
#define IK_TESTS_SERVER_TEST_RIGS_H_

#include "ik/v1/ik.pb.h"

namespace ik::testing {

// "arm": shoulder (root at the origin) -> elbow (0.3 m down, bent slightly
// forward) -> wrist (0.25 m down) with a 3-joint chain "arm" and, for
// error tests, nothing else. Upper arm 0.3 m, forearm 0.25 m.
v1::Rig ArmRig();

// A grid of cells_x x cells_z square cells `spacing` metres wide, two
// triangles per cell, from (min_x, min_z); vertex (i, k) is at
// (min_x + i * spacing, base_y + slope_z * z, min_z + k * spacing), so the
// surface is the plane y = base_y + slope_z * z. (cells_x + 1) *
// (cells_z + 1) vertices, 2 * cells_x * cells_z triangles.
v1::TriangleMesh GridMesh(int cells_x, int cells_z, double spacing,
                          double min_x, double min_z, double base_y,
                          double slope_z);

// A vec3 / quaternion literal in wire order.
v1::Vec3 Vec(double x, double y, double z);
v1::Quat Rotation(double x, double y, double z, double w);

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_TEST_RIGS_H_
