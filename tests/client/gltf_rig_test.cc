// Rigs from glTF (client/gltf/gltf_rig.h): humanoid skeletons the test writes
// with tinygltf's writer in three naming schemes (Mixamo under a Z-up
// centimetre armature, VRM, the common upperarm_l / thigh_l names), with
// seeded random joint rotations; the rest pose checked by the test's own
// forward kinematics against the generator's model-space transforms; the
// proposed chains and legs; the assimp sample skin; bad files. The imported
// humanoid registers on a real ikd and its arm solves.
#include "gltf_rig.h"

#include <tiny_gltf.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "glm/gtc/quaternion.hpp"
#include "glm/gtc/type_ptr.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/client.h"
#include "server.h"

#ifndef IK_GLTF_SAMPLES_DIR
#error "IK_GLTF_SAMPLES_DIR must name assimp-testmodels' glTF2 folder"
#endif

namespace ik {
namespace {

using ::testing::HasSubstr;

// One bone of the generated skeleton: its parent (-1: under the armature
// node), local translation (the file's units) and a rotation.
struct Bone {
  std::string role;  // the scheme-independent name, e.g. "left_forearm"
  int parent;
  glm::dvec3 translation;
};

// A humanoid in metres, +Y up, standing on y = 0, facing +Z.
std::vector<Bone> Humanoid() {
  return {
      {"hips", -1, {0, 0.95, 0}},
      {"spine", 0, {0, 0.12, 0}},
      {"chest", 1, {0, 0.15, 0}},
      {"neck", 2, {0, 0.2, 0}},
      {"head", 3, {0, 0.1, 0}},
      {"left_shoulder", 2, {0.04, 0.17, 0}},
      {"left_upperarm", 5, {0.12, 0, 0}},
      {"left_forearm", 6, {0.28, 0, 0}},
      {"left_hand", 7, {0.25, 0, 0}},
      {"right_shoulder", 2, {-0.04, 0.17, 0}},
      {"right_upperarm", 9, {-0.12, 0, 0}},
      {"right_forearm", 10, {-0.28, 0, 0}},
      {"right_hand", 11, {-0.25, 0, 0}},
      {"left_thigh", 0, {0.09, -0.05, 0}},
      {"left_calf", 13, {0, -0.42, 0}},
      {"left_foot", 14, {0, -0.4, 0}},
      {"left_toe", 15, {0, -0.06, 0.12}},
      {"right_thigh", 0, {-0.09, -0.05, 0}},
      {"right_calf", 17, {0, -0.42, 0}},
      {"right_foot", 18, {0, -0.4, 0}},
      {"right_toe", 19, {0, -0.06, 0.12}},
  };
}

using Scheme = std::map<std::string, std::string>;

const Scheme& MixamoNames() {
  static const auto* names =
      new Scheme{{"hips", "mixamorig:Hips"},
                 {"spine", "mixamorig:Spine"},
                 {"chest", "mixamorig:Spine2"},
                 {"neck", "mixamorig:Neck"},
                 {"head", "mixamorig:Head"},
                 {"left_shoulder", "mixamorig:LeftShoulder"},
                 {"left_upperarm", "mixamorig:LeftArm"},
                 {"left_forearm", "mixamorig:LeftForeArm"},
                 {"left_hand", "mixamorig:LeftHand"},
                 {"right_shoulder", "mixamorig:RightShoulder"},
                 {"right_upperarm", "mixamorig:RightArm"},
                 {"right_forearm", "mixamorig:RightForeArm"},
                 {"right_hand", "mixamorig:RightHand"},
                 {"left_thigh", "mixamorig:LeftUpLeg"},
                 {"left_calf", "mixamorig:LeftLeg"},
                 {"left_foot", "mixamorig:LeftFoot"},
                 {"left_toe", "mixamorig:LeftToeBase"},
                 {"right_thigh", "mixamorig:RightUpLeg"},
                 {"right_calf", "mixamorig:RightLeg"},
                 {"right_foot", "mixamorig:RightFoot"},
                 {"right_toe", "mixamorig:RightToeBase"}};
  return *names;
}

const Scheme& VrmNames() {
  static const auto* names = new Scheme{{"hips", "hips"},
                                        {"spine", "spine"},
                                        {"chest", "chest"},
                                        {"neck", "neck"},
                                        {"head", "head"},
                                        {"left_shoulder", "leftShoulder"},
                                        {"left_upperarm", "leftUpperArm"},
                                        {"left_forearm", "leftLowerArm"},
                                        {"left_hand", "leftHand"},
                                        {"right_shoulder", "rightShoulder"},
                                        {"right_upperarm", "rightUpperArm"},
                                        {"right_forearm", "rightLowerArm"},
                                        {"right_hand", "rightHand"},
                                        {"left_thigh", "leftUpperLeg"},
                                        {"left_calf", "leftLowerLeg"},
                                        {"left_foot", "leftFoot"},
                                        {"left_toe", "leftToes"},
                                        {"right_thigh", "rightUpperLeg"},
                                        {"right_calf", "rightLowerLeg"},
                                        {"right_foot", "rightFoot"},
                                        {"right_toe", "rightToes"}};
  return *names;
}

const Scheme& CommonNames() {
  static const auto* names = new Scheme{{"hips", "pelvis"},
                                        {"spine", "spine_01"},
                                        {"chest", "spine_02"},
                                        {"neck", "neck_01"},
                                        {"head", "head"},
                                        {"left_shoulder", "clavicle_l"},
                                        {"left_upperarm", "upperarm_l"},
                                        {"left_forearm", "lowerarm_l"},
                                        {"left_hand", "hand_l"},
                                        {"right_shoulder", "clavicle_r"},
                                        {"right_upperarm", "UpperArm.R"},
                                        {"right_forearm", "forearm.R"},
                                        {"right_hand", "hand.R"},
                                        {"left_thigh", "thigh_l"},
                                        {"left_calf", "calf_l"},
                                        {"left_foot", "foot_l"},
                                        {"left_toe", "ball_l"},
                                        {"right_thigh", "thigh_r"},
                                        {"right_calf", "calf_r"},
                                        {"right_foot", "foot_r"},
                                        {"right_toe", "ball_r"}};
  return *names;
}

// The generated file and what its skeleton's joints are in model space.
struct Generated {
  std::string path;
  std::vector<std::string> names;
  std::vector<glm::dmat4> model;  // per bone, model space, metres
};

glm::dmat4 Trs(const glm::dvec3& t, const glm::dquat& r, double s) {
  return glm::translate(glm::dmat4(1.0), t) * glm::mat4_cast(r) *
         glm::scale(glm::dmat4(1.0), glm::dvec3(s));
}

// Writes the humanoid named by `scheme` to a .gltf (or .glb) file. With
// `mixamo_armature` the bones are in centimetres, Z up, under an armature
// node turning them to Y up and scaling by 0.01 (as Mixamo exports come).
// Each bone gets a seeded random rotation, with its children placed so
// their model-space positions stay where Humanoid() puts them.
Generated Write(const Scheme& scheme, bool mixamo_armature, bool binary,
                std::uint32_t seed) {
  const std::vector<Bone> bones = Humanoid();
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const glm::dquat armature_rotation =
      mixamo_armature ? glm::angleAxis(-M_PI / 2, glm::dvec3(1, 0, 0))
                      : glm::dquat(1, 0, 0, 0);
  const double armature_scale = mixamo_armature ? 0.01 : 1.0;
  const glm::dmat4 armature =
      Trs(glm::dvec3(0), armature_rotation, armature_scale);

  tinygltf::Model model;
  model.asset.version = "2.0";
  tinygltf::Node root;
  root.name = "Armature";
  if (mixamo_armature) {
    root.rotation = {armature_rotation.x, armature_rotation.y,
                     armature_rotation.z, armature_rotation.w};
    root.scale = {0.01, 0.01, 0.01};
  }
  model.nodes.push_back(root);
  Generated generated;
  std::vector<glm::dmat4> model_rotation(bones.size());  // rotation only
  tinygltf::Skin skin;
  for (size_t i = 0; i < bones.size(); ++i) {
    const Bone& bone = bones[i];
    // The bone's model-space frame: Humanoid()'s position, a random turn.
    glm::dvec3 position = bone.translation;
    for (int at = bone.parent; at != -1; at = bones[at].parent) {
      position += bones[at].translation;
    }
    const glm::dquat turn = glm::normalize(glm::dquat(
        1.0, 0.3 * unit(random), 0.3 * unit(random), 0.3 * unit(random)));
    const glm::dquat rotation_model = armature_rotation * turn;
    generated.model.push_back(Trs(position, rotation_model, 1.0));
    // The file's local transform: relative to the parent node's frame,
    // which includes the armature's rotation and scale.
    const glm::dmat4 parent_frame =
        bone.parent == -1
            ? armature
            : Trs(glm::dvec3(generated.model[bone.parent][3]),
                  glm::quat_cast(glm::dmat3(generated.model[bone.parent])),
                  armature_scale);
    const glm::dmat4 local = glm::inverse(parent_frame) *
                             Trs(position, rotation_model, armature_scale);
    const glm::dvec3 t(local[3]);
    const glm::dquat r = glm::normalize(glm::quat_cast(
        glm::dmat3(local) * (1.0 / glm::length(glm::dvec3(local[0])))));
    tinygltf::Node node;
    node.name = scheme.at(bone.role);
    node.translation = {t.x, t.y, t.z};
    node.rotation = {r.x, r.y, r.z, r.w};
    model.nodes.push_back(node);
    const int index = static_cast<int>(model.nodes.size()) - 1;
    model.nodes[bone.parent == -1 ? 0 : bone.parent + 1].children.push_back(
        index);
    skin.joints.push_back(index);
    generated.names.push_back(node.name);
  }
  model.skins.push_back(skin);
  tinygltf::Scene scene;
  scene.nodes = {0};
  model.scenes.push_back(scene);
  model.defaultScene = 0;
  generated.path = absl::StrCat(::testing::TempDir(), "/ikd-gltf-", getpid(),
                                "-", seed, binary ? ".glb" : ".gltf");
  tinygltf::TinyGLTF writer;
  EXPECT_TRUE(writer.WriteGltfSceneToFile(&model, generated.path, true, true,
                                          true, binary));
  return generated;
}

// Forward kinematics of the imported rig's rest pose: model-space
// transforms per joint, by name.
std::map<std::string, glm::dmat4> RestModel(const v1::Rig& rig) {
  std::map<std::string, glm::dmat4> model;
  for (const v1::Joint& joint : rig.joints()) {
    const v1::Transform& rest = joint.rest();
    const glm::dquat rotation(rest.rotation().w(), rest.rotation().x(),
                              rest.rotation().y(), rest.rotation().z());
    const glm::dmat4 local =
        Trs(glm::dvec3(rest.translation().x(), rest.translation().y(),
                       rest.translation().z()),
            rotation, 1.0);
    model[joint.name()] =
        joint.parent().empty() ? local : model.at(joint.parent()) * local;
  }
  return model;
}

std::string Sanitized(std::string name) {
  for (char& c : name) {
    if (c == ':') c = '_';
  }
  return name;
}

struct SchemeCase {
  const char* label;
  const Scheme* names;
  bool mixamo_armature;
  bool binary;

