// Malformed RegisterRig requests and registry calls.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "error_paths.h"
#include "test_rigs.h"

namespace ik::server {

using ::ik::testing::Vec;

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
          "rest_outside_its_limit",
          [](v1::Rig& r) {
            v1::HingeLimit* hinge =
                r.mutable_joints(1)->mutable_limit()->mutable_hinge();
            hinge->mutable_axis()->set_z(1.0);
            hinge->mutable_range()->set_min(0.5);
            hinge->mutable_range()->set_max(1.0);
          },
          kInvalid, "rig.joints[1].limit"),
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
          "dynamic_follow_the_leader",
          [dynamic](v1::Rig& r) { dynamic(r)->set_follow_the_leader(-0.5); },
          kInvalid, "rig.dynamic_chains[0].follow_the_leader"),
      rig(
          "dynamic_infinite_teleport",
          [dynamic](v1::Rig& r) {
            dynamic(r)->set_teleport_distance(
                std::numeric_limits<double>::infinity());
          },
          kInvalid, "rig.dynamic_chains[0].teleport_distance"),
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

}  // namespace ik::server
