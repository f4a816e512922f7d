#include "golden_requests.h"

#include <openssl/sha.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "golden_calls.h"
#include "ik/base/trig.h"
#include "test_rigs.h"

namespace ik::testing {
namespace {

// The requests are built with the core's trig (ik/base/trig.h), not the
// host libm's: the request set itself must be the same bits on every CPU.

// Uniform in [lo, hi) from the generator's bits alone (the standard
// distributions are implementation-defined; the engine is not).
class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  double Uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }
  int Index(int count) { return static_cast<int>(engine_() % count); }
  bool Chance(double p) { return Uniform(0, 1) < p; }

 private:
  std::mt19937_64 engine_;
};

// A model-space point seen from a root at `translation` turned `yaw` about
// +Y, in world space.
struct Root {
  double x = 0, y = 0, z = 0, yaw = 0;
  v1::Vec3 World(double mx, double my, double mz) const {
    const double c = Cos(yaw), s = Sin(yaw);
    return Vec(x + c * mx + s * mz, y + my, z - s * mx + c * mz);
  }
  void ToPose(v1::Pose& pose) const {
    v1::Transform* root = pose.mutable_root();
    *root->mutable_translation() = Vec(x, y, z);
    *root->mutable_rotation() = Rotation(0, Sin(yaw / 2), 0, Cos(yaw / 2));
  }
};

Root RandomRoot(Random& random) {
  return Root{random.Uniform(-2, 2), random.Uniform(-0.3, 0.3),
              random.Uniform(-2, 2), random.Uniform(-3.1, 3.1)};
}

// A small random rotation about a random axis, at most `angle` radians.
v1::Quat SmallRotation(Random& random, double angle) {
  double x = random.Uniform(-1, 1), y = random.Uniform(-1, 1),
         z = random.Uniform(-1, 1);
  const double length = std::sqrt(x * x + y * y + z * z) + 1e-9;
  const double half = random.Uniform(0, angle) / 2;
  const double s = Sin(half) / length;
  return Rotation(x * s, y * s, z * s, Cos(half));
}

void AddJointRotation(v1::Pose& pose, const char* joint, const v1::Quat& q) {
  v1::JointPose* override_pose = pose.add_joints();
  override_pose->set_name(joint);
  *override_pose->mutable_local()->mutable_rotation() = q;
}

// --- SolveChain -----------------------------------------------------------

struct ChainSpec {
  const char* rig;
  const char* chain;
  // The chain's root joint in the rest pose (model space) and its reach.
  double root_x, root_y, root_z, reach;
  bool three_joints;
};

constexpr ChainSpec kChains[] = {
    {"humanoid", "left_arm", 0.18, 1.44, 0.0, 0.55, true},
    {"humanoid", "right_arm", -0.18, 1.44, 0.0, 0.55, true},
    {"humanoid", "left_leg", 0.09, 0.90, 0.0, 0.83, true},
    {"humanoid", "right_leg", -0.09, 0.90, 0.0, 0.83, true},
    {"humanoid", "left_arm_clavicle", 0.03, 1.44, 0.0, 0.70, false},
    {"humanoid", "right_arm_clavicle", -0.03, 1.44, 0.0, 0.70, false},
    {"tail", "tail", 0.0, 0.90, -0.1, 1.08, false},
};

constexpr v1::Solver kSolvers[] = {v1::SOLVER_AUTO, v1::SOLVER_TWO_BONE,
                                   v1::SOLVER_FABRIK, v1::SOLVER_CCD,
                                   v1::SOLVER_TORQUE};

// A target in a ball of `scale` times the chain's reach around its root.
v1::Vec3 Target(Random& random, const ChainSpec& chain, const Root& root,
                double scale) {
  double x, y, z;
  do {
    x = random.Uniform(-1, 1);
    y = random.Uniform(-1, 1);
    z = random.Uniform(-1, 1);
  } while (x * x + y * y + z * z > 1);
  const double r = chain.reach * scale;
  return root.World(chain.root_x + r * x, chain.root_y + r * y,
                    chain.root_z + r * z);
}