  friend void PrintTo(const SchemeCase& scheme, std::ostream* out) {
    *out << scheme.label;
  }
};

class GltfHumanoidTest : public ::testing::TestWithParam<SchemeCase> {};

TEST_P(GltfHumanoidTest, ImportsJointsRestPoseChainsAndLegs) {
  const SchemeCase& scheme = GetParam();
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(absl::StrCat(scheme.label, " seed ", seed));
    const Generated file =
        Write(*scheme.names, scheme.mixamo_armature, scheme.binary, seed);
    absl::StatusOr<GltfImport> imported =
        ImportGltfRig(file.path, GltfImportOptions());
    ASSERT_TRUE(imported.ok()) << imported.status();
    const v1::Rig& rig = imported->rig;
    const std::vector<Bone> bones = Humanoid();
    ASSERT_EQ(rig.joints_size(), static_cast<int>(bones.size()));
    // Parents as generated; the Armature node is not a joint.
    std::map<std::string, std::string> parents;
    for (const v1::Joint& joint : rig.joints()) {
      parents[joint.name()] = joint.parent();
    }
    for (size_t i = 0; i < bones.size(); ++i) {
      const std::string name = Sanitized(file.names[i]);
      ASSERT_EQ(parents.count(name), 1u) << name;
      EXPECT_EQ(parents[name], bones[i].parent == -1
                                   ? ""
                                   : Sanitized(file.names[bones[i].parent]))
          << name;
    }
    // The rest pose in model space is the file's, in metres.
    const std::map<std::string, glm::dmat4> model = RestModel(rig);
    for (size_t i = 0; i < bones.size(); ++i) {
      const glm::dmat4& got = model.at(Sanitized(file.names[i]));
      for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 3; ++row) {
          EXPECT_NEAR(got[column][row], file.model[i][column][row], 1e-6)
              << file.names[i] << " [" << column << "][" << row << "]";
        }
      }
    }
    // Proposed parts.
    std::map<std::string, std::pair<std::string, std::string>> chains;
    for (const v1::Chain& chain : rig.chains()) {
      chains[chain.name()] = {chain.root(), chain.tip()};
    }
    const Scheme& names = *scheme.names;
    auto name = [&names](const char* role) {
      return Sanitized(names.at(role));
    };
    EXPECT_EQ(chains.size(), 4u);
    EXPECT_EQ(chains["left_arm"],
              std::pair(name("left_upperarm"), name("left_hand")));
    EXPECT_EQ(chains["right_arm"],
              std::pair(name("right_upperarm"), name("right_hand")));
    EXPECT_EQ(chains["left_leg"],
              std::pair(name("left_thigh"), name("left_foot")));
    EXPECT_EQ(chains["right_leg"],
              std::pair(name("right_thigh"), name("right_foot")));
    ASSERT_EQ(rig.legs_size(), 2);
    const v1::Leg& left = rig.legs(0);
    EXPECT_EQ(left.hip(), name("left_thigh"));
    EXPECT_EQ(left.knee(), name("left_calf"));
    EXPECT_EQ(left.ankle(), name("left_foot"));
    EXPECT_EQ(left.toe(), name("left_toe"));
    // The ankle stands 0.08 m above the ground (y = 0; no joint is lower).
    EXPECT_NEAR(left.ankle_height(), 0.08, 1e-6);
    EXPECT_EQ(rig.forward().z(), 1.0);
    std::remove(file.path.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, GltfHumanoidTest,
    ::testing::Values(SchemeCase{"Mixamo", &MixamoNames(), true, false},
                      SchemeCase{"MixamoGlb", &MixamoNames(), true, true},
                      SchemeCase{"Vrm", &VrmNames(), false, false},
                      SchemeCase{"Common", &CommonNames(), false, true}),
    [](const auto& info) { return std::string(info.param.label); });

TEST(GltfRigTest, UnknownSkeletonGetsJointsOnlyAndChainsByHand) {
  Scheme numbered;
  int n = 0;
  for (const Bone& bone : Humanoid())
    numbered[bone.role] = absl::StrCat("bone", n++);
  const Generated file = Write(numbered, false, false, 7);
  absl::StatusOr<GltfImport> imported =
      ImportGltfRig(file.path, GltfImportOptions());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->rig.chains_size(), 0);
  EXPECT_EQ(imported->rig.legs_size(), 0);

