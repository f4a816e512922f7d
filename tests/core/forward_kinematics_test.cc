#include "ik/rig/forward_kinematics.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ik/rig/rig.h"

namespace ik {
namespace {

constexpr double kEpsilon = 1e-12;

void ExpectVecNear(const Vec3& actual, const Vec3& expected) {
  EXPECT_NEAR(actual.x, expected.x, kEpsilon);
  EXPECT_NEAR(actual.y, expected.y, kEpsilon);
  EXPECT_NEAR(actual.z, expected.z, kEpsilon);
}

Transform Make(const Vec3& translation, const Quat& rotation = IdentityQuat(),
               const Vec3& scale = Vec3(1.0)) {
  Transform t;
  t.translation = translation;
  t.rotation = rotation;
  t.scale = scale;
  return t;
}

// Runs forward kinematics in model space; the job must succeed.
std::vector<Transform> ModelsOf(const std::vector<int>& parents,
                                const std::vector<Transform>& locals) {
  std::vector<Transform> models(parents.size());
  LocalToModelJob job;
  job.parents = parents;
  job.locals = locals;
  job.models = absl::MakeSpan(models);
  EXPECT_TRUE(job.Run().ok());
  return models;
}

TEST(LocalToModelJobTest, ChainsTranslations) {
  const std::vector<int> parents = {kNoParent, 0, 1};
  const std::vector<Transform> locals = {Make(Vec3(0.0, 1.0, 0.0)),
                                         Make(Vec3(0.3, 0.0, 0.0)),
                                         Make(Vec3(0.25, 0.0, 0.0))};
  const std::vector<Transform> models = ModelsOf(parents, locals);
  ExpectVecNear(models[0].translation, Vec3(0.0, 1.0, 0.0));
  ExpectVecNear(models[1].translation, Vec3(0.3, 1.0, 0.0));
  ExpectVecNear(models[2].translation, Vec3(0.55, 1.0, 0.0));
}

TEST(LocalToModelJobTest, RotationsCarryChildren) {
  // Root turned a quarter about +Z: its +X child ends up along +Y. The child
  // turns another quarter about +Z, so the grandchild's +X goes to -X.
  const std::vector<int> parents = {kNoParent, 0, 1};
  const Quat quarter_z = AngleAxis(kPi / 2.0, Vec3(0.0, 0.0, 1.0));
  const std::vector<Transform> locals = {Make(Vec3(1.0, 0.0, 0.0), quarter_z),
                                         Make(Vec3(2.0, 0.0, 0.0), quarter_z),
                                         Make(Vec3(3.0, 0.0, 0.0))};
  const std::vector<Transform> models = ModelsOf(parents, locals);
  ExpectVecNear(models[1].translation, Vec3(1.0, 2.0, 0.0));
  ExpectVecNear(models[2].translation, Vec3(-2.0, 2.0, 0.0));
  // The grandchild's model rotation is a half turn about Z.
  ExpectVecNear(models[2].rotation * Vec3(1.0, 0.0, 0.0), Vec3(-1.0, 0.0, 0.0));
}

TEST(LocalToModelJobTest, ScaleStretchesChildTranslations) {
  const std::vector<int> parents = {kNoParent, 0, 1};
  const std::vector<Transform> locals = {
      Make(Vec3(0.0), IdentityQuat(), Vec3(2.0, 1.0, 1.0)),
      Make(Vec3(1.0, 1.0, 0.0)), Make(Vec3(1.0, 0.0, 0.0))};
  const std::vector<Transform> models = ModelsOf(parents, locals);
  ExpectVecNear(models[1].translation, Vec3(2.0, 1.0, 0.0));
  // Scale is inherited: the grandchild's offset is stretched too.
  ExpectVecNear(models[2].translation, Vec3(4.0, 1.0, 0.0));
  ExpectVecNear(models[2].scale, Vec3(2.0, 1.0, 1.0));
}

TEST(LocalToModelJobTest, RootTransformMapsToWorld) {
  const std::vector<int> parents = {kNoParent, 0, kNoParent};
  const std::vector<Transform> locals = {Make(Vec3(0.0, 1.0, 0.0)),
                                         Make(Vec3(0.0, 0.0, 1.0)),
                                         Make(Vec3(5.0, 0.0, 0.0))};
  std::vector<Transform> models(3);
  LocalToModelJob job;
  job.parents = parents;
  job.locals = locals;
  job.root = Make(Vec3(10.0, 0.0, 0.0),
                  AngleAxis(kPi / 2.0, Vec3(0.0, 1.0, 0.0)));  // +Z -> +X
  job.models = absl::MakeSpan(models);
  ASSERT_TRUE(job.Run().ok());
  ExpectVecNear(models[0].translation, Vec3(10.0, 1.0, 0.0));
  ExpectVecNear(models[1].translation, Vec3(11.0, 1.0, 0.0));
  // A second root gets the root transform too.
  ExpectVecNear(models[2].translation, Vec3(10.0, 0.0, -5.0));
}

TEST(LocalToModelJobTest, FromRecomputesOnlyLaterJoints) {
  const std::vector<int> parents = {kNoParent, 0, 1};
  std::vector<Transform> locals = {Make(Vec3(0.0, 1.0, 0.0)),
                                   Make(Vec3(1.0, 0.0, 0.0)),
                                   Make(Vec3(1.0, 0.0, 0.0))};
  std::vector<Transform> models(3);
  LocalToModelJob job;
  job.parents = parents;
  job.locals = locals;
  job.models = absl::MakeSpan(models);
  ASSERT_TRUE(job.Run().ok());
  // Change the joint-1 local and the root; recompute from joint 1 only.
  locals[0].translation = Vec3(100.0);
  locals[1].rotation = AngleAxis(kPi / 2.0, Vec3(0.0, 0.0, 1.0));
  job.from = 1;
  ASSERT_TRUE(job.Run().ok());
  ExpectVecNear(models[0].translation, Vec3(0.0, 1.0, 0.0));  // untouched
  ExpectVecNear(models[1].translation, Vec3(1.0, 1.0, 0.0));
  ExpectVecNear(models[2].translation, Vec3(1.0, 2.0, 0.0));
}

TEST(LocalToModelJobTest, MatchesTheRigRestPose) {
  RigDefinition def;
  def.name = "two";
  JointDefinition a;
  a.name = "a";
  a.rest = Make(Vec3(0.0, 1.0, 0.0), AngleAxis(0.5, Vec3(1.0, 0.0, 0.0)));
  JointDefinition b;
  b.name = "b";
  b.parent = 0;
  b.rest = Make(Vec3(0.0, 0.0, 2.0));
  def.joints = {a, b};
  absl::StatusOr<Rig> rig = Rig::Create(def);
  ASSERT_TRUE(rig.ok()) << rig.status();
  std::vector<Transform> models(2);
  LocalToModelJob job;
  job.parents = rig->parents();
  job.locals = rig->rest_pose();
  job.models = absl::MakeSpan(models);
  ASSERT_TRUE(job.Run().ok());
  // (0,0,2) turned 0.5 rad about X: (0, -2 sin 0.5, 2 cos 0.5).
  ExpectVecNear(models[1].translation,
                Vec3(0.0, 1.0 - 2.0 * std::sin(0.5), 2.0 * std::cos(0.5)));
}

TEST(LocalToModelJobTest, RejectsMismatchedSizes) {
  const std::vector<int> parents = {kNoParent, 0};
  const std::vector<Transform> locals(1);
  std::vector<Transform> models(2);
  LocalToModelJob job;
  job.parents = parents;
  job.locals = locals;
  job.models = absl::MakeSpan(models);
  absl::Status status = job.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "locals:")) << status;

