// Every error begins with the request's real field path. A table of
// malformed requests for every RPC is sent to a real ikd over a real
// channel; for each answer the test checks, by protobuf reflection on the
// request's descriptor, that the path at the start of the message resolves
// to a real field of the request (dotted proto field names, `[i]` for an
// element that exists, never a oneof's name), that it is the path the table
// expects, and that the status details carry the same path and description
// as a google.rpc.BadRequest field violation. A wrong path cannot pass.
#include <grpcpp/grpcpp.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/server/test_rigs.h"

namespace ik::server {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using ::ik::testing::Vec;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Empty when `path` names a field of `request` (elements by index must
// exist), else why not.
std::string ResolvePath(const Message& request, absl::string_view path) {
  const Message* message = &request;
  std::vector<absl::string_view> segments = absl::StrSplit(path, '.');
  for (size_t s = 0; s < segments.size(); ++s) {
    if (message == nullptr) {
      return absl::StrCat("'", segments[s - 1], "' is not a message");
    }
    absl::string_view segment = segments[s];
    absl::string_view name = segment;
    int index = -1;
    if (const size_t bracket = segment.find('[');
        bracket != absl::string_view::npos) {
      if (segment.back() != ']' ||
          !absl::SimpleAtoi(
              segment.substr(bracket + 1, segment.size() - bracket - 2),
              &index)) {
        return absl::StrCat("bad segment '", segment, "'");
      }
      name = segment.substr(0, bracket);
    }
    const FieldDescriptor* field =
        message->GetDescriptor()->FindFieldByName(std::string(name));
    if (field == nullptr) {
      return absl::StrCat(message->GetDescriptor()->full_name(),
                          " has no field '", name, "'");
    }
    const Reflection* reflection = message->GetReflection();
    // A repeated field is named whole ("goals: at least one ...") only at
    // the end of a path; inside one it needs an element.
    const bool last = s + 1 == segments.size();
    if (!field->is_repeated() && index >= 0) {
      return absl::StrCat("'", name, "' takes no index");
    }
    if (field->is_repeated() && index < 0) {
      if (last) return "";
      return absl::StrCat("'", name, "' needs an index");
    }
    if (index >= 0 && index >= reflection->FieldSize(*message, field)) {
      return absl::StrCat("'", segment, "': the request has only ",
                          reflection->FieldSize(*message, field), " elements");
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      message = nullptr;
    } else if (index >= 0) {
      message = &reflection->GetRepeatedMessage(*message, field, index);
    } else {
      message = &reflection->GetMessage(*message, field);
    }
  }
  return "";
}

struct ErrorCase {
  std::string name;
  // The whole request, built on demand.
  std::function<std::unique_ptr<Message>()> request;
  std::function<grpc::Status(v1::IkService::Stub&, const Message&)> call;
  grpc::StatusCode code;
  std::string path;

  friend void PrintTo(const ErrorCase& error, std::ostream* out) {
    *out << error.name;
  }
};

template <typename Request, typename Response>
ErrorCase Case(std::string name,
               grpc::Status (v1::IkService::Stub::*method)(grpc::ClientContext*,
                                                           const Request&,
                                                           Response*),
               std::function<void(Request&)> make, grpc::StatusCode code,
               std::string path) {
  return ErrorCase{std::move(name),
                   [make] {
                     auto request = std::make_unique<Request>();
                     make(*request);
                     return request;
                   },
                   [method](v1::IkService::Stub& stub, const Message& request) {
                     grpc::ClientContext context;
                     context.set_deadline(std::chrono::system_clock::now() +
                                          std::chrono::seconds(10));
                     Response response;
                     return (stub.*method)(&context,
                                           static_cast<const Request&>(request),
                                           &response);
                   },
                   code, std::move(path)};
}

using Stub = v1::IkService::Stub;
constexpr auto kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
constexpr auto kNotFound = grpc::StatusCode::NOT_FOUND;
constexpr auto kPrecondition = grpc::StatusCode::FAILED_PRECONDITION;
constexpr auto kExhausted = grpc::StatusCode::RESOURCE_EXHAUSTED;

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
          "root_zero_scale",
          [](R& r) {
            *r.mutable_pose()->mutable_root()->mutable_scale() = Vec(0, 1, 1);
          },
          kInvalid, "pose.root.scale"),
  };
}

