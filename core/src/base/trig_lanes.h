// Two lanes at a time of the elementary functions of ik/base/trig.h, for
// the core's SIMD lane paths (solvers/two_bone_lanes.cc): lane i of each
// result has the bits of the scalar function on lane i of the arguments.
// SLEEF's consistent builds (Sleef_cinz_*) give the same results in every
// vector width but for cos of tiny negative arguments (CosLanes takes the
// scalar function below 2^-40);
// tests/core/trig_lanes_test.cc checks every lane against the scalar on
// seeded and special inputs. Not part of the public API.
#ifndef IK_SRC_BASE_TRIG_LANES_H_
#define IK_SRC_BASE_TRIG_LANES_H_

namespace ik::internal {

// Two doubles in one 16-byte vector (GCC's vector extensions).
using Lanes2 = double __attribute__((vector_size(16)));

Lanes2 Atan2Lanes(Lanes2 y, Lanes2 x);
Lanes2 SinLanes(Lanes2 x);
Lanes2 CosLanes(Lanes2 x);
Lanes2 AcosLanes(Lanes2 x);
Lanes2 AsinLanes(Lanes2 x);

// Whether this processor runs the core's four-lane AVX paths (x86-64 with
// AVX and an operating system that saves its registers); checked once.
bool HasAvxLanes();

}  // namespace ik::internal

#endif  // IK_SRC_BASE_TRIG_LANES_H_