  const std::vector<Transform> two_locals(2);
  std::vector<Transform> one_model(1);
  job.locals = two_locals;
  job.models = absl::MakeSpan(one_model);
  status = job.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "models:")) << status;
}

TEST(LocalToModelJobTest, RejectsParentAfterChild) {
  const std::vector<int> parents = {1, kNoParent};
  const std::vector<Transform> locals(2);
  std::vector<Transform> models(2);
  LocalToModelJob job;
  job.parents = parents;
  job.locals = locals;
  job.models = absl::MakeSpan(models);
  const absl::Status status = job.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "parents[0]:")) << status;
}

TEST(LocalToModelJobTest, RejectsFromOutOfRange) {
  const std::vector<int> parents = {kNoParent};
  const std::vector<Transform> locals(1);
  std::vector<Transform> models(1);
  LocalToModelJob job;
  job.parents = parents;
  job.locals = locals;
  job.models = absl::MakeSpan(models);
  job.from = 2;
  absl::Status status = job.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "from:")) << status;
  job.from = -1;
  EXPECT_EQ(job.Validate().code(), absl::StatusCode::kInvalidArgument);
  job.from = 1;  // nothing to recompute, but valid
  EXPECT_TRUE(job.Validate().ok());
}

TEST(LocalToModelJobTest, EmptyHierarchyIsValid) {
  LocalToModelJob job;
  EXPECT_TRUE(job.Run().ok());
}

}  // namespace
}  // namespace ik