// A valid arm rig to spoil.
std::vector<ErrorCase> RegisterRigCases() {
  using R = v1::RegisterRigRequest;
  auto rig = [](std::string name, std::function<void(v1::Rig&)> spoil,
                grpc::StatusCode code, std::string path) {
    return Case<R, v1::RegisterRigResponse>(
        std::move(name), &Stub::RegisterRig,
        [spoil](R& r) {
          *r.mutable_rig() = ::ik::testing::ArmRig();
          r.set_replace(true);
          spoil(*r.mutable_rig());
        },
        code, std::move(path));
  };
  auto sphere = [](v1::Rig& r) {
    v1::Collider* collider = r.add_colliders();
    collider->set_name("ball");
    collider->set_joint("elbow");
    collider->mutable_sphere()->set_radius(0.05);
    return collider;
  };
  auto dynamic = [](v1::Rig& r) {
    v1::DynamicChain* chain = r.add_dynamic_chains();
    chain->set_name("sway");
    chain->set_root("elbow");
    return chain;
  };
  auto leg = [](v1::Rig& r) {
    v1::Leg* leg = r.add_legs();
    leg->set_name("leg");
    leg->set_hip("shoulder");
    leg->set_knee("elbow");
    leg->set_ankle("wrist");
    return leg;
  };
  return {
      Case<R, v1::RegisterRigResponse>(
          "no_rig", &Stub::RegisterRig, [](R&) {}, kInvalid, "rig"),
      rig(
          "bad_rig_name", [](v1::Rig& r) { r.set_name("a/b c"); }, kInvalid,
          "rig.name"),
      rig(
          "long_rig_name",
          [](v1::Rig& r) { r.set_name(std::string(300, 'a')); }, kInvalid,
          "rig.name"),
      rig(
          "no_rig_name", [](v1::Rig& r) { r.clear_name(); }, kInvalid,
          "rig.name"),
      rig(
          "bad_joint_name",
          [](v1::Rig& r) { r.mutable_joints(2)->set_name("wr ist"); }, kInvalid,
          "rig.joints[2].name"),
      rig(
          "duplicate_joint",
          [](v1::Rig& r) { r.mutable_joints(2)->set_name("elbow"); }, kInvalid,
          "rig.joints[2].name"),
      rig(
          "unknown_parent",
          [](v1::Rig& r) { r.mutable_joints(1)->set_parent("hip"); }, kNotFound,
          "rig.joints[1].parent"),
      rig(
          "later_parent_index",
          [](v1::Rig& r) { r.mutable_joints(1)->set_parent_index(2); },
          kInvalid, "rig.joints[1].parent_index"),
      rig(
          "zero_rest_rotation",
          [](v1::Rig& r) {
            *r.mutable_joints(1)->mutable_rest()->mutable_rotation() =
                ::ik::testing::Rotation(0, 0, 0, 0);
          },
          kInvalid, "rig.joints[1].rest.rotation"),
      rig(
          "nan_rest_translation",
          [](v1::Rig& r) {
            r.mutable_joints(2)->mutable_rest()->mutable_translation()->set_x(
                kNan);
          },
          kInvalid, "rig.joints[2].rest.translation"),
      rig(
          "hinge_without_axis",
          [](v1::Rig& r) {
            r.mutable_joints(1)->mutable_limit()->mutable_hinge();
          },
          kInvalid, "rig.joints[1].limit.hinge.axis"),
      rig(
          "negative_swing",
          [](v1::Rig& r) {
            r.mutable_joints(0)
                ->mutable_limit()
                ->mutable_ball_socket()
                ->set_swing_max(-1);
          },
          kInvalid, "rig.joints[0].limit.ball_socket.swing_max"),
      rig(
          "bad_chain_name",
          [](v1::Rig& r) { r.mutable_chains(0)->set_name("a rm"); }, kInvalid,
          "rig.chains[0].name"),
      rig(
          "unknown_chain_root",
          [](v1::Rig& r) { r.mutable_chains(0)->set_root("hip"); }, kNotFound,
          "rig.chains[0].root"),
      rig(
          "negative_chain_tolerance",
          [](v1::Rig& r) { r.mutable_chains(0)->set_tolerance(-1); }, kInvalid,
          "rig.chains[0].tolerance"),
      rig(
          "negative_chain_iterations",
          [](v1::Rig& r) { r.mutable_chains(0)->set_max_iterations(-1); },
          kInvalid, "rig.chains[0].max_iterations"),
      rig(
          "collider_negative_radius",
          [sphere](v1::Rig& r) { sphere(r)->mutable_sphere()->set_radius(-1); },
          kInvalid, "rig.colliders[0].sphere.radius"),
      rig(
          "collider_no_shape",
          [sphere](v1::Rig& r) { sphere(r)->clear_sphere(); }, kInvalid,
          "rig.colliders[0].sphere"),
      rig(
          "collider_unknown_joint",
          [sphere](v1::Rig& r) { sphere(r)->set_joint("hip"); }, kNotFound,
          "rig.colliders[0].joint"),
      rig(
          "collider_bad_name",
          [sphere](v1::Rig& r) { sphere(r)->set_name("a ball"); }, kInvalid,
          "rig.colliders[0].name"),
      rig(
          "capsule_nan_end",
          [sphere](v1::Rig& r) {
            v1::Capsule* capsule = sphere(r)->mutable_capsule();
            capsule->set_radius(0.1);
            *capsule->mutable_end() = Vec(kNan, 0, 0);
          },
          kInvalid, "rig.colliders[0].capsule.end"),
      rig(
          "dynamic_drag", [dynamic](v1::Rig& r) { dynamic(r)->set_drag(5); },
          kInvalid, "rig.dynamic_chains[0].drag"),
      rig(
          "dynamic_unknown_root",
          [dynamic](v1::Rig& r) { dynamic(r)->set_root("hip"); }, kNotFound,
          "rig.dynamic_chains[0].root"),
      rig(
          "dynamic_unknown_collider",
          [dynamic](v1::Rig& r) { dynamic(r)->add_colliders("nothing"); },
          kNotFound, "rig.dynamic_chains[0].colliders[0]"),
      rig(
          "dynamic_joint_setting",
          [dynamic](v1::Rig& r) {
            v1::DynamicJointSettings* joint = dynamic(r)->add_joints();
            joint->set_joint("wrist");
            joint->set_stiffness(-1);
          },
          kInvalid, "rig.dynamic_chains[0].joints[0].stiffness"),
      rig(
          "dynamic_bad_name",
          [dynamic](v1::Rig& r) { dynamic(r)->set_name("s/w"); }, kInvalid,
          "rig.dynamic_chains[0].name"),
      rig(
          "leg_unknown_hip", [leg](v1::Rig& r) { leg(r)->set_hip("pelvis"); },
          kNotFound, "rig.legs[0].hip"),
      rig(
          "leg_negative_ankle_height",
          [leg](v1::Rig& r) { leg(r)->set_ankle_height(-1); }, kInvalid,
          "rig.legs[0].ankle_height"),
      rig(
          "leg_bad_name", [leg](v1::Rig& r) { leg(r)->set_name("le g"); },
          kInvalid, "rig.legs[0].name"),
      rig(
          "too_many_chains",
          [](v1::Rig& r) {
            for (int i = 0; i < 70; ++i) *r.add_chains() = r.chains(0);
          },
          kExhausted, "rig.chains"),
  };
}

