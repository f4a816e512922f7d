#include "ik/dynamics/dynamic_chain.h"

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "dynamics_fixtures.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

using testing::StraightChain;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(DynamicChainTest, AcceptsChainsAndTrees) {
  DynamicChain chain = StraightChain(6, 0.1, 0.02);
  EXPECT_TRUE(chain.Validate().ok());
  // Branches: two strands from joint 1.
  DynamicJoint strand;
  strand.parent = 1;
  strand.length = 0.05;
  chain.joints.push_back(strand);
  strand.parent = 6;
  chain.joints.push_back(strand);
  chain.joints[3].overrides.drag = 0.5;
  chain.joints[3].overrides.gravity = Vec3(0.0, -1.0, 0.0);
  chain.joints[3].overrides.stiffness = 0.1;
  chain.joints[3].overrides.rotation_blend = 0.5;
  chain.joints[3].overrides.remove_twist = false;
  chain.joints[3].overrides.wind_scale = 2.0;
  chain.teleport_distance = kInf;  // disables teleport detection
  EXPECT_TRUE(chain.Validate().ok());
}

struct InvalidCase {
  const char* name;
  std::function<void(DynamicChain&)> spoil;
  absl::StatusCode code;
  const char* message_prefix;
};

TEST(DynamicChainTest, RejectsEachBadFieldWithItsPath) {
  const absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
  const std::vector<InvalidCase> cases = {
      {"too many joints",
       [](DynamicChain& c) { c = StraightChain(kMaxDynamicJoints + 1, 0.1); },
       absl::StatusCode::kResourceExhausted, "joints: 257 joints"},
      {"root alone", [](DynamicChain& c) { c.joints.resize(1); }, kInvalid,
       "joints: a dynamic chain needs"},
      {"root with a parent", [](DynamicChain& c) { c.joints[0].parent = 0; },
       kInvalid, "joints[0].parent: "},
      {"second root", [](DynamicChain& c) { c.joints[2].parent = -1; },
       kInvalid, "joints[2].parent: -1 does not refer"},
      {"self parent", [](DynamicChain& c) { c.joints[2].parent = 2; }, kInvalid,
       "joints[2].parent: 2 does not refer"},
      {"later parent", [](DynamicChain& c) { c.joints[1].parent = 3; },
       kInvalid, "joints[1].parent: 3"},
      {"zero length", [](DynamicChain& c) { c.joints[2].length = 0.0; },
       kInvalid, "joints[2].length: must be within"},
      {"NaN length", [](DynamicChain& c) { c.joints[2].length = kNan; },
       kInvalid, "joints[2].length: "},
      {"huge length", [](DynamicChain& c) { c.joints[2].length = 1e6; },
       kInvalid, "joints[2].length: "},
      {"negative radius", [](DynamicChain& c) { c.joints[3].radius = -0.1; },
       kInvalid, "joints[3].radius: must be within"},
      {"infinite radius", [](DynamicChain& c) { c.joints[3].radius = kInf; },
       kInvalid, "joints[3].radius: "},
      {"override drag",
       [](DynamicChain& c) { c.joints[1].overrides.drag = 1.5; }, kInvalid,
       "joints[1].overrides.drag: must be within [0, 1]"},
      {"override gravity NaN",
       [](DynamicChain& c) {
         c.joints[1].overrides.gravity = Vec3(0.0, kNan, 0.0);
       },
       kInvalid, "joints[1].overrides.gravity: not finite"},
      {"override gravity huge",
       [](DynamicChain& c) {
         c.joints[1].overrides.gravity = Vec3(0.0, -1e5, 0.0);
       },
       kInvalid, "joints[1].overrides.gravity: each component"},
      {"override stiffness",
       [](DynamicChain& c) { c.joints[2].overrides.stiffness = -0.1; },
       kInvalid, "joints[2].overrides.stiffness: "},
      {"override rotation blend",
       [](DynamicChain& c) { c.joints[0].overrides.rotation_blend = kNan; },
       kInvalid, "joints[0].overrides.rotation_blend: "},
      {"override wind scale",
       [](DynamicChain& c) { c.joints[3].overrides.wind_scale = -1.0; },
       kInvalid, "joints[3].overrides.wind_scale: "},
      {"drag", [](DynamicChain& c) { c.drag = -0.01; }, kInvalid,
       "drag: must be within [0, 1]"},
      {"gravity", [](DynamicChain& c) { c.gravity = Vec3(kInf, 0.0, 0.0); },
       kInvalid, "gravity: not finite"},
      {"stiffness", [](DynamicChain& c) { c.stiffness = 2.0; }, kInvalid,
       "stiffness: "},
      {"rotation blend", [](DynamicChain& c) { c.rotation_blend = 1.01; },
       kInvalid, "rotation_blend: "},
      {"wind strength", [](DynamicChain& c) { c.wind.strength = -1.0; },
       kInvalid, "wind.strength: "},
      {"wind direction",
       [](DynamicChain& c) {
         c.wind.strength = 1.0;
         c.wind.direction = Vec3(0.0);
       },
       kInvalid, "wind.direction: zero length"},
      {"wind gust frequency",
       [](DynamicChain& c) { c.wind.gust_frequency = 0.0; }, kInvalid,
       "wind.gust_frequency: "},
      {"substep too short", [](DynamicChain& c) { c.substep = 1e-6; }, kInvalid,
       "substep: must be within"},
      {"substep NaN", [](DynamicChain& c) { c.substep = kNan; }, kInvalid,
       "substep: "},
      {"max substeps zero", [](DynamicChain& c) { c.max_substeps = 0; },
       kInvalid, "max_substeps: must be within [1, 1024]"},
      {"max substeps huge", [](DynamicChain& c) { c.max_substeps = 5000; },
       kInvalid, "max_substeps: "},
      {"teleport zero", [](DynamicChain& c) { c.teleport_distance = 0.0; },
       kInvalid, "teleport_distance: must be > 0"},
      {"teleport NaN", [](DynamicChain& c) { c.teleport_distance = kNan; },
       kInvalid, "teleport_distance: "},
  };
  for (const InvalidCase& c : cases) {
    DynamicChain chain = StraightChain(5, 0.1, 0.01);
    c.spoil(chain);
    const absl::Status status = chain.Validate();
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status;
    EXPECT_TRUE(absl::StartsWith(status.message(), c.message_prefix))
        << c.name << ": " << status.message();
  }
}

TEST(DynamicChainTest, IgnoresTheRootsLengthAndRadius) {
  DynamicChain chain = StraightChain(3, 0.1);
  chain.joints[0].length = -5.0;
  chain.joints[0].radius = kNan;
  EXPECT_TRUE(chain.Validate().ok());
}

}  // namespace
}  // namespace ik