// A pose with the torso (or the tail's hips) slightly turned.
v1::Pose AnimatedPose(Random& random, const ChainSpec& chain,
                      const Root& root) {
  v1::Pose pose;
  root.ToPose(pose);
  if (std::string(chain.rig) == "humanoid") {
    if (random.Chance(0.5)) {
      AddJointRotation(pose, "spine", SmallRotation(random, 0.3));
    }
    if (random.Chance(0.5)) {
      AddJointRotation(pose, "chest", SmallRotation(random, 0.3));
    }
  } else if (random.Chance(0.5)) {
    AddJointRotation(pose, "hips", SmallRotation(random, 0.3));
  }
  return pose;
}

void AddSolveCases(std::vector<GoldenCase>& cases) {
  Random random(0x5eed0001);
  for (const ChainSpec& chain : kChains) {
    for (v1::Solver solver : kSolvers) {
      if (solver == v1::SOLVER_TWO_BONE && !chain.three_joints) continue;
      for (int i = 0; i < 6; ++i) {
        const Root root = RandomRoot(random);
        v1::SolveChainRequest request;
        request.set_rig(chain.rig);
        *request.mutable_pose() = AnimatedPose(random, chain, root);
        v1::ChainGoal* goal = request.add_goals();
        goal->set_chain(chain.chain);
        goal->set_solver(solver);
        // Mostly reachable, one in four beyond the chain's reach.
        *goal->mutable_target() =
            Target(random, chain, root, i % 4 == 3 ? 1.4 : 0.95);
        std::string variant = "plain";
        switch (i % 6) {
          case 1:
            *goal->mutable_pole() = Target(random, chain, root, 1.0);
            variant = "pole";
            break;
          case 2:
            goal->set_swivel(random.Uniform(-3, 3));
            variant = "swivel";
            break;
          case 4:
            *goal->mutable_orientation() = SmallRotation(random, 3.0);
            goal->set_orientation_weight(random.Uniform(0, 1));
            variant = "orientation";
            break;
          case 5:
            goal->set_max_iterations(1 + random.Index(40));
            goal->set_tolerance(random.Uniform(1e-5, 1e-2));
            variant = "settings";
            break;
        }
        cases.push_back(MakeCase(
            absl::StrCat("solve/", chain.chain, "/", v1::Solver_Name(solver),
                         "/", i, "-", variant),
            &v1::IkService::Stub::SolveChain, request));
      }
    }
  }
  // Several goals on one pose, each seeing the pose left by the others.
  for (int i = 0; i < 4; ++i) {
    const Root root = RandomRoot(random);
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    *request.mutable_pose() = AnimatedPose(random, kChains[0], root);
    for (int c = 0; c < 6; ++c) {
      v1::ChainGoal* goal = request.add_goals();
      goal->set_chain(kChains[c].chain);
      *goal->mutable_target() = Target(random, kChains[c], root, 0.9);
    }
    cases.push_back(MakeCase(absl::StrCat("solve/many_goals/", i),
                             &v1::IkService::Stub::SolveChain, request));
  }
  // Ad hoc chains.
  const char* ad_hoc[][2] = {{"left_clavicle", "left_wrist"},
                             {"spine", "head"},
                             {"pelvis", "left_wrist"},
                             {"tail_04", "tail_12"}};
  for (int i = 0; i < 8; ++i) {
    const auto& [from, to] = ad_hoc[i % 4];
    const bool tail = i % 4 == 3;
    const ChainSpec& spec = tail ? kChains[6] : kChains[4];
    const Root root = RandomRoot(random);
    v1::SolveChainRequest request;
    request.set_rig(spec.rig);
    *request.mutable_pose() = AnimatedPose(random, spec, root);
    v1::ChainGoal* goal = request.add_goals();
    goal->mutable_ad_hoc_chain()->set_root(from);
    goal->mutable_ad_hoc_chain()->set_tip(to);
    goal->set_solver(i < 4 ? v1::SOLVER_FABRIK : v1::SOLVER_CCD);
    *goal->mutable_target() = Target(random, spec, root, 0.8);
    cases.push_back(MakeCase(absl::StrCat("solve/ad_hoc/", from, "-", to, "/",
                                          v1::Solver_Name(goal->solver())),
                             &v1::IkService::Stub::SolveChain, request));
  }
}