std::vector<ErrorCase> RegistryCases() {
  return {
      Case<v1::GetRigRequest, v1::GetRigResponse>(
          "get_unknown", &Stub::GetRig,
          [](v1::GetRigRequest& r) { r.set_name("nobody"); }, kNotFound,
          "name"),
      Case<v1::GetRigRequest, v1::GetRigResponse>(
          "get_no_name", &Stub::GetRig, [](v1::GetRigRequest&) {}, kInvalid,
          "name"),
      Case<v1::DeleteRigRequest, v1::DeleteRigResponse>(
          "delete_unknown", &Stub::DeleteRig,
          [](v1::DeleteRigRequest& r) { r.set_name("nobody"); }, kNotFound,
          "name"),
      Case<v1::DeleteRigRequest, v1::DeleteRigResponse>(
          "delete_wrong_revision", &Stub::DeleteRig,
          [](v1::DeleteRigRequest& r) {
            r.set_name("tail");
            r.set_revision("sha256:00");
          },
          kPrecondition, "revision"),
      Case<v1::DeleteTerrainRequest, v1::DeleteTerrainResponse>(
          "delete_terrain_unknown", &Stub::DeleteTerrain,
          [](v1::DeleteTerrainRequest& r) { r.set_name("nowhere"); }, kNotFound,
          "name"),
      Case<v1::RegisterTerrainRequest, v1::RegisterTerrainResponse>(
          "terrain_bad_name", &Stub::RegisterTerrain,
          [](v1::RegisterTerrainRequest& r) {
            r.mutable_terrain()->set_name("a b");
            *r.mutable_terrain()->mutable_mesh() =
                ::ik::testing::GridMesh(2, 2, 1, 0, 0, 0, 0);
          },
          kInvalid, "terrain.name"),
      Case<v1::RegisterTerrainRequest, v1::RegisterTerrainResponse>(
          "terrain_no_shape", &Stub::RegisterTerrain,
          [](v1::RegisterTerrainRequest& r) {
            r.mutable_terrain()->set_name("flat");
          },
          kInvalid, "terrain.heightfield"),
      Case<v1::RegisterTerrainRequest, v1::RegisterTerrainResponse>(
          "terrain_nan_vertex", &Stub::RegisterTerrain,
          [](v1::RegisterTerrainRequest& r) {
            r.mutable_terrain()->set_name("flat");
            *r.mutable_terrain()->mutable_mesh() =
                ::ik::testing::GridMesh(2, 2, 1, 0, 0, 0, 0);
            r.mutable_terrain()->mutable_mesh()->set_vertices(7, kNan);
          },
          kInvalid, "terrain.mesh.vertices[7]"),
      Case<v1::RegisterTerrainRequest, v1::RegisterTerrainResponse>(
          "terrain_bad_index", &Stub::RegisterTerrain,
          [](v1::RegisterTerrainRequest& r) {
            r.mutable_terrain()->set_name("flat");
            *r.mutable_terrain()->mutable_mesh() =
                ::ik::testing::GridMesh(2, 2, 1, 0, 0, 0, 0);
            r.mutable_terrain()->mutable_mesh()->set_indices(5, 1000);
          },
          kInvalid, "terrain.mesh.indices[5]"),
      Case<v1::RegisterTerrainRequest, v1::RegisterTerrainResponse>(
          "heightfield_zero_spacing", &Stub::RegisterTerrain,
          [](v1::RegisterTerrainRequest& r) {
            r.mutable_terrain()->set_name("flat");
            v1::Heightfield* field = r.mutable_terrain()->mutable_heightfield();
            field->set_columns(2);
            field->set_rows(2);
            field->set_spacing_z(1);
            for (int i = 0; i < 4; ++i) field->add_heights(0);
          },
          kInvalid, "terrain.heightfield.spacing_x"),
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

class ErrorPathsTest : public ::testing::TestWithParam<ErrorCase> {
 protected:
  static void SetUpTestSuite() {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.rig_dir = IK_EXAMPLES_DIR "/rigs";
    options.terrain_dir = IK_EXAMPLES_DIR "/terrains";
    auto server = IkServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
    stub_ = v1::IkService::NewStub(
                grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                    grpc::InsecureChannelCredentials()))
                .release();
    // A rig without dynamic chains or legs.
    v1::Rig arm = ::ik::testing::ArmRig();
    arm.set_name("arm_without_dynamics");
    v1::RegisterRigRequest request;
    *request.mutable_rig() = arm;
    v1::RegisterRigResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->RegisterRig(&context, request, &response).ok());
  }
  static void TearDownTestSuite() {
    delete stub_;
    delete server_;
  }
  static IkServer* server_;
  static v1::IkService::Stub* stub_;
};
IkServer* ErrorPathsTest::server_ = nullptr;
v1::IkService::Stub* ErrorPathsTest::stub_ = nullptr;

