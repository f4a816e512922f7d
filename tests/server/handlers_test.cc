// IkHandlers without the network: seeded random requests (well-formed and
// not) never crash the service, never leave a half-registered rig, and every
// accepted answer is finite.
#include "handlers/handlers.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::Rotation;
using ::ik::testing::Vec;

// Draws request values from a pool that mixes sane numbers with the ones
// that break naive code (NaN, infinities, huge and tiny magnitudes).
class RandomInput {
 public:
  explicit RandomInput(uint64_t seed) : rng_(seed) {}

  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  bool Coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  double Number() {
    static constexpr double kSpecial[] = {
        0.0,
        1.0,
        -1.0,
        0.3,
        1e-300,
        -1e308,
        std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::denorm_min()};
    if (Coin(0.2)) return kSpecial[Int(0, 9)];
    return std::uniform_real_distribution<double>(-2.0, 2.0)(rng_);
  }

  std::string Name() {
    static const char* kNames[] = {"",      "arm",   "shoulder", "elbow",
                                   "wrist", "x",     "tentacle", "hip",
                                   "knee",  "ankle", "root",     "leg"};
    return kNames[Int(0, 11)];
  }

  void Fill(v1::Vec3& v) {
    v.set_x(Number());
    v.set_y(Number());
    v.set_z(Number());
  }

  void Fill(v1::Quat& q) {
    if (Coin(0.5)) {
      // A proper unit quaternion, sometimes slightly off unit length.
      double x = Number(), y = Number(), z = Number(), w = Number();
      const double norm = std::sqrt(x * x + y * y + z * z + w * w);
      if (std::isfinite(norm) && norm > 1e-6) {
        const double scale = (Coin(0.8) ? 1.0 : 1.0005) / norm;
        x *= scale, y *= scale, z *= scale, w *= scale;
      }
      q.set_x(x), q.set_y(y), q.set_z(z), q.set_w(w);
      return;
    }
    q.set_x(Number()), q.set_y(Number()), q.set_z(Number()), q.set_w(Number());
  }

  void Fill(v1::Transform& t) {
    if (Coin()) Fill(*t.mutable_translation());
    if (Coin()) Fill(*t.mutable_rotation());
    if (Coin(0.2)) Fill(*t.mutable_scale());
  }

  v1::Rig Rig() {
    v1::Rig rig;
    rig.set_name(Coin(0.9) ? "random" : Name());
    const int joints = Int(0, 6);
    for (int i = 0; i < joints; ++i) {
      v1::Joint* joint = rig.add_joints();
      joint->set_name(Coin(0.8) ? "j" + std::to_string(i) : Name());
      if (i > 0 && Coin(0.9)) {
        if (Coin()) {
          joint->set_parent_index(Coin(0.9) ? i - 1 : Int(-2, 8));
        } else {
          joint->set_parent(Coin(0.9) ? "j" + std::to_string(i - 1) : Name());
        }
      }
      if (Coin(0.8)) {
        *joint->mutable_rest()->mutable_translation() =
            ::ik::testing::Vec(0, -0.3, 0);
      }
      if (Coin(0.3)) Fill(*joint->mutable_rest());
      if (Coin(0.3)) {
        if (Coin()) {
          v1::HingeLimit* hinge = joint->mutable_limit()->mutable_hinge();
          if (Coin(0.9)) Fill(*hinge->mutable_axis());
          hinge->mutable_range()->set_min(Number());
          hinge->mutable_range()->set_max(Number());
        } else {
          v1::BallSocketLimit* ball =
              joint->mutable_limit()->mutable_ball_socket();
          if (Coin()) Fill(*ball->mutable_axis());
          ball->set_swing_max(Number());
          if (Coin()) {
            ball->mutable_twist()->set_min(Number());
            ball->mutable_twist()->set_max(Number());
          }
        }
      }
    }
    const int chains = Int(0, 2);
    for (int i = 0; i < chains; ++i) {
      v1::Chain* chain = rig.add_chains();
      chain->set_name(Coin(0.8) ? "c" + std::to_string(i) : Name());
      chain->set_root(Coin(0.8) ? "j0" : Name());
      chain->set_tip(Coin(0.8) ? "j" + std::to_string(Int(0, 6)) : Name());
      if (Coin(0.2)) chain->set_solver(static_cast<v1::Solver>(Int(0, 4)));
      if (Coin(0.2)) chain->set_max_iterations(Int(-3, 50));
      if (Coin(0.2)) chain->set_tolerance(Number());
    }
    return rig;
  }

