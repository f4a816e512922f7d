// The follow-the-leader velocity correction (DynamicChain::follow_the_leader,
// Mueller et al. 2012) on long, low-drag chains shaken at the root: without
// it the length constraint feeds energy up the chain and the joints whip up
// above the root; with it they do not, and the bones keep their lengths.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "dynamics_fixtures.h"
#include "gtest/gtest.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/dynamics.h"
#include "independent_checks.h"

namespace ik {
namespace {

struct Shake {
  double amplitude;  // metres
  double frequency;  // Hz
  Vec3 direction;    // horizontal, unit
};

// The highest any joint rises above the root over 4 s of shaking at 60 Hz,
// and the worst relative bone-length error.
struct WhipFigures {
  double highest_above_root = -1e9;
  double length_error = 0.0;
};

WhipFigures ShakeChain(const Shake& shake, double follow_the_leader) {
  DynamicChain chain = testing::StraightChain(24, 0.04);
  chain.drag = 0.01;
  chain.follow_the_leader = follow_the_leader;
  testing::Simulation simulation(
      chain,
      testing::StraightPose(chain, Vec3(0.0, 2.0, 0.0), Vec3(0.0, -1.0, 0.0)));
  WhipFigures figures;
  const double dt = 1.0 / 60.0;
  for (int frame = 0; frame < 240; ++frame) {
    const double time = frame * dt;
    simulation.MoveTo(
        Vec3(0.0, 2.0, 0.0) +
        shake.direction *
            (shake.amplitude * std::sin(2.0 * kPi * shake.frequency * time)));
    EXPECT_TRUE(simulation.Step(dt).ok());
    const std::vector<Vec3>& positions = simulation.positions();
    for (size_t i = 1; i < positions.size(); ++i) {
      figures.highest_above_root =
          std::max(figures.highest_above_root, positions[i].y - positions[0].y);
    }
    figures.length_error =
        std::max(figures.length_error, simulation.MaxRelativeLengthError());
  }
  return figures;
}

// A joint more than this above the root (2.5 bones) has whipped up.
constexpr double kWhip = 0.1;

// Shakes of a character's size: 5-20 cm at 0.5-2 Hz, in any horizontal
// direction, seeded.
TEST(DynamicsWhipTest, FollowTheLeaderKeepsAShakenChainFromWhipping) {
  std::mt19937_64 engine(testing::kSeed + 7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int whipped_off = 0;
  int whipped_on = 0;
  double highest_off = -1e9;
  double highest_on = -1e9;
  constexpr int kShakes = 20;
  for (int s = 0; s < kShakes; ++s) {
    const double heading = 2.0 * kPi * unit(engine);
    const Shake shake{0.05 + 0.15 * unit(engine), 0.5 + 1.5 * unit(engine),
                      Vec3(std::cos(heading), 0.0, std::sin(heading))};
    const WhipFigures off = ShakeChain(shake, 0.0);
    const WhipFigures on = ShakeChain(shake, 0.9);
    whipped_off += off.highest_above_root > kWhip ? 1 : 0;
    whipped_on += on.highest_above_root > kWhip ? 1 : 0;
    highest_off = std::max(highest_off, off.highest_above_root);
    highest_on = std::max(highest_on, on.highest_above_root);
    EXPECT_LE(on.length_error, 1e-9) << "shake " << s;
    EXPECT_LE(off.length_error, 1e-9) << "shake " << s;
  }
  std::printf(
      "[ property ] %d shaken 24-joint chains, drag 0.01: whipped more "
      "than %.2f m above the root in %d without follow-the-leader (highest "
      "%.3f m), %d with 0.9 (highest %.3f m)\n",
      kShakes, kWhip, whipped_off, highest_off, whipped_on, highest_on);
  // The shakes make the plain chain whip (the test can fail), and the
  // correction stops it.
  EXPECT_GE(whipped_off, kShakes / 2);
  EXPECT_EQ(whipped_on, 0);
}

TEST(DynamicsWhipTest, RejectsAFollowTheLeaderOutsideTheUnitInterval) {
  DynamicChain chain = testing::StraightChain(3, 0.1);
  chain.follow_the_leader = 1.5;
  const absl::Status status = chain.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().substr(0, 19), "follow_the_leader: ") << status;
  chain.follow_the_leader = std::nan("");
  EXPECT_FALSE(chain.Validate().ok());
}

}  // namespace
}  // namespace ik