// --- GroundFeet -----------------------------------------------------------

v1::Vec3 TiltedNormal(Random& random, double max_tilt) {
  const double tilt = random.Uniform(0, max_tilt);
  const double heading = random.Uniform(-3.14159, 3.14159);
  return Vec(Sin(tilt) * Cos(heading), Cos(tilt), Sin(tilt) * Sin(heading));
}

v1::Heightfield Patch(Random& random, const Root& root) {
  v1::Heightfield field;
  *field.mutable_origin() = Vec(root.x - 0.6, root.y, root.z - 0.6);
  field.set_spacing_x(0.1);
  field.set_spacing_z(0.12);
  field.set_columns(13);
  field.set_rows(11);
  for (int k = 0; k < 13 * 11; ++k) {
    field.add_heights(random.Uniform(-0.05, 0.12));
  }
  return field;
}

void AddGroundCases(std::vector<GoldenCase>& cases) {
  Random random(0x5eed0002);
  const char* kinds[] = {"plane",       "tilted_planes", "bounded_planes",
                         "heightfield", "stairs",        "slope",
                         "mixed"};
  for (int i = 0; i < 35; ++i) {
    const char* kind = kinds[i % 7];
    Root root = RandomRoot(random);
    v1::GroundFeetRequest request;
    request.set_rig("humanoid");
    v1::Ground& ground = *request.mutable_ground();
    const std::string k = kind;
    if (k == "stairs") {
      root = Root{random.Uniform(-0.3, 0.3), 0, random.Uniform(0.1, 1.6),
                  random.Uniform(-3.1, 3.1)};
      ground.add_terrains("stairs");
    } else if (k == "slope") {
      root = Root{random.Uniform(-0.8, 0.8), random.Uniform(0, 0.2),
                  random.Uniform(-0.8, 0.8), random.Uniform(-3.1, 3.1)};
      ground.add_terrains("slope");
    } else if (k == "mixed") {
      root = Root{random.Uniform(-0.3, 0.3), 0, random.Uniform(0.1, 1.6),
                  random.Uniform(-3.1, 3.1)};
      ground.add_terrains("stairs");
      v1::Plane* plane = ground.add_planes();
      *plane->mutable_point() = Vec(0, random.Uniform(-0.05, 0.2), 0);
      *plane->mutable_normal() = TiltedNormal(random, 0.3);
    } else if (k == "heightfield") {
      *ground.add_heightfields() = Patch(random, root);
    } else {
      const int planes = k == "plane" ? 1 : 3;
      for (int p = 0; p < planes; ++p) {
        v1::Plane* plane = ground.add_planes();
        *plane->mutable_point() = Vec(root.x + random.Uniform(-0.2, 0.2),
                                      root.y + random.Uniform(-0.15, 0.2),
                                      root.z + random.Uniform(-0.2, 0.2));
        *plane->mutable_normal() = TiltedNormal(random, k == "plane" ? 0 : 0.5);
        if (k == "bounded_planes") {
          if (p % 2 == 0) {
            plane->set_radius(random.Uniform(0.05, 0.4));
          } else {
            v1::RectangleXZ* rectangle = plane->mutable_rectangle_xz();
            rectangle->set_min_x(root.x - random.Uniform(0, 0.3));
            rectangle->set_max_x(root.x + random.Uniform(0, 0.3));
            rectangle->set_min_z(root.z - random.Uniform(0, 0.3));
            rectangle->set_max_z(root.z + random.Uniform(0, 0.3));
          }
        }
      }
    }
    v1::Pose& pose = *request.mutable_pose();
    root.ToPose(pose);
    if (random.Chance(0.6)) {
      AddJointRotation(pose, "left_hip", SmallRotation(random, 0.5));
      AddJointRotation(pose, "right_knee", SmallRotation(random, 0.4));
    }
    if (i % 3 != 0) {
      request.add_weights(random.Uniform(0, 1));
      request.add_weights(random.Chance(0.5) ? 1.0 : random.Uniform(0, 1));
    }
    if (i % 4 == 1) {
      v1::GroundSmoothing& smoothing = *request.mutable_smoothing();
      smoothing.set_previous_pelvis_drop(random.Uniform(0, 0.2));
      for (int leg = 0; leg < 2; ++leg) {
        *smoothing.add_previous_foot_offsets() =
            Vec(random.Uniform(-0.05, 0.05), random.Uniform(-0.1, 0.2),
                random.Uniform(-0.05, 0.05));
      }
      smoothing.set_delta_time(random.Uniform(0, 0.05));
      if (random.Chance(0.5)) smoothing.set_max_pelvis_speed(0.5);
    }
    if (i % 5 == 2) request.set_tolerance(random.Uniform(1e-5, 1e-2));
    cases.push_back(MakeCase(absl::StrCat("ground/", kind, "/", i),
                             &v1::IkService::Stub::GroundFeet, request));
  }
}

