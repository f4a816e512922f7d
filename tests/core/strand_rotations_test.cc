// The strand's rotations in SIMD lanes (UpdateStrandShortestArcs: blocks of
// four joints in AVX where the processor has it, then pairs, then single
// joints) against the general stages of dynamic_rotations.cc, one joint at
// a time, on the same strand: seeded strands of every length, bent
// simulated positions, animated bones of zero length, simulated bones
// turned back on themselves, animated rotations off unit length, with and
// without each output. Deltas, rotations and corrections must agree bit for
// bit.
#include <cstring>
#include <random>
#include <vector>

#include "draws.h"
#include "dynamics/dynamics_internal.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/dynamics/dynamic_chain.h"

namespace ik {
namespace {

bool SameBits(const std::vector<Quat>& a, const std::vector<Quat>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(Quat)) == 0;
}

struct Counts {
  int zero_bones = 0;
  int turned_back = 0;
  int off_unit = 0;
};

// One seeded strand compared; what it drew into `counts`.
void CompareStrand(std::mt19937_64& engine, Counts& counts) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> bend(-0.5, 0.5);
  const int count = std::uniform_int_distribution<int>(2, 40)(engine);
  DynamicChain chain;
  chain.joints.resize(static_cast<size_t>(count));
  for (int i = 1; i < count; ++i) {
    chain.joints[i].parent = i - 1;
    chain.joints[i].length = 0.05;
  }
  dynamics_internal::PreparedJoint joints[kMaxDynamicJoints];
  dynamics_internal::ChainView view;
  dynamics_internal::PrepareJoints(chain, joints, &view);
  ASSERT_TRUE(view.strand && view.shortest_arc);

  std::vector<Transform> animated(static_cast<size_t>(count));
  std::vector<Vec3> positions(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    animated[i].rotation = glm::normalize(testing::DrawQuat(normal, engine));
    if (unit(engine) < 0.05) {
      animated[i].rotation = animated[i].rotation * (1.0 + 1e-6);
      ++counts.off_unit;
    }
    if (i == 0) continue;
    const Vec3 step =
        Vec3(0.0, -0.05, 0.0) + 0.05 * testing::DrawVec3(bend, engine);
    const bool zero = unit(engine) < 0.03;
    counts.zero_bones += zero;
    animated[i].translation =
        animated[i - 1].translation + (zero ? Vec3(0.0) : step);
    const Vec3 moved = 0.05 * testing::DrawVec3(bend, engine);
    const bool back = !zero && unit(engine) < 0.03;
    counts.turned_back += back;
    positions[i] = positions[i - 1] + (back ? -step : step + moved);
  }
  std::vector<Quat> stored(static_cast<size_t>(count));
  for (Quat& q : stored) q = glm::normalize(testing::DrawQuat(normal, engine));
  const bool rotations_wanted = unit(engine) < 0.8;
  const bool corrections_wanted = unit(engine) < 0.8;

  std::vector<Quat> lanes_deltas = stored;
  std::vector<Quat> lanes_rotations(static_cast<size_t>(count),
                                    Quat(0, 0, 0, 0));
  std::vector<Quat> lanes_corrections = lanes_rotations;
  dynamics_internal::UpdateStrandShortestArcs(
      count, animated.data(), positions.data(), lanes_deltas.data(),
      rotations_wanted ? lanes_rotations.data() : nullptr,
      corrections_wanted ? lanes_corrections.data() : nullptr);

  // The general stages: the same chain, not taken as a strand.
  dynamics_internal::ChainView general = view;
  general.strand = false;
  std::vector<Quat> deltas = stored;
  std::vector<Quat> rotations(static_cast<size_t>(count), Quat(0, 0, 0, 0));
  std::vector<Quat> corrections = rotations;
  dynamics_internal::UpdateRotations(
      general, animated.data(), positions.data(), 1, deltas.data(),
      rotations_wanted ? rotations.data() : nullptr,
      corrections_wanted ? corrections.data() : nullptr);

  EXPECT_TRUE(SameBits(deltas, lanes_deltas)) << count << " joints";
  EXPECT_TRUE(SameBits(rotations, lanes_rotations)) << count << " joints";
  EXPECT_TRUE(SameBits(corrections, lanes_corrections)) << count << " joints";
}

TEST(StrandRotationsTest, LanesGiveTheGeneralStagesBits) {
  std::mt19937_64 engine(0x57a4d);
  Counts counts;
  for (int c = 0; c < 2000; ++c) CompareStrand(engine, counts);
  // Every careful path was drawn, many times over.
  EXPECT_GT(counts.zero_bones, 500);
  EXPECT_GT(counts.turned_back, 500);
  EXPECT_GT(counts.off_unit, 500);
}

}  // namespace
}  // namespace ik