TEST_P(ErrorPathsTest, MessageAndDetailsNameARealFieldOfTheRequest) {
  const ErrorCase& error = GetParam();
  std::unique_ptr<Message> request = error.request();
  const grpc::Status status = error.call(*stub_, *request);
  ASSERT_EQ(status.error_code(), error.code) << status.error_message();
  SCOPED_TRACE(
      absl::StrCat("want ", error.path, " in: ", status.error_message()));

  const std::string& message = status.error_message();
  const size_t colon = message.find(": ");
  ASSERT_NE(colon, std::string::npos) << message;
  const std::string path = message.substr(0, colon);
  EXPECT_EQ(ResolvePath(*request, path), "")
      << "'" << path << "' in: " << message;
  EXPECT_EQ(path, error.path) << message;
  EXPECT_LE(message.size(), 600u) << "names are quoted cut short";

  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()))
      << "no google.rpc.Status in the details of: " << message;
  EXPECT_EQ(details.code(), static_cast<int>(error.code));
  EXPECT_EQ(details.message(), message);
  ASSERT_EQ(details.details_size(), 1) << message;
  google::rpc::BadRequest bad_request;
  ASSERT_TRUE(details.details(0).UnpackTo(&bad_request)) << message;
  ASSERT_EQ(bad_request.field_violations_size(), 1);
  EXPECT_EQ(bad_request.field_violations(0).field(), path);
  EXPECT_EQ(bad_request.field_violations(0).description(),
            message.substr(colon + 2));
}

