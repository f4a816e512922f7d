// Malformed SolveChain, GroundFeet and StepDynamics requests.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "error_paths.h"
#include "test_rigs.h"

namespace ik::server {

using ::ik::testing::Vec;

void ArmGoal(v1::SolveChainRequest& r) {
  r.set_rig("humanoid");
  v1::ChainGoal* goal = r.add_goals();
  goal->set_chain("left_arm");
  *goal->mutable_target() = Vec(0.45, 1.2, 0.15);
}

std::vector<ErrorCase> SolveChainCases() {
  using R = v1::SolveChainRequest;
  auto solve = [](std::string name, std::function<void(R&)> spoil,
                  grpc::StatusCode code, std::string path) {
    return Case<R, v1::SolveChainResponse>(
        std::move(name), &Stub::SolveChain,
        [spoil](R& r) {
          ArmGoal(r);
          spoil(r);
        },
        code, std::move(path));
  };
  return {
      solve(
          "no_rig", [](R& r) { r.clear_rig(); }, kInvalid, "rig"),
      solve(
          "unknown_rig", [](R& r) { r.set_rig("nobody"); }, kNotFound, "rig"),
      solve(
          "bad_rig_name", [](R& r) { r.set_rig("a/b c"); }, kInvalid, "rig"),
      solve(
          "wrong_revision", [](R& r) { r.set_revision("sha256:00"); },
          kPrecondition, "revision"),
      solve(
          "no_goals", [](R& r) { r.clear_goals(); }, kInvalid, "goals"),
      solve(
          "no_target", [](R& r) { r.mutable_goals(0)->clear_target(); },
          kInvalid, "goals[0].target"),
      solve(
          "nan_target",
          [](R& r) { r.mutable_goals(0)->mutable_target()->set_y(kNan); },
          kInvalid, "goals[0].target"),
      solve(
          "far_target",
          [](R& r) { r.mutable_goals(0)->mutable_target()->set_x(1e12); },
          kInvalid, "goals[0].target"),
      solve(
          "nan_pole",
          [](R& r) { *r.mutable_goals(0)->mutable_pole() = Vec(kNan, 0, 0); },
          kInvalid, "goals[0].pole"),
      solve(
          "unknown_chain",
          [](R& r) { r.mutable_goals(0)->set_chain("tentacle"); }, kNotFound,
          "goals[0].chain"),
      solve(
          "no_chain", [](R& r) { r.mutable_goals(0)->clear_chain(); }, kInvalid,
          "goals[0].chain"),
      solve(
          "ad_hoc_unknown_root",
          [](R& r) {
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_root("nothing");
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_tip("left_wrist");
          },
          kNotFound, "goals[0].ad_hoc_chain.root"),
      solve(
          "ad_hoc_unknown_tip",
          [](R& r) {
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_root(
                "left_clavicle");
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_tip("nothing");
          },
          kNotFound, "goals[0].ad_hoc_chain.tip"),
      solve(
          "negative_iterations",
          [](R& r) { r.mutable_goals(0)->set_max_iterations(-1); }, kInvalid,
          "goals[0].max_iterations"),
      solve(
          "iterations_beyond_the_work_budget",
          [](R& r) {
            r.mutable_goals(0)->set_solver(v1::SOLVER_FABRIK);
            r.mutable_goals(0)->set_max_iterations(2000000000);
          },
          kExhausted, "goals[0].max_iterations"),
      solve(
          "goals_beyond_the_work_budget",
          [](R& r) {
            // 64 goals of 4 joints and 4,000 iterations each: 1,024,000
            // joint-iterations (65,536,000 units), each goal within the
            // budget.
            r.clear_goals();
            for (int i = 0; i < 64; ++i) {
              v1::ChainGoal* goal = r.add_goals();
              goal->set_chain("left_arm_clavicle");
              goal->set_max_iterations(4000);
              *goal->mutable_target() = Vec(0.45, 1.2, 0.15);
            }
          },
          kExhausted, "goals"),
      solve(
          "nan_tolerance",
          [](R& r) { r.mutable_goals(0)->set_tolerance(kNan); }, kInvalid,
          "goals[0].tolerance"),
      solve(
          "zero_orientation",
          [](R& r) {
            *r.mutable_goals(0)->mutable_orientation() =
                ::ik::testing::Rotation(0, 0, 0, 0);
          },
          kInvalid, "goals[0].orientation"),
      solve(
          "orientation_weight_without_orientation",
          [](R& r) { r.mutable_goals(0)->set_orientation_weight(0.5); },
          kInvalid, "goals[0].orientation_weight"),
      solve(
          "orientation_weight_out_of_range",
          [](R& r) {
            *r.mutable_goals(0)->mutable_orientation() =
                ::ik::testing::Rotation(0, 0, 0, 1);
            r.mutable_goals(0)->set_orientation_weight(2);
          },
          kInvalid, "goals[0].orientation_weight"),
      solve(
          "swivel_and_pole",
          [](R& r) {
            r.mutable_goals(0)->set_swivel(0.5);
            *r.mutable_goals(0)->mutable_pole() = Vec(0, 1, 1);
          },
          kInvalid, "goals[0].swivel"),
      solve(
          "nan_swivel", [](R& r) { r.mutable_goals(0)->set_swivel(kNan); },
          kInvalid, "goals[0].swivel"),
      solve(
          "swivel_on_straight_chain",
          [](R& r) {
            r.set_rig("tail");
            r.mutable_goals(0)->set_chain("tail");
            r.mutable_goals(0)->set_swivel(0.5);
          },
          kPrecondition, "goals[0].swivel"),
      solve(
          "two_bone_on_long_chain",
          [](R& r) {
            r.mutable_goals(0)->set_chain("left_arm_clavicle");
            r.mutable_goals(0)->set_solver(v1::SOLVER_TWO_BONE);
          },
          kInvalid, "goals[0].solver"),
      solve(
          "unknown_solver",
          [](R& r) {
            r.mutable_goals(0)->set_solver(static_cast<v1::Solver>(99));
          },
          kInvalid, "goals[0].solver"),
      solve(
          "second_goal_bad",
          [](R& r) {
            *r.add_goals() = r.goals(0);
            r.mutable_goals(1)->mutable_target()->set_z(kNan);
          },
          kInvalid, "goals[1].target"),
      solve(
          "pose_unknown_joint",
          [](R& r) { r.mutable_pose()->add_joints()->set_name("tentacle"); },
          kNotFound, "pose.joints[0].name"),
      solve(
          "pose_joint_unset", [](R& r) { r.mutable_pose()->add_joints(); },
          kInvalid, "pose.joints[0]"),
      solve(
          "pose_bad_index",
          [](R& r) { r.mutable_pose()->add_joints()->set_index(99); }, kInvalid,
          "pose.joints[0].index"),
      solve(
          "pose_twice",
          [](R& r) {
            r.mutable_pose()->add_joints()->set_name("spine");
            r.mutable_pose()->add_joints()->set_index(1);
          },
          kInvalid, "pose.joints[1]"),
      solve(
          "pose_zero_rotation",
          [](R& r) {
            v1::JointPose* joint = r.mutable_pose()->add_joints();
            joint->set_name("spine");
            *joint->mutable_local()->mutable_rotation() =
                ::ik::testing::Rotation(0, 0, 0, 0);
          },
          kInvalid, "pose.joints[0].local.rotation"),
      solve(
          "pose_nan_translation",
          [](R& r) {
            v1::JointPose* joint = r.mutable_pose()->add_joints();
            joint->set_name("spine");
            *joint->mutable_local()->mutable_translation() = Vec(0, kNan, 0);
          },
          kInvalid, "pose.joints[0].local.translation"),
      solve(
          "pose_packed_not_by_four",
          [](R& r) {
            for (double v : {0.0, 0.0, 0.0, 1.0, 0.0}) {
              r.mutable_pose()->add_rotations(v);
            }
          },
          kInvalid, "pose.rotations"),
      solve(
          "pose_packed_not_unit",
          [](R& r) {
            for (double v : {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5}) {
              r.mutable_pose()->add_rotations(v);
            }
          },
          kInvalid, "pose.rotations[4]"),
      solve(
          "pose_packed_and_joint_rotation",
          [](R& r) {
            for (double v : {0.0, 0.0, 0.0, 1.0}) {
              r.mutable_pose()->add_rotations(v);
            }
            v1::JointPose* joint = r.mutable_pose()->add_joints();
            joint->set_index(0);
            *joint->mutable_local()->mutable_rotation() =
                ::ik::testing::Rotation(0, 0, 0, 1);
          },
          kInvalid, "pose.joints[0].local.rotation"),
      solve(
          "root_zero_scale",
          [](R& r) {
            *r.mutable_pose()->mutable_root()->mutable_scale() = Vec(0, 1, 1);
          },
          kInvalid, "pose.root.scale"),
  };
}

std::vector<ErrorCase> GroundFeetCases() {
  using R = v1::GroundFeetRequest;
  auto ground = [](std::string name, std::function<void(R&)> spoil,
                   grpc::StatusCode code, std::string path) {
    return Case<R, v1::GroundFeetResponse>(
        std::move(name), &Stub::GroundFeet,
        [spoil](R& r) {
          r.set_rig("humanoid");
          *r.mutable_ground()->add_planes()->mutable_point() = Vec(0, 0, 0);
          spoil(r);
        },
        code, std::move(path));
  };
  return {
      ground(
          "no_legs", [](R& r) { r.set_rig("tail"); }, kPrecondition, "rig"),
      ground(
          "unknown_rig", [](R& r) { r.set_rig("nobody"); }, kNotFound, "rig"),
      ground(
          "zero_normal",
          [](R& r) {
            *r.mutable_ground()->mutable_planes(0)->mutable_normal() =
                Vec(0, 0, 0);
          },
          kInvalid, "ground.planes[0].normal"),
      ground(
          "nan_point",
          [](R& r) {
            r.mutable_ground()->mutable_planes(0)->mutable_point()->set_x(kNan);
          },
          kInvalid, "ground.planes[0].point"),
      ground(
          "negative_radius",
          [](R& r) { r.mutable_ground()->mutable_planes(0)->set_radius(-1); },
          kInvalid, "ground.planes[0].radius"),
      ground(
          "unknown_terrain",
          [](R& r) { r.mutable_ground()->add_terrains("dock"); }, kNotFound,
          "ground.terrains[0]"),
      ground(
          "empty_terrain_name",
          [](R& r) { r.mutable_ground()->add_terrains(""); }, kInvalid,
          "ground.terrains[0]"),
      ground(
          "patch_too_few_rows",
          [](R& r) {
            v1::Heightfield* field = r.mutable_ground()->add_heightfields();
            field->set_columns(2);
            field->set_rows(1);
            field->set_spacing_x(1);
            field->set_spacing_z(1);
            field->add_heights(0);
            field->add_heights(0);
          },
          kInvalid, "ground.heightfields[0].rows"),
      ground(
          "weight_out_of_range",
          [](R& r) {
            r.add_weights(1);
            r.add_weights(1.5);
          },
          kInvalid, "weights[1]"),
      ground(
          "too_many_weights",
          [](R& r) {
            for (int i = 0; i < 3; ++i) r.add_weights(1);
          },
          kInvalid, "weights"),
      ground(
          "negative_tolerance", [](R& r) { r.set_tolerance(-1); }, kInvalid,
          "tolerance"),
      ground(
          "smoothing_negative_time",
          [](R& r) {
            v1::GroundSmoothing* smoothing = r.mutable_smoothing();
            smoothing->add_previous_foot_offsets();
            smoothing->add_previous_foot_offsets();
            smoothing->set_delta_time(-1);
          },
          kInvalid, "smoothing.delta_time"),
      ground(
          "smoothing_offsets_count",
          [](R& r) { r.mutable_smoothing()->add_previous_foot_offsets(); },
          kInvalid, "smoothing.previous_foot_offsets"),
      ground(
          "smoothing_infinite_pelvis_speed",
          [](R& r) {
            r.mutable_smoothing()->set_max_pelvis_speed(
                std::numeric_limits<double>::infinity());
          },
          kInvalid, "smoothing.max_pelvis_speed"),
      ground(
          "smoothing_infinite_foot_speed",
          [](R& r) {
            r.mutable_smoothing()->set_max_foot_speed(
                std::numeric_limits<double>::infinity());
          },
          kInvalid, "smoothing.max_foot_speed"),
      ground(
          "smoothing_nan_offset",
          [](R& r) {
            v1::GroundSmoothing* smoothing = r.mutable_smoothing();
            smoothing->add_previous_foot_offsets();
            *smoothing->add_previous_foot_offsets() = Vec(0, kNan, 0);
          },
          kInvalid, "smoothing.previous_foot_offsets[1]"),
      ground(
          "pose_unknown_joint",
          [](R& r) { r.mutable_pose()->add_joints()->set_name("tentacle"); },
          kNotFound, "pose.joints[0].name"),
  };
}

std::vector<ErrorCase> StepDynamicsCases() {
  using R = v1::StepDynamicsRequest;
  auto step = [](std::string name, std::function<void(R&)> spoil,
                 grpc::StatusCode code, std::string path) {
    return Case<R, v1::StepDynamicsResponse>(
        std::move(name), &Stub::StepDynamics,
        [spoil](R& r) {
          r.set_rig("humanoid");
          r.set_delta_time(1.0 / 60);
          spoil(r);
        },
        code, std::move(path));
  };
  auto state = [](R& r) {
    v1::DynamicChainState* state = r.add_states();
    state->set_chain("ponytail");
    for (int i = 0; i < 7; ++i) {
      *state->add_positions() = Vec(0, 1.69, -0.1 - 0.07 * i);
      *state->add_previous_positions() = Vec(0, 1.69, -0.1 - 0.07 * i);
      *state->add_rotations() = ::ik::testing::Rotation(0, 0, 0, 1);
    }
    return state;
  };
  return {
      step(
          "no_dynamic_chains", [](R& r) { r.set_rig("arm_without_dynamics"); },
          kPrecondition, "rig"),
      step(
          "negative_time", [](R& r) { r.set_delta_time(-1); }, kInvalid,
          "delta_time"),
      step(
          "nan_time", [](R& r) { r.set_delta_time(kNan); }, kInvalid,
          "delta_time"),
      step(
          "unknown_chain", [](R& r) { r.add_chains("braid"); }, kNotFound,
          "chains[0]"),
      step(
          "chain_twice",
          [](R& r) {
            r.add_chains("ponytail");
            r.add_chains("ponytail");
          },
          kInvalid, "chains[1]"),
      step(
          "wind_strength", [](R& r) { r.mutable_wind()->set_strength(-1); },
          kInvalid, "wind.strength"),
      step(
          "wind_turbulence", [](R& r) { r.mutable_wind()->set_turbulence(2); },
          kInvalid, "wind.turbulence"),
      step(
          "state_unknown_chain",
          [state](R& r) { state(r)->set_chain("braid"); }, kInvalid,
          "states[0].chain"),
      step(
          "state_wrong_revision",
          [state](R& r) { state(r)->set_revision("sha256:00"); }, kPrecondition,
          "states[0].revision"),
      step(
          "state_nan_position",
          [state](R& r) { state(r)->mutable_positions(2)->set_y(kNan); },
          kInvalid, "states[0].positions[2]"),
      step(
          "state_position_count",
          [state](R& r) { state(r)->mutable_positions()->RemoveLast(); },
          kInvalid, "states[0].positions"),
      step(
          "state_zero_rotation",
          [state](R& r) {
            *state(r)->mutable_rotations(1) =
                ::ik::testing::Rotation(0, 0, 0, 0);
          },
          kInvalid, "states[0].rotations[1]"),
      step(
          "state_negative_remainder",
          [state](R& r) { state(r)->set_time_remainder(-1); }, kInvalid,
          "states[0].time_remainder"),
      step(
          "pose_zero_scale",
          [](R& r) {
            *r.mutable_pose()->mutable_root()->mutable_scale() = Vec(0, 0, 0);
          },
          kInvalid, "pose.root.scale"),
  };
}

}  // namespace ik::server
