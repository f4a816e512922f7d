// The seeded arms of bench/ozz_bench.cc, in both libraries' types, and the
// checks of both libraries' answers: a double-precision forward kinematics
// of its own (it uses neither ikd's nor ozz's), the tip's distance to the
// target, the elbow's side of the root-target line and the bone lengths.
#ifndef IK_BENCH_OZZ_ARMS_H_
#define IK_BENCH_OZZ_ARMS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"

namespace ik::bench {

inline constexpr double kUpperArm = 0.30;  // metres
inline constexpr double kForearm = 0.25;   // metres
inline constexpr int kArmCount = 1024;

// Shoulder, elbow, wrist: the shoulder's local transform is its model
// transform (no parent).
using ArmPose = std::array<Transform, 3>;

// One problem, model space throughout.
struct Arm {
  // The start pose: the shoulder at a random place and orientation, the
  // upper arm along the shoulder's +x (kUpperArm), the elbow bent about a
  // random hinge perpendicular to it, the forearm along the elbow's +x.
  ArmPose locals;
  // The elbow's hinge axis in the elbow's local space, oriented as ozz's
  // IKTwoBoneJob::mid_axis wants it: a positive turn about it opens the
  // elbow.
  Vec3 opening_axis_local{0.0};
  // Where the elbow should point (a position; ozz takes the direction from
  // the shoulder to it).
  Vec3 pole_model{0.0};
  // Within reach: kUpperArm - kForearm < distance < kUpperArm + kForearm.
  Vec3 target_model{0.0};
};

// kArmCount arms drawn from `seed` (std::mt19937_64).
std::vector<Arm> MakeArms(std::uint64_t seed);

// Model transforms of the three joints, by this file's own composition
// (unit rotations; unit scale assumed).
std::array<Transform, 3> ArmModels(const ArmPose& locals);

// `pose` with the two corrections post-multiplied into the shoulder and
// elbow.
ArmPose Corrected(ArmPose pose, const Quat& shoulder, const Quat& elbow);

// ikd's rig of the arm: shoulder, elbow, wrist (the bone lengths above) and
// a two-bone chain "arm" over them, no joint limits.
absl::StatusOr<Rig> MakeArmRig();

// In ozz's types, rounded to float.
ozz::math::SimdFloat4 ToSimd(const Vec3& v, double w = 0.0);
ozz::math::Float4x4 ToMatrix(const Transform& t);
Quat ToQuat(const ozz::math::SimdQuaternion& q);
// The arm's three joints in lanes 0-2 of one SoA transform (lane 3
// identity), and back.
ozz::math::SoaTransform ToSoa(const ArmPose& pose);
ArmPose FromSoa(const ozz::math::SoaTransform& soa);
// ozz's skeleton of the arm: shoulder -> elbow -> wrist.
ozz::unique_ptr<ozz::animation::Skeleton> MakeArmSkeleton();

// The worst values over a set of answers.
struct AnswerErrors {
  double tip_to_target = 0.0;  // metres
  // The elbow's distance from the plane through shoulder, target and pole,
  // metres.
  double elbow_off_pole_plane = 0.0;
  // Elbows on the far side of the shoulder-target line from the pole.
  int elbows_on_wrong_side = 0;
  double bone_length_error = 0.0;  // metres, either bone
};

// Folds the answer `solved` (the arm's pose after the solve) into `errors`.
void CheckAnswer(const Arm& arm, const ArmPose& solved, AnswerErrors& errors);

// Whether `errors` is within `bound` metres on every measure, with every
// elbow on the pole's side.
bool WithinBound(const AnswerErrors& errors, double bound);

}  // namespace ik::bench

#endif  // IK_BENCH_OZZ_ARMS_H_