// --- StepDynamics -----------------------------------------------------------

// A character walking and turning, stepped `steps` times with the states of
// each answer sent back with the next request.
void AddDynamicsRun(std::vector<GoldenCase>& cases, const std::string& name,
                    const char* rig, uint64_t seed, int steps, bool wind,
                    int reset_at, int teleport_at) {
  auto states = std::make_shared<
      google::protobuf::RepeatedPtrField<v1::DynamicChainState>>();
  auto random = std::make_shared<Random>(seed);
  for (int step = 0; step < steps; ++step) {
    cases.push_back(GoldenCase{
        absl::StrCat("dynamics/", name, "/", step),
        [=](v1::IkService::Stub& stub) {
          v1::StepDynamicsRequest request;
          request.set_rig(rig);
          const double time = step / 30.0;
          Root root{Sin(time) * 0.8, 0, time * 1.2, 0.7 * time};
          if (step >= teleport_at) root.x += 5;
          root.ToPose(*request.mutable_pose());
          if (random->Chance(0.5)) {
            AddJointRotation(*request.mutable_pose(),
                             std::string(rig) == "humanoid" ? "neck" : "hips",
                             SmallRotation(*random, 0.4));
          }
          request.set_delta_time(random->Uniform(0.005, 0.05));
          *request.mutable_states() = *states;
          if (step == reset_at) request.set_reset(true);
          if (wind) {
            v1::Wind& w = *request.mutable_wind();
            w.set_strength(random->Uniform(0, 6));
            *w.mutable_direction() = Vec(1, 0, random->Uniform(-1, 1));
            w.set_turbulence(random->Uniform(0, 1));
            w.set_gust_frequency(random->Uniform(0.1, 3));
            w.set_seed(seed);
          }
          v1::StepDynamicsResponse response;
          GoldenAnswer answer = Call(&v1::IkService::Stub::StepDynamics, stub,
                                     request, &response);
          states->Clear();
          for (const v1::DynamicChainResult& result : response.results()) {
            *states->Add() = result.state();
          }
          return answer;
        }});
  }
}

void AddDynamicsCases(std::vector<GoldenCase>& cases) {
  AddDynamicsRun(cases, "ponytail", "humanoid", 0x5eed0003, 24, false, 17, 100);
  AddDynamicsRun(cases, "ponytail_wind", "humanoid", 0x5eed0004, 16, true, 100,
                 11);
  AddDynamicsRun(cases, "tail_sway", "tail", 0x5eed0005, 16, false, 100, 100);
  AddDynamicsRun(cases, "tail_sway_wind", "tail", 0x5eed0006, 16, true, 5, 100);
}

}  // namespace

std::vector<GoldenCase> GoldenCases() {
  std::vector<GoldenCase> cases;
  AddSolveCases(cases);
  AddGroundCases(cases);
  AddDynamicsCases(cases);
  AddRegistryCases(cases);
  return cases;
}

std::string GoldenLine(const std::string& name, const GoldenAnswer& answer) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest;
  SHA256(reinterpret_cast<const unsigned char*>(answer.bytes.data()),
         answer.bytes.size(), digest.data());
  return absl::StrCat(
      name, " ", static_cast<int>(answer.code), " ",
      absl::BytesToHexString(absl::string_view(
          reinterpret_cast<const char*>(digest.data()), digest.size())));
}

}  // namespace ik::testing
