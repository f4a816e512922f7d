// Rig chains: validation in Create and ad hoc chains through MakeChain.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "rig_fixtures.h"

namespace ik {
namespace {

using testing::ArmDefinition;
using testing::ExpectError;
using testing::ExpectInvalid;
using testing::kInf;
using testing::kNan;

TEST(RigTest, AcceptsTheIterativeSolvers) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tip = "hand";
  def.chains[0].solver = SolverKind::kFabrik;
  ChainDefinition ccd = def.chains[0];
  ccd.name = "arm_ccd";
  ccd.solver = SolverKind::kCcd;
  def.chains.push_back(ccd);
  absl::StatusOr<Rig> rig = Rig::Create(std::move(def));
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->FindChain("arm")->solver, SolverKind::kFabrik);
  EXPECT_EQ(rig->FindChain("arm_ccd")->solver, SolverKind::kCcd);
}

TEST(RigMakeChainTest, BuildsAChainLikeCreate) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  ChainDefinition definition;
  definition.name = "left_clavicle..left_wrist";
  definition.root = "left_clavicle";
  definition.tip = "left_wrist";
  definition.max_iterations = 40;
  absl::StatusOr<Chain> chain = rig->MakeChain(definition);
  ASSERT_TRUE(chain.ok()) << chain.status();
  const Chain* registered = rig->FindChain("left_arm_clavicle");
  EXPECT_EQ(chain->name, "left_clavicle..left_wrist");
  EXPECT_EQ(chain->joints, registered->joints);
  EXPECT_EQ(chain->ancestors, registered->ancestors);
  EXPECT_EQ(chain->solver, SolverKind::kAuto);
  EXPECT_EQ(chain->max_iterations, 40);
  EXPECT_EQ(chain->tolerance, kDefaultTolerance);
}

TEST(RigMakeChainTest, NamesTheDefinitionsFieldsWithoutAPrefix) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  auto expect = [&](ChainDefinition definition, absl::StatusCode code,
                    const std::string& message) {
    absl::StatusOr<Chain> chain = rig->MakeChain(definition);
    ASSERT_FALSE(chain.ok()) << message;
    EXPECT_EQ(chain.status().code(), code) << chain.status();
    EXPECT_EQ(chain.status().message(), message);
  };
  ChainDefinition definition;
  definition.root = "left_shoulder";
  definition.tip = "x";
  expect(definition, absl::StatusCode::kNotFound, "tip: unknown joint 'x'");
  definition.root = "";
  expect(definition, absl::StatusCode::kInvalidArgument, "root: empty");
  definition.root = "left_wrist";
  definition.tip = "left_shoulder";
  expect(definition, absl::StatusCode::kInvalidArgument,
         "tip: joint 'left_shoulder' does not descend from root "
         "'left_wrist'");
  definition.root = "left_shoulder";
  definition.tip = "left_shoulder";
  expect(definition, absl::StatusCode::kInvalidArgument,
         "tip: 'left_shoulder' is also the root; a chain needs at least 2 "
         "joints");
  definition.tip = "left_elbow";
  definition.solver = SolverKind::kTwoBone;
  expect(definition, absl::StatusCode::kInvalidArgument,
         "solver: the two-bone solver needs exactly 3 joints; the chain has "
         "2");
  definition.solver = SolverKind::kAuto;
  definition.tolerance = -1.0;
  expect(definition, absl::StatusCode::kInvalidArgument,
         "tolerance: must be finite and >= 0, got -1");
}

TEST(RigTest, RejectsEmptyChainName) {
  RigDefinition def = ArmDefinition();
  def.chains[0].name = "";
  ExpectInvalid(std::move(def), "chains[0].name: empty");
}

TEST(RigTest, RejectsDuplicateChainNames) {
  RigDefinition def = ArmDefinition();
  def.chains.push_back(def.chains[0]);
  ExpectInvalid(std::move(def),
                "chains[1].name: duplicate chain name 'arm' (also chains[0])");
}

TEST(RigTest, RejectsEmptyChainRootAndTip) {
  RigDefinition def = ArmDefinition();
  def.chains[0].root = "";
  ExpectInvalid(def, "chains[0].root: empty");
  def = ArmDefinition();
  def.chains[0].tip = "";
  ExpectInvalid(def, "chains[0].tip: empty");
}

TEST(RigTest, RejectsUnknownChainRootAsNotFound) {
  RigDefinition def = ArmDefinition();
  def.chains[0].root = "foo";
  ExpectError(std::move(def), absl::StatusCode::kNotFound,
              "chains[0].root: unknown joint 'foo'");
}

