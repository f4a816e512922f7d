#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/rig/pose_check.h"
#include "state/directory_loader.h"

namespace ik::server {
namespace {

using ::testing::HasSubstr;

class RigLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  static std::string ArmJson(const std::string& name) {
    return R"({"name": ")" + name + R"(", "joints": [
      {"name": "shoulder"},
      {"name": "elbow", "parent": "shoulder",
       "rest": {"translation": {"y": -0.3},
                "rotation": {"x": -0.0436194, "w": 0.9990482}}},
      {"name": "wrist", "parent_index": 1,
       "rest": {"translation": {"y": -0.25}}}],
      "chains": [{"name": "arm", "root": "shoulder", "tip": "wrist"}]})";
  }

  std::filesystem::path dir_;
  RigRegistry registry_{100};
};

TEST_F(RigLoaderTest, LoadsEveryJsonFileAndIgnoresOthers) {
  Write("a.json", ArmJson("arm_a"));
  Write("b.json", ArmJson("arm_b"));
  Write("notes.txt", "not a rig");
  absl::StatusOr<int> loaded =
      LoadRigDirectory(dir_.string(), ServiceLimits(), registry_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, 2);
  EXPECT_TRUE(registry_.Get({"arm_a", "name"}).ok());
  EXPECT_TRUE(registry_.Get({"arm_b", "name"}).ok());
}

TEST_F(RigLoaderTest, BadFieldNamesFileAndField) {
  Write("a.json", ArmJson("arm_a"));
  std::string bad = ArmJson("arm_b");
  bad.replace(bad.find("\"w\": 0.9990482"), 14, "\"w\": 0");
  Write("b.json", bad);
  absl::StatusOr<int> loaded =
      LoadRigDirectory(dir_.string(), ServiceLimits(), registry_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("b.json: "));
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr("joints[1].rest.rotation: not a unit quaternion"));
  // Nothing is registered when any file is bad.
  EXPECT_EQ(registry_.size(), 0);
}

TEST_F(RigLoaderTest, UnknownJsonFieldNamesFileAndField) {
  Write("typo.json", R"({"name": "x", "jointz": []})");
  absl::StatusOr<int> loaded =
      LoadRigDirectory(dir_.string(), ServiceLimits(), registry_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("typo.json"));
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("jointz"));
}

TEST_F(RigLoaderTest, SameRigNameInTwoFilesIsAnError) {
  Write("a.json", ArmJson("arm"));
  Write("b.json", ArmJson("arm"));
  absl::StatusOr<int> loaded =
      LoadRigDirectory(dir_.string(), ServiceLimits(), registry_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("a.json"));
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("b.json"));
}

TEST_F(RigLoaderTest, MissingDirectoryIsNotFound) {
  absl::StatusOr<int> loaded =
      LoadRigDirectory((dir_ / "missing").string(), ServiceLimits(), registry_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(RigLoaderTest, BundledExamplesLoad) {
  absl::StatusOr<int> loaded = LoadRigDirectory(
      std::string(IK_EXAMPLES_DIR) + "/rigs", ServiceLimits(), registry_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_GE(*loaded, 2);
  auto humanoid = registry_.Get({"humanoid", "name"});
  ASSERT_TRUE(humanoid.ok());
  for (const char* chain : {"left_arm", "right_arm", "left_leg", "right_leg"}) {
    EXPECT_NE((*humanoid)->rig().FindChain(chain), nullptr) << chain;
  }
  auto tail = registry_.Get({"tail", "name"});
  ASSERT_TRUE(tail.ok());
  ASSERT_FALSE((*tail)->rig().chains().empty());
  EXPECT_GE((*tail)->rig().chains()[0].joints.size(), 12u);
}

// The bundled rigs allow their rest pose and the identity pose (every
// local rotation the identity, as an engine's unanimated skeleton sends
// it): the pose check finds nothing on either.
TEST_F(RigLoaderTest, BundledRigsAllowTheirRestAndIdentityPoses) {
  ASSERT_TRUE(LoadRigDirectory(std::string(IK_EXAMPLES_DIR) + "/rigs",
                               ServiceLimits(), registry_)
                  .ok());
  for (const auto& entry : registry_.List()) {
    const Rig& rig = entry->rig();
    std::vector<Transform> rest(rig.rest_pose().begin(), rig.rest_pose().end());
    std::vector<Transform> identity = rest;
    for (Transform& local : identity) local.rotation = Quat(1, 0, 0, 0);
    for (const std::vector<Transform>* claimed : {&rest, &identity}) {
      std::vector<PoseViolation> violations;
      std::vector<Transform> repaired(claimed->size());
      PoseCheckJob check;
      check.rig = &rig;
      check.claimed = *claimed;
      check.violations = &violations;
      check.repaired = absl::MakeSpan(repaired);
      ASSERT_TRUE(check.Run().ok());
      for (const PoseViolation& violation : violations) {
        ADD_FAILURE() << rig.name() << " "
                      << (claimed == &rest ? "rest" : "identity")
                      << " pose: joint " << rig.joint(violation.joint).name
                      << " violates kind " << static_cast<int>(violation.kind)
                      << " by " << violation.amount;
      }
    }
  }
}

}  // namespace
}  // namespace ik::server