  v1::SolveChainRequest Solve(const std::vector<std::string>& rigs,
                              const std::vector<std::string>& chains) {
    v1::SolveChainRequest request;
    request.set_rig(Coin(0.9) ? rigs[Int(0, rigs.size() - 1)] : Name());
    if (Coin(0.1)) request.set_revision("sha256:" + Name());
    if (Coin(0.3)) Fill(*request.mutable_pose()->mutable_root());
    const int overrides = Int(0, 2);
    for (int i = 0; i < overrides; ++i) {
      v1::JointPose* joint = request.mutable_pose()->add_joints();
      if (Coin()) {
        joint->set_name(Name());
      } else if (Coin(0.95)) {
        joint->set_index(Int(-1, 6));
      }
      Fill(*joint->mutable_local());
    }
    const int goals = Int(0, 3);
    for (int i = 0; i < goals; ++i) {
      v1::ChainGoal* goal = request.add_goals();
      goal->set_chain(Coin(0.9) ? chains[Int(0, chains.size() - 1)] : Name());
      if (Coin(0.95)) Fill(*goal->mutable_target());
      if (Coin(0.3)) Fill(*goal->mutable_pole());
      if (Coin(0.1)) goal->set_solver(static_cast<v1::Solver>(Int(0, 4)));
      if (Coin(0.1)) goal->set_max_iterations(Int(-3, 50));
      if (Coin(0.1)) goal->set_tolerance(Number());
    }
    return request;
  }

 private:
  std::mt19937_64 rng_;
};

void ExpectFiniteAnswer(const v1::SolveChainResponse& response) {
  for (const v1::GoalResult& result : response.results()) {
    EXPECT_TRUE(std::isfinite(result.residual()));
    EXPECT_GE(result.residual(), 0.0);
    EXPECT_TRUE(std::isfinite(result.effector().x()) &&
                std::isfinite(result.effector().y()) &&
                std::isfinite(result.effector().z()));
    for (const v1::JointRotation& joint : result.rotations()) {
      const v1::Quat& q = joint.rotation();
      const double norm = std::sqrt(q.x() * q.x() + q.y() * q.y() +
                                    q.z() * q.z() + q.w() * q.w());
      EXPECT_NEAR(norm, 1.0, 1e-9) << joint.name();
    }
  }
}

TEST(HandlersRobustnessTest, RandomSolveRequestsNeverCrash) {
  RigRegistry registry(8);
  TerrainRegistry terrains(8);
  IkHandlers handlers(registry, terrains, ServiceLimits());
  v1::RegisterRigRequest arm;
  *arm.mutable_rig() = ArmRig();
  v1::RegisterRigResponse registered;
  ASSERT_TRUE(handlers.RegisterRig(arm, registered).ok());

  RandomInput random(20261121);
  int accepted = 0, reached = 0;
  for (int i = 0; i < 20000; ++i) {
    v1::SolveChainRequest request = random.Solve({"arm"}, {"arm"});
    v1::SolveChainResponse response;
    absl::Status status = handlers.SolveChain(request, response);
    if (status.ok()) {
      ++accepted;
      ASSERT_EQ(response.results_size(), request.goals_size());
      ExpectFiniteAnswer(response);
      for (const auto& result : response.results()) reached += result.reached();
    } else {
      EXPECT_FALSE(status.message().empty());
    }
  }
  // The generator must exercise the solver, not only the error paths.
  EXPECT_GT(accepted, 1000) << "of 20000";
  EXPECT_GT(reached, 100);
}