TEST(RigTest, RejectsUnknownChainTipAsNotFound) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tip = "foo";
  ExpectError(std::move(def), absl::StatusCode::kNotFound,
              "chains[0].tip: unknown joint 'foo'");
}

TEST(RigTest, RejectsTipThatDoesNotDescendFromRoot) {
  RigDefinition def = ArmDefinition();
  def.chains[0].root = "wrist";
  def.chains[0].tip = "elbow";
  ExpectInvalid(std::move(def),
                "chains[0].tip: joint 'elbow' does not descend from root "
                "'wrist'");
}

TEST(RigTest, RejectsTipOnASiblingBranch) {
  RigDefinition def = ArmDefinition();
  JointDefinition other;
  other.name = "other";
  other.parent = 0;
  other.rest.translation = Vec3(0.0, 0.1, 0.0);
  def.joints.push_back(other);
  def.chains[0].root = "elbow";
  def.chains[0].tip = "other";
  ExpectInvalid(std::move(def),
                "chains[0].tip: joint 'other' does not descend");
}

TEST(RigTest, RejectsSingleJointChain) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tip = "shoulder";
  ExpectInvalid(std::move(def),
                "chains[0].tip: 'shoulder' is also the root; a chain needs at "
                "least 2 joints");
}

TEST(RigTest, RejectsChainLongerThan64Joints) {
  RigDefinition def;
  def.name = "snake";
  for (int i = 0; i < kMaxChainJoints + 1; ++i) {
    JointDefinition joint;
    joint.name = "j" + std::to_string(i);
    joint.parent = i - 1;
    joint.rest.translation = Vec3(0.0, 0.0, 0.1);
    def.joints.push_back(joint);
  }
  ChainDefinition chain;
  chain.name = "all";
  chain.root = "j0";
  chain.tip = "j64";
  def.chains = {chain};
  RigDefinition ok = def;
  ok.chains[0].tip = "j63";
  EXPECT_TRUE(Rig::Create(std::move(ok)).ok());
  ExpectInvalid(std::move(def),
                "chains[0].tip: the chain from 'j0' to 'j64' "
                "has 65 joints, at most 64");
}

TEST(RigTest, RejectsZeroLengthBoneInsideAChain) {
  RigDefinition def = ArmDefinition();
  def.joints[2].rest.translation = Vec3(0.0);
  ExpectInvalid(std::move(def),
                "chains[0].tip: zero-length bone from 'elbow' to 'wrist'");
}

TEST(RigTest, AcceptsZeroLengthBoneOutsideChains) {
  RigDefinition def = ArmDefinition();
  def.joints[3].rest.translation = Vec3(0.0);
  EXPECT_TRUE(Rig::Create(std::move(def)).ok());
}

TEST(RigTest, RejectsTwoBoneSolverOnTwoJointChain) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tip = "elbow";
  def.chains[0].solver = SolverKind::kTwoBone;
  ExpectInvalid(std::move(def),
                "chains[0].solver: the two-bone solver needs exactly 3 joints; "
                "the chain has 2");
}

TEST(RigTest, RejectsTwoBoneSolverOnFourJointChain) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tip = "hand";
  def.chains[0].solver = SolverKind::kTwoBone;
  ExpectInvalid(std::move(def),
                "chains[0].solver: the two-bone solver needs "
                "exactly 3 joints; the chain has 4");
}

TEST(RigTest, AcceptsAutoSolverOnFourJointChain) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tip = "hand";
  EXPECT_TRUE(Rig::Create(std::move(def)).ok());
}

TEST(RigTest, RejectsUnknownSolver) {
  RigDefinition def = ArmDefinition();
  def.chains[0].solver = static_cast<SolverKind>(42);
  ExpectInvalid(std::move(def), "chains[0].solver: unknown solver 42");
}

TEST(RigTest, RejectsZeroIterationCap) {
  RigDefinition def = ArmDefinition();
  def.chains[0].max_iterations = 0;
  ExpectInvalid(std::move(def),
                "chains[0].max_iterations: must be at least 1, got 0");
}

TEST(RigTest, RejectsNegativeTolerance) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tolerance = -1e-3;
  ExpectInvalid(std::move(def),
                "chains[0].tolerance: must be finite and >= 0, got -0.001");
}

TEST(RigTest, RejectsNanTolerance) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tolerance = kNan;
  ExpectInvalid(std::move(def), "chains[0].tolerance");
}

TEST(RigTest, AcceptsZeroTolerance) {
  RigDefinition def = ArmDefinition();
  def.chains[0].tolerance = 0.0;
  EXPECT_TRUE(Rig::Create(std::move(def)).ok());
}

}  // namespace
}  // namespace ik
