// The golden set's registry calls and refused requests.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "golden_calls.h"
#include "test_rigs.h"

namespace ik::testing {

// --- Registry and refused requests -----------------------------------------

void AddRegistryCases(std::vector<GoldenCase>& cases) {
  for (const char* rig : {"humanoid", "tail"}) {
    v1::GetRigRequest request;
    request.set_name(rig);
    cases.push_back(MakeCase(absl::StrCat("get_rig/", rig),
                             &v1::IkService::Stub::GetRig, request));
  }
  cases.push_back(MakeCase("list_rigs", &v1::IkService::Stub::ListRigs,
                           v1::ListRigsRequest()));
  cases.push_back(MakeCase("list_terrains", &v1::IkService::Stub::ListTerrains,
                           v1::ListTerrainsRequest()));
  {
    v1::RegisterRigRequest request;
    *request.mutable_rig() = ArmRig();
    cases.push_back(MakeCase("register_rig/arm",
                             &v1::IkService::Stub::RegisterRig, request));
    cases.push_back(MakeCase("register_rig/arm_again",
                             &v1::IkService::Stub::RegisterRig, request));
    // A quaternion 1e-4 off unit length: stored normalised.
    *request.mutable_rig()
         ->mutable_joints(1)
         ->mutable_rest()
         ->mutable_rotation() = Rotation(-0.0436, 0, 0, 0.99915);
    request.set_replace(true);
    cases.push_back(MakeCase("register_rig/arm_replaced",
                             &v1::IkService::Stub::RegisterRig, request));
    v1::GetRigRequest get;
    get.set_name("arm");
    cases.push_back(MakeCase("get_rig/arm", &v1::IkService::Stub::GetRig, get));
    v1::DeleteRigRequest remove;
    remove.set_name("arm");
    cases.push_back(
        MakeCase("delete_rig/arm", &v1::IkService::Stub::DeleteRig, remove));
  }
  {
    v1::RegisterTerrainRequest request;
    request.mutable_terrain()->set_name("grid");
    *request.mutable_terrain()->mutable_mesh() =
        GridMesh(12, 9, 0.25, -1.5, -1.0, 0.02, 0.1);
    cases.push_back(MakeCase("register_terrain/grid",
                             &v1::IkService::Stub::RegisterTerrain, request));
    cases.push_back(MakeCase("list_terrains/with_grid",
                             &v1::IkService::Stub::ListTerrains,
                             v1::ListTerrainsRequest()));
    v1::GroundFeetRequest ground;
    ground.set_rig("humanoid");
    ground.mutable_ground()->add_terrains("grid");
    ground.mutable_ground()->add_terrains("slope");
    cases.push_back(MakeCase("ground/grid_and_slope",
                             &v1::IkService::Stub::GroundFeet, ground));
    v1::DeleteTerrainRequest remove;
    remove.set_name("grid");
    cases.push_back(MakeCase("delete_terrain/grid",
                             &v1::IkService::Stub::DeleteTerrain, remove));
  }
  // Refused requests: only the code is recorded.
  {
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    cases.push_back(MakeCase("error/solve_no_goals",
                             &v1::IkService::Stub::SolveChain, request));
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("tentacle");
    cases.push_back(MakeCase("error/solve_unknown_chain",
                             &v1::IkService::Stub::SolveChain, request));
    goal->set_chain("left_arm");
    *goal->mutable_target() = Vec(std::nan(""), 0, 0);
    cases.push_back(MakeCase("error/solve_nan_target",
                             &v1::IkService::Stub::SolveChain, request));
    request.set_revision("sha256:0000000000000000");
    cases.push_back(MakeCase("error/solve_wrong_revision",
                             &v1::IkService::Stub::SolveChain, request));
  }
  {
    v1::GroundFeetRequest request;
    request.set_rig("tail");
    cases.push_back(MakeCase("error/ground_no_legs",
                             &v1::IkService::Stub::GroundFeet, request));
    request.set_rig("humanoid");
    request.mutable_ground()->add_terrains("dock");
    cases.push_back(MakeCase("error/ground_unknown_terrain",
                             &v1::IkService::Stub::GroundFeet, request));
  }
  {
    v1::StepDynamicsRequest request;
    request.set_rig("humanoid");
    request.set_delta_time(-1);
    cases.push_back(MakeCase("error/dynamics_negative_time",
                             &v1::IkService::Stub::StepDynamics, request));
  }
  {
    v1::RegisterRigRequest request;
    *request.mutable_rig() = ArmRig();
    request.mutable_rig()->mutable_joints(2)->set_parent_index(7);
    cases.push_back(MakeCase("error/register_bad_parent",
                             &v1::IkService::Stub::RegisterRig, request));
  }
}

}  // namespace ik::testing