// Registers `got`'s rig (a rig as GetRig gave it) again under its name:
// the same revision, and GetRig gives the same bytes again.
void ExpectStoredFormKeepsItsRevision(IkHandlers& handlers,
                                      const v1::GetRigResponse& got) {
  v1::RegisterRigRequest again;
  *again.mutable_rig() = got.rig();
  again.set_replace(true);
  v1::RegisterRigResponse registered;
  ASSERT_TRUE(handlers.RegisterRig(again, registered).ok());
  EXPECT_EQ(registered.revision(), got.revision()) << got.rig().name();
  v1::GetRigRequest get;
  get.set_name(got.rig().name());
  v1::GetRigResponse got_again;
  ASSERT_TRUE(handlers.GetRig(get, got_again).ok());
  EXPECT_EQ(got_again.rig().SerializeAsString(), got.rig().SerializeAsString())
      << got.rig().name();
}

// Rigs whose rest rotations and limit axes are unit only to the precision
// a client wrote them with (float rounding, 7 decimals as the Python
// example writes them, a few ulps off): each registers, and its stored
// form registers again to the same revision. (ArmRig has no limits, so
// every such rig is accepted.)
TEST(HandlersRobustnessTest, ARigsStoredFormRegistersToItsRevision) {
  RigRegistry registry(1024);
  TerrainRegistry terrains(8);
  IkHandlers handlers(registry, terrains, ServiceLimits());
  std::mt19937_64 engine(41);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 300; ++trial) {
    v1::Rig rig = ArmRig();
    rig.set_name(absl::StrCat("arm", trial));
    for (v1::Joint& joint : *rig.mutable_joints()) {
      double q[4];
      double norm = 0.0;
      for (double& c : q) {
        c = normal(engine);
        norm += c * c;
      }
      norm = std::sqrt(norm);
      for (double& c : q) {
        c /= norm;
        switch (trial % 3) {
          case 0:
            c = static_cast<float>(c);
            break;
          case 1:
            c = std::round(c * 1e7) / 1e7;
            break;
          default:
            c += (static_cast<int>(engine() % 7) - 3) *
                 std::numeric_limits<double>::epsilon();
            break;
        }
      }
      *joint.mutable_rest()->mutable_rotation() =
          Rotation(q[0], q[1], q[2], q[3]);
      if (joint.has_limit() && joint.limit().has_hinge()) {
        *joint.mutable_limit()->mutable_hinge()->mutable_axis() =
            Vec(normal(engine), normal(engine), normal(engine));
      }
    }
    v1::RegisterRigRequest request;
    *request.mutable_rig() = rig;
    v1::RegisterRigResponse response;
    const absl::Status status = handlers.RegisterRig(request, response);
    ASSERT_TRUE(status.ok()) << status;
    v1::GetRigRequest get;
    get.set_name(rig.name());
    v1::GetRigResponse got;
    ASSERT_TRUE(handlers.GetRig(get, got).ok());
    ExpectStoredFormKeepsItsRevision(handlers, got);
  }
}

TEST(HandlersRobustnessTest, RandomRigsAreRegisteredWholeOrNotAtAll) {
  RigRegistry registry(1024);
  TerrainRegistry terrains(8);
  IkHandlers handlers(registry, terrains, ServiceLimits());
  RandomInput random(7);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    v1::RegisterRigRequest request;
    *request.mutable_rig() = random.Rig();
    request.set_replace(true);
    v1::RegisterRigResponse response;
    absl::Status status = handlers.RegisterRig(request, response);
    if (!status.ok()) {
      EXPECT_FALSE(status.message().empty());
      continue;
    }
    ++accepted;
    // What was accepted is what is stored, and it solves without crashing.
    v1::GetRigRequest get;
    get.set_name(response.name());
    v1::GetRigResponse got;
    ASSERT_TRUE(handlers.GetRig(get, got).ok());
    EXPECT_EQ(got.revision(), response.revision());
    // The stored form registers to the same revision.
    ExpectStoredFormKeepsItsRevision(handlers, got);
    std::vector<std::string> chains;
    for (const v1::Chain& chain : request.rig().chains()) {
      chains.push_back(chain.name());
    }
    if (chains.empty()) continue;
    v1::SolveChainRequest solve = random.Solve({response.name()}, chains);
    v1::SolveChainResponse solved;
    if (handlers.SolveChain(solve, solved).ok()) ExpectFiniteAnswer(solved);
  }
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace ik::server