  GltfImportOptions options;
  options.name = "tentacle";
  options.chains.push_back({"reach", "bone5", "bone8"});
  imported = ImportGltfRig(file.path, options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->rig.name(), "tentacle");
  ASSERT_EQ(imported->rig.chains_size(), 1);
  EXPECT_EQ(imported->rig.chains(0).root(), "bone5");
  EXPECT_EQ(imported->rig.chains(0).tip(), "bone8");

  options.chains = {{"across", "bone8", "bone12"}};  // not a root-to-tip path
  EXPECT_THAT(std::string(ImportGltfRig(file.path, options).status().message()),
              ::testing::StartsWith("--chain across=bone8:bone12: "));
  std::remove(file.path.c_str());
}

TEST(GltfRigTest, ImportsTheAssimpSampleSkin) {
  const std::string path = IK_GLTF_SAMPLES_DIR "/simple_skin/simple_skin.gltf";
  absl::StatusOr<GltfImport> imported = ImportGltfRig(path, {});
  ASSERT_TRUE(imported.ok()) << imported.status();
  const v1::Rig& rig = imported->rig;
  EXPECT_EQ(rig.name(), "simple_skin");
  ASSERT_EQ(rig.joints_size(), 2);
  // nodes[1] (translation 0, 1, 0) and its child nodes[2], both unnamed.
  EXPECT_EQ(rig.joints(0).name(), "joint_1");
  EXPECT_EQ(rig.joints(0).parent(), "");
  EXPECT_NEAR(rig.joints(0).rest().translation().y(), 1.0, 1e-12);
  EXPECT_EQ(rig.joints(1).name(), "joint_2");
  EXPECT_EQ(rig.joints(1).parent(), "joint_1");
  EXPECT_NEAR(rig.joints(1).rest().rotation().w(), 1.0, 1e-12);
  EXPECT_EQ(rig.chains_size(), 0);
}

