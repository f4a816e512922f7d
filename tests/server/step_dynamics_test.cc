// StepDynamics through a real channel: the example humanoid's ponytail
// swinging down onto its colliders, frame-rate independence, determinism,
// resets, and every error path of the request and of the rig's parts.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/rig_json.h"
#include "packed_state.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::Vec;
using ::testing::HasSubstr;

struct Point {
  double x = 0.0, y = 0.0, z = 0.0;
};

Point Sub(const Point& a, const Point& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
double Dot(const Point& a, const Point& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
double Length(const Point& a) { return std::sqrt(Dot(a, a)); }
Point FromProto(const v1::Vec3& v) { return {v.x(), v.y(), v.z()}; }

// Distance from `p` to the segment a..b.
double SegmentDistance(const Point& p, const Point& a, const Point& b) {
  const Point ab = Sub(b, a);
  const double length_squared = Dot(ab, ab);
  double t = length_squared > 0.0 ? Dot(Sub(p, a), ab) / length_squared : 0.0;
  t = std::fmin(1.0, std::fmax(0.0, t));
  return Length(Sub(p, {a.x + t * ab.x, a.y + t * ab.y, a.z + t * ab.z}));
}

class StepDynamicsTest : public IkServiceTest {
 protected:
  void SetUp() override {
    IkServiceTest::SetUp();
    absl::StatusOr<v1::Rig> rig =
        ReadRigFile(std::string(IK_EXAMPLES_DIR) + "/rigs/humanoid.json");
    ASSERT_TRUE(rig.ok()) << rig.status();
    humanoid_ = *rig;
    v1::RegisterRigResponse response;
    grpc::Status status = Register(humanoid_, false, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    revision_ = response.revision();
  }

  grpc::Status Step(const v1::StepDynamicsRequest& request,
                    v1::StepDynamicsResponse* response) {
    return stub_->StepDynamics(Context().get(), request, response);
  }

  // Steps the ponytail from rest for `seconds` at `rate` Hz, the character
  // standing at the origin; returns the last answer.
  v1::StepDynamicsResponse Run(double seconds, int rate) {
    v1::StepDynamicsRequest request;
    request.set_rig("humanoid");
    request.set_delta_time(1.0 / rate);
    v1::StepDynamicsResponse response;
    const int steps = static_cast<int>(std::lround(seconds * rate));
    for (int i = 0; i < steps; ++i) {
      grpc::Status status = Step(request, &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      request.clear_states();
      *request.add_states() = response.results(0).state();
    }
    return response;
  }

  // Model position of joint `name` in the humanoid's rest pose: the sum of
  // rest translations up the parents (the head's ancestors have no rest
  // rotation, which the test checks).
  Point RestPosition(const std::string& name) const {
    for (const v1::Joint& joint : humanoid_.joints()) {
      if (joint.name() != name) continue;
      EXPECT_FALSE(joint.rest().has_rotation()) << name;
      Point own = FromProto(joint.rest().translation());
      if (joint.parent().empty()) return own;
      const Point parent = RestPosition(joint.parent());
      return {parent.x + own.x, parent.y + own.y, parent.z + own.z};
    }
    ADD_FAILURE() << "no joint " << name;
    return {};
  }

  v1::Rig humanoid_;
  std::string revision_;
};

TEST_F(StepDynamicsTest, PonytailFallsOntoTheCollidersAndSettles) {
  const v1::StepDynamicsResponse answer = Run(3.0, 60);
  ASSERT_EQ(answer.results_size(), 1);
  const v1::DynamicChainResult& result = answer.results(0);
  EXPECT_EQ(result.chain(), "ponytail");
  ASSERT_EQ(result.joints_size(), 7);
  EXPECT_EQ(result.joints(0), "ponytail_00");
  // Every joint with a child turns; the tip does not.
  EXPECT_EQ(result.rotations_size(), 6);
  EXPECT_EQ(result.reset(), v1::DYNAMICS_RESET_NONE);
  EXPECT_EQ(result.state().revision(), revision_);

  const v1::DynamicChainState& state = result.state();
  ASSERT_EQ(state.positions_size(), 7);
  const Point root = FromProto(state.positions(0));
  const Point tip = FromProto(state.positions(6));
  // Rest: straight back from the head at the root's height; now hanging.
  EXPECT_LT(tip.y, root.y - 0.3);
  for (int i = 1; i < 7; ++i) {
    const double length = Length(
        Sub(FromProto(state.positions(i)), FromProto(state.positions(i - 1))));
    EXPECT_NEAR(length, 0.07, 0.07 * 1e-5) << "bone " << i;
    // Settled: moved less than 0.1 mm in the last substep.
    EXPECT_LT(Length(Sub(FromProto(state.positions(i)),
                         FromProto(state.previous_positions(i)))),
              1e-4)
        << "joint " << i;
  }
  // Outside every collider (placed independently from the rest pose).
  const Point head = RestPosition("head");
  const Point neck = RestPosition("neck");
  const Point chest = RestPosition("chest");
  auto at = [](const Point& joint, double x, double y, double z) {
    return Point{joint.x + x, joint.y + y, joint.z + z};
  };
  struct Capsule {
    Point a, b;
    double radius;
  };
  const Capsule colliders[] = {
      {at(head, 0, 0.1, 0), at(head, 0, 0.1, 0), 0.1},
      {neck, at(neck, 0, 0.1, 0), 0.06},
      {at(chest, -0.18, 0.17, -0.02), at(chest, 0.18, 0.17, -0.02), 0.08},
      {at(chest, 0, -0.05, -0.02), at(chest, 0, 0.15, -0.02), 0.11}};
  bool touching = false;
  for (int i = 1; i < 7; ++i) {
    const double radius = i == 6 ? 0.03 : 0.02;
    for (const Capsule& c : colliders) {
      const double distance =
          SegmentDistance(FromProto(state.positions(i)), c.a, c.b);
      EXPECT_GE(distance, c.radius + radius - 1e-4) << "joint " << i;
      touching |= distance < c.radius + radius + 1e-3;
    }
  }
  EXPECT_TRUE(touching) << "the ponytail should rest against a collider";
}

TEST_F(StepDynamicsTest, ThirtyAndOneHundredTwentyHertzAgree) {
  const v1::DynamicChainState slow = Run(1.0, 30).results(0).state();
  const v1::DynamicChainState fast = Run(1.0, 120).results(0).state();
  const double gap =
      Length(Sub(FromProto(slow.positions(6)), FromProto(fast.positions(6))));
  EXPECT_LT(gap, 0.01);
}

TEST_F(StepDynamicsTest, IdenticalRequestsGiveIdenticalBits) {
  v1::StepDynamicsRequest request;
  request.set_rig("humanoid");
  request.set_delta_time(0.05);
  request.mutable_wind()->set_strength(5.0);
  request.mutable_wind()->set_turbulence(0.8);
  request.mutable_wind()->set_seed(42);
  *request.mutable_pose()->mutable_root()->mutable_translation() =
      Vec(0.3, 0.0, 0.1);
  v1::StepDynamicsResponse first, second;
  ASSERT_TRUE(Step(request, &first).ok());
  *request.add_states() = first.results(0).state();
  ASSERT_TRUE(Step(request, &first).ok());
  ASSERT_TRUE(Step(request, &second).ok());
  EXPECT_EQ(first.SerializeAsString(), second.SerializeAsString());
  request.mutable_wind()->set_seed(43);
  ASSERT_TRUE(Step(request, &second).ok());
  EXPECT_NE(first.results(0).state().SerializeAsString(),
            second.results(0).state().SerializeAsString());
}

// The packed state is the same state: stepping from it gives the same bits
// as stepping from its three repeated fields, over several steps with wind.
TEST_F(StepDynamicsTest, APackedStateStepsToTheSameBits) {
  v1::StepDynamicsRequest request;
  request.set_rig("humanoid");
  request.set_delta_time(0.03);
  request.mutable_wind()->set_strength(4.0);
  request.mutable_wind()->set_seed(7);
  v1::StepDynamicsResponse plain;
  ASSERT_TRUE(Step(request, &plain).ok());
  for (int step = 0; step < 5; ++step) {
    *request.mutable_pose()->mutable_root()->mutable_translation() =
        Vec(0.02 * step, 0.0, 0.01 * step);
    v1::StepDynamicsRequest packed_request = request;
    request.clear_states();
    *request.add_states() = plain.results(0).state();
    packed_request.clear_states();
    *packed_request.add_states() =
        ik::testing::Packed(plain.results(0).state());
    v1::StepDynamicsResponse packed;
    ASSERT_TRUE(Step(request, &plain).ok());
    grpc::Status status = Step(packed_request, &packed);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(plain.SerializeAsString(), packed.SerializeAsString())
        << "step " << step;
  }
}

TEST_F(StepDynamicsTest, ReportsWhyAChainStartedFromRest) {
  v1::StepDynamicsRequest request;
  request.set_rig("humanoid");
  request.set_delta_time(1.0 / 60);
  v1::StepDynamicsResponse response;
  ASSERT_TRUE(Step(request, &response).ok());
  EXPECT_EQ(response.results(0).reset(), v1::DYNAMICS_RESET_EMPTY_STATE);
  *request.add_states() = response.results(0).state();
  request.set_reset(true);
  ASSERT_TRUE(Step(request, &response).ok());
  EXPECT_EQ(response.results(0).reset(), v1::DYNAMICS_RESET_REQUESTED);
  request.set_reset(false);
  request.clear_states();
  *request.add_states() = response.results(0).state();
  *request.mutable_pose()->mutable_root()->mutable_translation() =
      Vec(5.0, 0.0, 0.0);
  ASSERT_TRUE(Step(request, &response).ok());
  EXPECT_EQ(response.results(0).reset(), v1::DYNAMICS_RESET_TELEPORT);
  // A huge step is clamped to the substep cap, and says so. Without a
  // state it starts from rest whatever the steps before it left.
  request.clear_states();
  request.set_delta_time(10.0);
  ASSERT_TRUE(Step(request, &response).ok());
  EXPECT_EQ(response.results(0).reset(), v1::DYNAMICS_RESET_EMPTY_STATE);
  EXPECT_TRUE(response.results(0).clamped());
  EXPECT_EQ(response.results(0).substeps(), 16);
}

using BadStep = BadRequest<v1::StepDynamicsRequest>;

class StepDynamicsErrorTest : public StepDynamicsTest,
                              public ::testing::WithParamInterface<BadStep> {};

TEST_P(StepDynamicsErrorTest, IsRejectedWithTheFieldPath) {
  v1::StepDynamicsRequest request;
  request.set_rig("humanoid");
  request.set_delta_time(1.0 / 60);
  v1::StepDynamicsResponse first;
  ASSERT_TRUE(Step(request, &first).ok());
  *request.add_states() = first.results(0).state();
  GetParam().mutate(request);
  v1::StepDynamicsResponse response;
  grpc::Status status = Step(request, &response);
  EXPECT_EQ(status.error_code(), GetParam().code) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    All, StepDynamicsErrorTest,
    ::testing::Values(
        BadStep{"NoRig", [](auto& r) { r.clear_rig(); },
                grpc::StatusCode::INVALID_ARGUMENT, "rig: required"},
        BadStep{"UnknownRig", [](auto& r) { r.set_rig("nobody"); },
                grpc::StatusCode::NOT_FOUND, "nobody"},
        BadStep{"WrongRevision", [](auto& r) { r.set_revision("sha256:0"); },
                grpc::StatusCode::FAILED_PRECONDITION, "sha256:0"},
        BadStep{"NegativeTime", [](auto& r) { r.set_delta_time(-1); },
                grpc::StatusCode::INVALID_ARGUMENT, "delta_time:"},
        BadStep{"InfiniteTime", [](auto& r) { r.set_delta_time(INFINITY); },
                grpc::StatusCode::INVALID_ARGUMENT, "delta_time:"},
        BadStep{"UnknownChain", [](auto& r) { r.add_chains("braid"); },
                grpc::StatusCode::NOT_FOUND, "chains[0]: rig 'humanoid'"},
        BadStep{"ChainTwice",
                [](auto& r) {
                  r.add_chains("ponytail");
                  r.add_chains("ponytail");
                },
                grpc::StatusCode::INVALID_ARGUMENT, "chains[1]:"},
        BadStep{"StateForAnotherChain",
                [](auto& r) { r.mutable_states(0)->set_chain("braid"); },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].chain:"},
        BadStep{"TwoStates", [](auto& r) { *r.add_states() = r.states(0); },
                grpc::StatusCode::INVALID_ARGUMENT, "states[1].chain:"},
        BadStep{"StaleRevision",
                [](auto& r) { r.mutable_states(0)->set_revision("sha256:1"); },
                grpc::StatusCode::FAILED_PRECONDITION, "states[0].revision:"},
        BadStep{"ShortState",
                [](auto& r) {
                  r.mutable_states(0)->mutable_positions()->RemoveLast();
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].positions:"},
        BadStep{"NonFiniteState",
                [](auto& r) {
                  r.mutable_states(0)->mutable_positions(2)->set_y(NAN);
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].positions[2]"},
        BadStep{"ZeroRotationInState",
                [](auto& r) {
                  *r.mutable_states(0)->mutable_rotations(1) = v1::Quat();
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].rotations[1]"},
        BadStep{"PackedAndVectors",
                [](auto& r) {
                  const v1::DynamicChainState plain = r.states(0);
                  *r.mutable_states(0) = ik::testing::Packed(plain);
                  *r.mutable_states(0)->add_positions() = plain.positions(0);
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].packed: give"},
        BadStep{"PackedNotByTen",
                [](auto& r) {
                  *r.mutable_states(0) = ik::testing::Packed(r.states(0));
                  r.mutable_states(0)->mutable_packed()->RemoveLast();
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].packed: 69"},
        BadStep{"PackedShort",
                [](auto& r) {
                  *r.mutable_states(0) = ik::testing::Packed(r.states(0));
                  r.mutable_states(0)->mutable_packed()->Truncate(60);
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].packed: 6"},
        BadStep{"PackedNonFinitePrevious",
                [](auto& r) {
                  *r.mutable_states(0) = ik::testing::Packed(r.states(0));
                  r.mutable_states(0)->set_packed(14, NAN);
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].packed[13]:"},
        BadStep{"PackedZeroRotation",
                [](auto& r) {
                  *r.mutable_states(0) = ik::testing::Packed(r.states(0));
                  for (int i = 16; i < 20; ++i) {
                    r.mutable_states(0)->set_packed(i, 0.0);
                  }
                },
                grpc::StatusCode::INVALID_ARGUMENT, "states[0].packed[16]:"},
        BadStep{"NegativeRemainder",
                [](auto& r) { r.mutable_states(0)->set_time_remainder(-1); },
                grpc::StatusCode::INVALID_ARGUMENT,
                "states[0].time_remainder:"},
        BadStep{"BadWind", [](auto& r) { r.mutable_wind()->set_strength(-2); },
                grpc::StatusCode::INVALID_ARGUMENT, "wind.strength:"},
        BadStep{
            "BadPose",
            [](auto& r) {
              r.mutable_pose()->mutable_root()->mutable_translation()->set_x(
                  NAN);
            },
            grpc::StatusCode::INVALID_ARGUMENT, "pose.root.translation"}),
    BadRequestName());

TEST_F(StepDynamicsTest, ARigWithoutDynamicChainsIsAPreconditionFailure) {
  RegisterArm();
  v1::StepDynamicsRequest request;
  request.set_rig("arm");
  v1::StepDynamicsResponse response;
  grpc::Status status = Step(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("no dynamic chains"));
}

using BadPart = BadRequest<v1::Rig>;

class RigPartsErrorTest : public StepDynamicsTest,
                          public ::testing::WithParamInterface<BadPart> {};

TEST_P(RigPartsErrorTest, RegistrationFailsWithTheFieldPath) {
  v1::Rig rig = humanoid_;
  rig.set_name("broken");
  GetParam().mutate(rig);
  v1::RegisterRigResponse response;
  grpc::Status status = Register(rig, false, &response);
  EXPECT_EQ(status.error_code(), GetParam().code) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(GetParam().message));
  // Nothing half-registered.
  v1::GetRigRequest get;
  get.set_name("broken");
  v1::GetRigResponse got;
  EXPECT_EQ(stub_->GetRig(Context().get(), get, &got).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

INSTANTIATE_TEST_SUITE_P(
    All, RigPartsErrorTest,
    ::testing::Values(
        BadPart{"ColliderOnUnknownJoint",
                [](v1::Rig& r) { r.mutable_colliders(0)->set_joint("hat"); },
                grpc::StatusCode::NOT_FOUND, "rig.colliders[0].joint"},
        BadPart{"ColliderWithoutShape",
                [](v1::Rig& r) { r.mutable_colliders(1)->clear_shape(); },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.colliders[1].sphere: set sphere or capsule"},
        BadPart{"NegativeColliderRadius",
                [](v1::Rig& r) {
                  r.mutable_colliders(0)->mutable_sphere()->set_radius(-1);
                },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.colliders[0].sphere.radius"},
        BadPart{"DuplicateCollider",
                [](v1::Rig& r) {
                  r.mutable_colliders(1)->set_name(r.colliders(0).name());
                },
                grpc::StatusCode::INVALID_ARGUMENT, "rig.colliders[1].name"},
        BadPart{"UnknownDynamicRoot",
                [](v1::Rig& r) { r.mutable_dynamic_chains(0)->set_root("x"); },
                grpc::StatusCode::NOT_FOUND, "rig.dynamic_chains[0].root"},
        BadPart{"DynamicRootWithoutChildren",
                [](v1::Rig& r) {
                  r.mutable_dynamic_chains(0)->set_root("ponytail_06");
                },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.dynamic_chains[0].root"},
        BadPart{"DragOutOfRange",
                [](v1::Rig& r) { r.mutable_dynamic_chains(0)->set_drag(2); },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.dynamic_chains[0].drag"},
        BadPart{"OverrideOutsideTheChain",
                [](v1::Rig& r) {
                  r.mutable_dynamic_chains(0)->mutable_joints(0)->set_joint(
                      "head");
                },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.dynamic_chains[0].joints[0].joint"},
        BadPart{"OverrideOutOfRange",
                [](v1::Rig& r) {
                  r.mutable_dynamic_chains(0)->mutable_joints(0)->set_stiffness(
                      -0.5);
                },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.dynamic_chains[0].joints[0].stiffness"},
        BadPart{"UnknownCollider",
                [](v1::Rig& r) {
                  r.mutable_dynamic_chains(0)->add_colliders("hat");
                },
                grpc::StatusCode::NOT_FOUND,
                "rig.dynamic_chains[0].colliders[4]"},
        BadPart{"ColliderTwice",
                [](v1::Rig& r) {
                  r.mutable_dynamic_chains(0)->add_colliders("head");
                },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.dynamic_chains[0].colliders[4]"},
        BadPart{"LegNotAPath",
                [](v1::Rig& r) { r.mutable_legs(0)->set_knee("right_knee"); },
                grpc::StatusCode::INVALID_ARGUMENT, "rig.legs[0].knee"},
        BadPart{"LegUnknownToe",
                [](v1::Rig& r) { r.mutable_legs(1)->set_toe("hoof"); },
                grpc::StatusCode::NOT_FOUND, "rig.legs[1].toe"},
        BadPart{"LegToeNotBelowAnkle",
                [](v1::Rig& r) { r.mutable_legs(1)->set_toe("left_toe"); },
                grpc::StatusCode::INVALID_ARGUMENT, "rig.legs[1].toe"},
        BadPart{"LegTiltOutOfRange",
                [](v1::Rig& r) { r.mutable_legs(0)->set_max_foot_tilt(2.0); },
                grpc::StatusCode::INVALID_ARGUMENT,
                "rig.legs[0].max_foot_tilt"},
        BadPart{"ZeroForward",
                [](v1::Rig& r) { *r.mutable_forward() = Vec(0, 0, 0); },
                grpc::StatusCode::INVALID_ARGUMENT, "rig.forward"}),
    BadRequestName());

}  // namespace
}  // namespace ik::server