std::vector<ErrorCase> AllCases() {
  std::vector<ErrorCase> cases;
  const std::pair<const char*, std::vector<ErrorCase> (*)()> parts[] = {
      {"SolveChain", SolveChainCases},     {"RegisterRig", RegisterRigCases},
      {"Registry", RegistryCases},         {"GroundFeet", GroundFeetCases},
      {"StepDynamics", StepDynamicsCases},
  };
  for (const auto& [rpc, part] : parts) {
    for (ErrorCase& error : part()) {
      error.name = absl::StrCat(rpc, "_", error.name);
      cases.push_back(std::move(error));
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryRpc, ErrorPathsTest,
                         ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

// The resolver itself: a wrong path cannot pass.
TEST(ResolvePathTest, RejectsWhatIsNotAFieldOfTheRequest) {
  v1::SolveChainRequest request;
  ArmGoal(request);
  v1::RegisterRigRequest rig;
  *rig.mutable_rig() = ::ik::testing::ArmRig();
  rig.mutable_rig()->add_colliders()->mutable_sphere();
  EXPECT_EQ(ResolvePath(request, "goals[0].target"), "");
  EXPECT_EQ(ResolvePath(request, "goals[0].target.x"), "");
  EXPECT_EQ(ResolvePath(rig, "rig.colliders[0].sphere.radius"), "");
  EXPECT_NE(ResolvePath(request, "goals[0]: target"), "");
  EXPECT_NE(ResolvePath(request, "goals[1].target"), "");
  EXPECT_EQ(ResolvePath(request, "goals"), "");
  EXPECT_NE(ResolvePath(request, "goals.target"), "");
  EXPECT_NE(ResolvePath(request, "goals[0].chain_ref"), "");
  EXPECT_NE(ResolvePath(rig, "rig.colliders[0].shape.radius"), "");
  EXPECT_NE(ResolvePath(rig, "rig.dynamic_chains[0].settings.drag"), "");
  EXPECT_NE(ResolvePath(request, "locals[0]"), "");
  EXPECT_NE(ResolvePath(request, "rig[0]"), "");
  EXPECT_NE(ResolvePath(request, "goals[0].target.x.y"), "");
}

}  // namespace
}  // namespace ik::server
