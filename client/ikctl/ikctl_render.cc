// ikctl render: an SVG picture (svg_render.h) of a registered rig and,
// optionally, of answers on it, each on the pose the previous produced:
// grounding (--terrain / --plane, --root), a chain goal (--chain,
// --target), and a dynamics trail (--trail_steps steps of --dt).
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ikctl_util.h"
#include "svg_render.h"

ABSL_FLAG(std::string, svg, "", "render: the SVG file to write");
ABSL_FLAG(int, trail_steps, 0,
          "render: dynamics steps (of --dt) whose chain tips make the trail");
ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, terrain);
ABSL_DECLARE_FLAG(std::string, root);
ABSL_DECLARE_FLAG(double, dt);

namespace ik::ctl {
namespace {

Point3 ToPoint(const v1::Vec3& v) { return {v.x(), v.y(), v.z()}; }

// The pose so far: local rotations set by the answers, and the root.
struct Posed {
  std::vector<std::pair<std::string, v1::Quat>> locals;
  Point3 root{0, 0, 0};

  void Turn(
      const google::protobuf::RepeatedPtrField<v1::JointRotation>& rotations) {
    for (const v1::JointRotation& joint : rotations) {
      locals.emplace_back(joint.name(), joint.rotation());
    }
  }
  // As a request's pose: the root and every local rotation set.
  void ToProto(v1::Pose& pose) const {
    pose.mutable_root()->mutable_translation()->set_x(root[0]);
    pose.mutable_root()->mutable_translation()->set_y(root[1]);
    pose.mutable_root()->mutable_translation()->set_z(root[2]);
    pose.clear_joints();
    for (const auto& [name, rotation] : locals) {
      v1::JointPose* joint = pose.add_joints();
      joint->set_name(name);
      *joint->mutable_local()->mutable_rotation() = rotation;
    }
  }
};

// The feet grounded on --terrain or the planes: their rotations and the
// root's drop into `posed`, the contacts into `scene`. kOk, or the exit
// code.
int Ground(ik::Client& client, const std::vector<std::string>& planes,
           Posed& posed, SvgScene& scene) {
  absl::StatusOr<v1::GroundFeetRequest> request =
      GroundRequestFromFlags(planes);
  if (!request.ok()) {
    return Usage(absl::StrCat("render: ", request.status().message()));
  }
  posed.ToProto(*request->mutable_pose());
  absl::StatusOr<v1::GroundFeetResponse> answer = client.GroundFeet(*request);
  if (!answer.ok()) return Failed(answer.status());
  posed.Turn(answer->rotations());
  for (int i = 0; i < 3; ++i) {
    posed.root[i] += ToPoint(answer->root_offset())[i];
  }
  for (const v1::FootResult& foot : answer->feet()) {
    if (!foot.ground_found()) continue;
    scene.contacts.push_back({foot.leg(), ToPoint(foot.contact_point()),
                              ToPoint(foot.contact_normal())});
  }
  absl::StrAppend(&scene.title, ", grounded");
  return kOk;
}

// `chain` solved towards --target: its rotations into `posed`, the target
// into `scene`. kOk, or the exit code.
int SolveGoal(ik::Client& client, const std::string& rig_name,
              const std::string& chain, Posed& posed, SvgScene& scene) {
  v1::SolveChainRequest request;
  request.set_rig(rig_name);
  posed.ToProto(*request.mutable_pose());
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain(chain);
  if (!ParseVec3(absl::GetFlag(FLAGS_target), goal->mutable_target())) {
    return Usage("render: --chain needs --target=X,Y,Z");
  }
  absl::StatusOr<v1::SolveChainResponse> answer = client.SolveChain(request);
  if (!answer.ok()) return Failed(answer.status());
  const v1::GoalResult& result = answer->results(0);
  posed.Turn(result.rotations());
  scene.targets.push_back({chain, ToPoint(goal->target()), result.reached()});
  absl::StrAppend(&scene.title, ", ", chain,
                  result.reached() ? " reached" : " not reached");
  return kOk;
}

// `steps` dynamics steps of --dt: each dynamic chain's tip after each step
// into `scene`'s trails, the last step's rotations into `posed`. kOk, or
// the exit code.
int StepTrails(ik::Client& client, const std::string& rig_name, int steps,
               Posed& posed, SvgScene& scene) {
  v1::StepDynamicsRequest request;
  request.set_rig(rig_name);
  request.set_delta_time(absl::GetFlag(FLAGS_dt));
  posed.ToProto(*request.mutable_pose());
  std::vector<std::pair<std::string, v1::Quat>> stepped;
  for (int step = 1; step <= steps; ++step) {
    absl::StatusOr<v1::StepDynamicsResponse> answer =
        client.StepDynamics(request);
    if (!answer.ok()) return Failed(answer.status());
    request.clear_states();
    stepped.clear();
    for (int c = 0; c < answer->results_size(); ++c) {
      const v1::DynamicChainResult& result = answer->results(c);
      *request.add_states() = result.state();
      if (scene.trails.size() <= static_cast<size_t>(c)) {
        scene.trails.push_back({result.chain(), {}});
      }
      const v1::DynamicChainState& state = result.state();
      if (state.positions_size() > 0) {
        scene.trails[c].points.push_back(
            ToPoint(state.positions(state.positions_size() - 1)));
      }
      for (const v1::JointRotation& joint : result.rotations()) {
        stepped.emplace_back(joint.name(), joint.rotation());
      }
    }
  }
  posed.locals.insert(posed.locals.end(), stepped.begin(), stepped.end());
  absl::StrAppend(&scene.title, ", ", steps, " dynamics steps");
  return kOk;
}

// The rig on the pose so far, written to `path` and summed up on stdout.
// kOk, or the exit code.
int WriteSvg(const std::string& path, const v1::Rig& rig, const Posed& posed,
             SvgScene& scene) {
  // Later answers' rotations come later in `locals` and win.
  absl::StatusOr<std::vector<SvgJoint>> joints =
      PoseJoints(rig, posed.locals, posed.root);
  if (!joints.ok()) return Failed(joints.status());
  scene.joints = *std::move(joints);
  std::ofstream file(path, std::ios::trunc);
  file << RenderSvg(scene);
  if (!file) {
    return Failed(absl::InvalidArgumentError(
        absl::StrCat("--svg ", path, ": cannot be written")));
  }
  absl::PrintF("%s: %s (%d joints, %d targets, %d contacts, %d trails)\n", path,
               scene.title, scene.joints.size(), scene.targets.size(),
               scene.contacts.size(), scene.trails.size());
  return kOk;
}

}  // namespace

int RenderCommand(ik::Client& client, const std::vector<std::string>& args,
                  const std::vector<std::string>& planes) {
  if (!args.empty()) return Usage("render: takes flags only");
  const std::string path = absl::GetFlag(FLAGS_svg);
  const std::string rig_name = absl::GetFlag(FLAGS_rig);
  if (path.empty() || rig_name.empty()) {
    return Usage("render: --rig and --svg are required");
  }
  absl::StatusOr<v1::GetRigResponse> rig = client.GetRig(rig_name);
  if (!rig.ok()) return Failed(rig.status());
  SvgScene scene;
  scene.title = rig_name;
  Posed posed;
  if (const std::string root = absl::GetFlag(FLAGS_root); !root.empty()) {
    v1::Vec3 parsed;
    if (!ParseVec3(root, &parsed)) return Usage("render: --root must be X,Y,Z");
    posed.root = ToPoint(parsed);
  }
  // Each answer on the pose the previous produced.
  if (!planes.empty() || !absl::GetFlag(FLAGS_terrain).empty()) {
    if (const int code = Ground(client, planes, posed, scene); code != kOk) {
      return code;
    }
  }
  if (const std::string chain = absl::GetFlag(FLAGS_chain); !chain.empty()) {
    if (const int code = SolveGoal(client, rig_name, chain, posed, scene);
        code != kOk) {
      return code;
    }
  }
  if (const int steps = absl::GetFlag(FLAGS_trail_steps); steps > 0) {
    if (const int code = StepTrails(client, rig_name, steps, posed, scene);
        code != kOk) {
      return code;
    }
  }
  return WriteSvg(path, rig->rig(), posed, scene);
}

}  // namespace ik::ctl