TEST(GltfRigTest, BadFilesAreRefusedNamingTheProblem) {
  const std::string samples = IK_GLTF_SAMPLES_DIR;
  struct Case {
    std::string path;
    const char* message;
  };
  // A generated .glb cut short.
  const Generated whole = Write(VrmNames(), false, true, 11);
  std::ifstream in(whole.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  const std::string cut = whole.path + ".cut.glb";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  // Scales that overflow once multiplied down the hierarchy.
  const std::string overflow = whole.path + ".overflow.gltf";
  std::ofstream(overflow)
      << R"({"asset":{"version":"2.0"},"nodes":[{"name":"a","children":[1],)"
         R"("scale":[1e200,1e200,1e200]},{"name":"b","scale":[1e200,1,1]}],)"
         R"("skins":[{"joints":[0,1]}]})";
  const Case cases[] = {
      {samples + "/BoxTextured-glTF/BoxTextured.gltf",
       "skins: the file has no skin"},
      {samples + "/RecursiveNodes/RecursiveNodes.gltf",
       "nodes[0]: its ancestors form a cycle"},
      {cut, "not a glTF 2.0 file that loads"},
      {overflow, "nodes[1]: its model-space transform is not finite"},
      {samples + "/nothing-here.gltf", "not a glTF 2.0 file that loads"},
  };
  for (const Case& bad : cases) {
    absl::StatusOr<GltfImport> imported = ImportGltfRig(bad.path, {});
    ASSERT_FALSE(imported.ok()) << bad.path;
    EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(imported.status().message()),
                ::testing::StartsWith(bad.path + ": "));
    EXPECT_THAT(std::string(imported.status().message()),
                HasSubstr(bad.message));
  }
  GltfImportOptions second_skin;
  second_skin.skin = 1;
  EXPECT_THAT(
      std::string(ImportGltfRig(whole.path, second_skin).status().message()),
      HasSubstr("skins[1]: the file has 1 skin(s)"));
  for (const std::string& path : {whole.path, cut, overflow}) {
    std::remove(path.c_str());
  }
}

