// The seeded arms of bench/ozz_bench.cc, in both libraries' types, and the
// checks of both libraries' answers: a double-precision forward kinematics
// of its own (it uses neither ikd's nor ozz's), the tip's distance to the
// target, the elbow's side of the root-target line and the bone lengths.
// Also the conversions between ikd's and ozz's types that the whole crowd
// character (bench/ozz_crowd.h) shares.
#ifndef IK_BENCH_OZZ_ARMS_H_
#define IK_BENCH_OZZ_ARMS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz/base/span.h"

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

// `local` under `parent` by this file's own arithmetic (it shares no code
// with either library): unit rotations, unit scale assumed.
Transform Composed(const Transform& parent, const Transform& local);

// Every joint's world transform under `root` (one local per joint of
// `rig`), by Composed.
std::vector<Transform> WorldPose(const Rig& rig, const Transform& root,
                                 absl::Span<const Transform> locals);

// Model transforms of the three joints, by Composed.
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
// Lane `lane` (0-3) of an SoA transform, widened to ikd's transform, and
// set from one (rounded to float).
Transform LaneOf(const ozz::math::SoaTransform& soa, int lane);
void SetLane(ozz::math::SoaTransform& soa, int lane, const Transform& t);
// A pose of ikd's (one local per joint) into ozz's SoA transforms, joint j
// in ozz's joint ozz_index[j], and back.
void SetPose(absl::Span<const Transform> locals,
             absl::Span<const int> ozz_index,
             ozz::span<ozz::math::SoaTransform> soa);
std::vector<Transform> PoseOf(ozz::span<const ozz::math::SoaTransform> soa,
                              absl::Span<const int> ozz_index);
// The arm's three joints in lanes 0-2 of one SoA transform (lane 3
// identity), and back.
ozz::math::SoaTransform ToSoa(const ArmPose& pose);
ArmPose FromSoa(const ozz::math::SoaTransform& soa);
// ozz's skeleton of `rig`: its joints, names and rest transforms (in
// ozz's own order: map the joints by name).
ozz::unique_ptr<ozz::animation::Skeleton> MakeSkeleton(const Rig& rig);
Vec3 ToVec3(const ozz::math::SimdFloat4& v);  // x, y, z widened

// Joint `joint` of SoA locals is lane joint % 4 of locals[joint / 4]. Its
// local rotation post-multiplied by an IK job's correction (what ozz's
// IKTwoBoneJob and IKAimJob leave to the caller), read (widened) and set
// (rounded).
void MultiplyRotation(ozz::span<ozz::math::SoaTransform> locals, int joint,
                      const ozz::math::SimdQuaternion& correction);
Quat LaneRotation(ozz::span<const ozz::math::SoaTransform> locals, int joint);
void SetLaneRotation(ozz::span<ozz::math::SoaTransform> locals, int joint,
                     const Quat& rotation);

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
