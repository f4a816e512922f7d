#include "ozz_arms.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"

namespace ik::bench {
namespace {

namespace om = ::ozz::math;
namespace oa = ::ozz::animation;

// Hamilton product and rotation written out here, so that the checks share
// no code with either library.
Quat Multiply(const Quat& a, const Quat& b) {
  return Quat(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
              a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

// q v q*: a quaternion off unit length by e scales v by about 1 + 2e, which
// the bone-length check then sees.
Vec3 Rotate(const Quat& q, const Vec3& v) {
  const Quat p = Multiply(Multiply(q, Quat(0.0, v.x, v.y, v.z)),
                          Quat(q.w, -q.x, -q.y, -q.z));
  return Vec3(p.x, p.y, p.z);
}

Vec3 UnitVector(std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  for (;;) {
    const Vec3 v(normal(engine), normal(engine), normal(engine));
    const double length = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (length > 1e-3) return v / length;
  }
}

Quat UnitQuaternion(std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  for (;;) {
    const Quat q(normal(engine), normal(engine), normal(engine),
                 normal(engine));
    const double norm =
        std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (norm > 1e-3)
      return Quat(q.w / norm, q.x / norm, q.y / norm, q.z / norm);
  }
}

// Rotation by `angle` about unit `axis`.
Quat AxisAngle(const Vec3& axis, double angle) {
  const double s = std::sin(0.5 * angle);
  return Quat(std::cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z);
}

}  // namespace

std::vector<Arm> MakeArms(std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> place(-1.0, 1.0);
  std::uniform_real_distribution<double> turn(0.0, 2.0 * kPi);
  std::uniform_real_distribution<double> bend(0.2, 2.6);
  std::uniform_real_distribution<double> pole_distance(0.3, 1.0);
  std::uniform_real_distribution<double> reach(kUpperArm - kForearm + 0.01,
                                               kUpperArm + kForearm - 0.01);
  std::vector<Arm> arms(kArmCount);
  for (Arm& arm : arms) {
    Transform& shoulder = arm.locals[0];
    shoulder.translation = Vec3(place(engine), place(engine), place(engine));
    shoulder.rotation = UnitQuaternion(engine);
    // The hinge, in the shoulder's space, is perpendicular to the upper arm
    // (+x); a positive turn about it bends the elbow from straight.
    const double hinge_angle = turn(engine);
    const Vec3 hinge(0.0, std::cos(hinge_angle), std::sin(hinge_angle));
    Transform& elbow = arm.locals[1];
    elbow.translation = Vec3(kUpperArm, 0.0, 0.0);
    elbow.rotation = AxisAngle(hinge, bend(engine));
    arm.locals[2].translation = Vec3(kForearm, 0.0, 0.0);
    // What a user of ozz does: the hinge in the elbow's own space, turned
    // to open the elbow for a positive angle.
    const Quat& r = elbow.rotation;
    arm.opening_axis_local = -Rotate(Quat(r.w, -r.x, -r.y, -r.z), hinge);

    const Vec3 shoulder_model = shoulder.translation;
    const Vec3 target_direction = UnitVector(engine);
    arm.target_model = shoulder_model + reach(engine) * target_direction;
    // A pole well off the shoulder-target line (both solvers leave the bend
    // plane undefined on it).
    Vec3 pole_direction;
    do {
      pole_direction = UnitVector(engine);
    } while (std::abs(glm::dot(pole_direction, target_direction)) > 0.95);
    arm.pole_model = shoulder_model + pole_distance(engine) * pole_direction;
  }
  return arms;
}

Transform Composed(const Transform& parent, const Transform& local) {
  Transform model;
  model.translation =
      parent.translation + Rotate(parent.rotation, local.translation);
  model.rotation = Multiply(parent.rotation, local.rotation);
  return model;
}

std::vector<Transform> WorldPose(const Rig& rig, const Transform& root,
                                 absl::Span<const Transform> locals) {
  std::vector<Transform> world(locals.size());
  for (size_t j = 0; j < locals.size(); ++j) {
    const int parent = rig.parents()[j];
    world[j] = Composed(parent == kNoParent ? root : world[parent], locals[j]);
  }
  return world;
}

std::array<Transform, 3> ArmModels(const ArmPose& locals) {
  std::array<Transform, 3> models;
  models[0] = locals[0];
  for (int joint = 1; joint < 3; ++joint) {
    models[joint] = Composed(models[joint - 1], locals[joint]);
  }
  return models;
}

void CheckAnswer(const Arm& arm, const ArmPose& solved, AnswerErrors& errors) {
  const std::array<Transform, 3> models = ArmModels(solved);
  const Vec3& shoulder = models[0].translation;
  const Vec3& elbow = models[1].translation;
  const Vec3& wrist = models[2].translation;
  errors.tip_to_target =
      std::max(errors.tip_to_target, glm::length(wrist - arm.target_model));
  errors.bone_length_error =
      std::max({errors.bone_length_error,
                std::abs(glm::length(elbow - shoulder) - kUpperArm),
                std::abs(glm::length(wrist - elbow) - kForearm)});
  // The parts of the elbow and the pole across the shoulder-target axis.
  const Vec3 axis = glm::normalize(arm.target_model - shoulder);
  const Vec3 elbow_across =
      (elbow - shoulder) - glm::dot(elbow - shoulder, axis) * axis;
  const Vec3 pole_across = (arm.pole_model - shoulder) -
                           glm::dot(arm.pole_model - shoulder, axis) * axis;
  const Vec3 plane_normal = glm::normalize(glm::cross(axis, pole_across));
  errors.elbow_off_pole_plane =
      std::max(errors.elbow_off_pole_plane,
               std::abs(glm::dot(elbow - shoulder, plane_normal)));
  if (!(glm::dot(elbow_across, pole_across) > 0.0)) {
    ++errors.elbows_on_wrong_side;
  }
}

om::SimdFloat4 ToSimd(const Vec3& v, double w) {
  return om::simd_float4::Load(static_cast<float>(v.x), static_cast<float>(v.y),
                               static_cast<float>(v.z), static_cast<float>(w));
}

Quat ToQuat(const om::SimdQuaternion& q) {
  float xyzw[4];
  om::StorePtrU(q.xyzw, xyzw);
  return MakeQuat(xyzw[0], xyzw[1], xyzw[2], xyzw[3]);
}

om::Float4x4 ToMatrix(const Transform& t) {
  return om::Float4x4::FromAffine(
      ToSimd(t.translation),
      ToSimd(Vec3(t.rotation.x, t.rotation.y, t.rotation.z), t.rotation.w),
      om::simd_float4::one());
}

Transform LaneOf(const om::SoaTransform& soa, int lane) {
  const om::SimdFloat4 v[10] = {
      soa.translation.x, soa.translation.y, soa.translation.z, soa.rotation.x,
      soa.rotation.y,    soa.rotation.z,    soa.rotation.w,    soa.scale.x,
      soa.scale.y,       soa.scale.z};
  float lanes[10][4];
  for (int i = 0; i < 10; ++i) om::StorePtrU(v[i], lanes[i]);
  Transform t;
  t.translation = Vec3(lanes[0][lane], lanes[1][lane], lanes[2][lane]);
  t.rotation =
      MakeQuat(lanes[3][lane], lanes[4][lane], lanes[5][lane], lanes[6][lane]);
  t.scale = Vec3(lanes[7][lane], lanes[8][lane], lanes[9][lane]);
  return t;
}

void SetLane(om::SoaTransform& soa, int lane, const Transform& t) {
  om::SimdFloat4* const v[10] = {&soa.translation.x, &soa.translation.y,
                                 &soa.translation.z, &soa.rotation.x,
                                 &soa.rotation.y,    &soa.rotation.z,
                                 &soa.rotation.w,    &soa.scale.x,
                                 &soa.scale.y,       &soa.scale.z};
  const double values[10] = {t.translation.x, t.translation.y, t.translation.z,
                             t.rotation.x,    t.rotation.y,    t.rotation.z,
                             t.rotation.w,    t.scale.x,       t.scale.y,
                             t.scale.z};
  for (int i = 0; i < 10; ++i) {
    float lanes[4];
    om::StorePtrU(*v[i], lanes);
    lanes[lane] = static_cast<float>(values[i]);
    *v[i] = om::simd_float4::LoadPtrU(lanes);
  }
}

void SetPose(absl::Span<const Transform> locals,
             absl::Span<const int> ozz_index, ozz::span<om::SoaTransform> soa) {
  for (size_t j = 0; j < locals.size(); ++j) {
    SetLane(soa[ozz_index[j] / 4], ozz_index[j] & 3, locals[j]);
  }
}

std::vector<Transform> PoseOf(ozz::span<const om::SoaTransform> soa,
                              absl::Span<const int> ozz_index) {
  std::vector<Transform> locals(ozz_index.size());
  for (size_t j = 0; j < locals.size(); ++j) {
    locals[j] = LaneOf(soa[ozz_index[j] / 4], ozz_index[j] & 3);
  }
  return locals;
}

om::SoaTransform ToSoa(const ArmPose& pose) {
  om::SoaTransform soa = om::SoaTransform::identity();
  for (int joint = 0; joint < 3; ++joint) SetLane(soa, joint, pose[joint]);
  return soa;
}

ArmPose FromSoa(const om::SoaTransform& soa) {
  ArmPose pose;
  for (int joint = 0; joint < 3; ++joint) pose[joint] = LaneOf(soa, joint);
  return pose;
}

ArmPose Corrected(ArmPose pose, const Quat& shoulder, const Quat& elbow) {
  pose[0].rotation = pose[0].rotation * shoulder;
  pose[1].rotation = pose[1].rotation * elbow;
  return pose;
}

absl::StatusOr<Rig> MakeArmRig() {
  RigDefinition def;
  def.name = "arm";
  def.joints.resize(3);
  def.joints[0].name = "shoulder";
  def.joints[1].name = "elbow";
  def.joints[1].parent = 0;
  def.joints[1].rest.translation = Vec3(kUpperArm, 0.0, 0.0);
  def.joints[1].rest.rotation = AngleAxis(0.5, Vec3(0.0, 0.0, 1.0));
  def.joints[2].name = "wrist";
  def.joints[2].parent = 1;
  def.joints[2].rest.translation = Vec3(kForearm, 0.0, 0.0);
  ChainDefinition chain;
  chain.name = "arm";
  chain.root = "shoulder";
  chain.tip = "wrist";
  chain.solver = SolverKind::kTwoBone;
  def.chains.push_back(chain);
  return Rig::Create(std::move(def));
}

namespace {

void AddChildren(const Rig& rig, int parent,
                 oa::offline::RawSkeleton::Joint::Children& children) {
  for (int j = 0; j < rig.joint_count(); ++j) {
    if (rig.parents()[j] != parent) continue;
    oa::offline::RawSkeleton::Joint& joint = children.emplace_back();
    joint.name = rig.joint(j).name.c_str();
    const Transform& rest = rig.rest_pose()[j];
    om::Store3PtrU(ToSimd(rest.translation), &joint.transform.translation.x);
    om::StorePtrU(
        ToSimd(Vec3(rest.rotation.x, rest.rotation.y, rest.rotation.z),
               rest.rotation.w),
        &joint.transform.rotation.x);
    joint.transform.scale = om::Float3::one();
    AddChildren(rig, j, joint.children);
  }
}

}  // namespace

ozz::unique_ptr<oa::Skeleton> MakeSkeleton(const Rig& rig) {
  oa::offline::RawSkeleton raw;
  AddChildren(rig, kNoParent, raw.roots);
  return oa::offline::SkeletonBuilder()(raw);
}

Vec3 ToVec3(const om::SimdFloat4& v) {
  float xyzw[4];
  om::StorePtrU(v, xyzw);
  return Vec3(xyzw[0], xyzw[1], xyzw[2]);
}

void MultiplyRotation(ozz::span<om::SoaTransform> locals, int joint,
                      const om::SimdQuaternion& correction) {
  om::SoaQuaternion& soa = locals[joint / 4].rotation;
  om::SimdFloat4 aos[4];
  om::Transpose4x4(&soa.x, aos);
  aos[joint & 3] = (om::SimdQuaternion{aos[joint & 3]} * correction).xyzw;
  om::Transpose4x4(aos, &soa.x);
}

Quat LaneRotation(ozz::span<const om::SoaTransform> locals, int joint) {
  const om::SoaQuaternion& soa = locals[joint / 4].rotation;
  om::SimdFloat4 aos[4];
  om::Transpose4x4(&soa.x, aos);
  return ToQuat({aos[joint & 3]});
}

void SetLaneRotation(ozz::span<om::SoaTransform> locals, int joint,
                     const Quat& rotation) {
  om::SoaQuaternion& soa = locals[joint / 4].rotation;
  om::SimdFloat4 aos[4];
  om::Transpose4x4(&soa.x, aos);
  aos[joint & 3] = ToSimd(Vec3(rotation.x, rotation.y, rotation.z), rotation.w);
  om::Transpose4x4(aos, &soa.x);
}

bool WithinBound(const AnswerErrors& errors, double bound) {
  return errors.tip_to_target <= bound &&
         errors.elbow_off_pole_plane <= bound &&
         errors.bone_length_error <= bound && errors.elbows_on_wrong_side == 0;
}

}  // namespace ik::bench