TEST(GltfRigTest, ImportedHumanoidRegistersAndItsArmSolves) {
  server::ServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = server::IkServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  ClientOptions client_options;
  client_options.target = absl::StrCat("127.0.0.1:", (*server)->port());
  Client client(client_options);
  const Generated file = Write(MixamoNames(), true, false, 5);
  absl::StatusOr<GltfImport> imported = ImportGltfRig(file.path, {});
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<v1::RegisterRigResponse> registered =
      client.RegisterRig(imported->rig);
  ASSERT_TRUE(registered.ok()) << registered.status();

  // A target 0.4 m from the left shoulder joint, in front: within reach.
  const glm::dvec3 shoulder(
      RestModel(imported->rig).at("mixamorig_LeftArm")[3]);
  v1::SolveChainRequest request;
  request.set_rig(imported->rig.name());
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("left_arm");
  goal->mutable_target()->set_x(shoulder.x + 0.2);
  goal->mutable_target()->set_y(shoulder.y - 0.2);
  goal->mutable_target()->set_z(shoulder.z + 0.28);
  absl::StatusOr<v1::SolveChainResponse> answer = client.SolveChain(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_TRUE(answer->results(0).reached()) << answer->results(0).residual();
  std::remove(file.path.c_str());
}

}  // namespace
}  // namespace ik
