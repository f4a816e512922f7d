#include "character_scene.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inspector_test_rig.h"
#include "rig_model.h"

namespace ik::inspector {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CharacterSceneTest : public ::testing::Test {
 protected:
  CharacterSceneTest() : model_(*BuildRigModel(TestRig())) {
    request_.set_id("c1");
    request_.set_rig("arm");
    request_.mutable_ground();
    request_.add_goals()->set_chain("arm");
    request_.mutable_dynamics();
    // The answer turned the elbow (the arm's and the leg's) and the wrist
    // (the arm's, the leg's and the tail's).
    for (const int joint : {2, 3}) {
      result_.add_joints(joint);
      for (const double v : {0.0, 0.0, 0.0, 1.0}) result_.add_rotations(v);
    }
    result_.add_goals()->set_reached(false);
    result_.mutable_dynamics()->add_results()->set_chain("tail");
  }

  std::string Json(bool job_rotations) {
    CharacterInput input;
    input.request = &request_;
    input.result = &result_;
    input.rig = &model_;
    input.job_rotations = job_rotations;
    JsonWriter json;
    WriteCharacterJson(input, json);
    return json.Take();
  }

  RigModel model_;
  v1::TickCharacter request_;
  v1::TickCharacterResult result_;
};

TEST_F(CharacterSceneTest, InfersTheJobsFromThePartsThatHoldEachJoint) {
  EXPECT_THAT(Json(false),
              HasSubstr(R"("moved_by":[[],[],["ground leg","goal arm"],)"
                        R"(["ground leg","goal arm","dynamics tail"],[],[]],)"
                        R"("moved_by_exact":false)"));
}

TEST_F(CharacterSceneTest, NamesExactlyTheJobsWhoseRotationsTurnedAJoint) {
  result_.mutable_goals(0)->add_rotations()->set_index(2);
  result_.mutable_dynamics()->mutable_results(0)->add_rotations()->set_index(3);
  EXPECT_THAT(Json(true), HasSubstr(R"("moved_by":[[],[],["goal arm"],)"
                                    R"(["dynamics tail"],[],[]])"));
}

TEST_F(CharacterSceneTest, FlagsFailedJobsViolationsAndUnreachedGoals) {
  EXPECT_THAT(Json(false), HasSubstr(R"("failed":false,"has_violation":false,)"
                                     R"("has_unreached":true)"));
  result_.mutable_goals_status()->set_code(5);
  request_.mutable_check();
  v1::PoseViolation& violation = *result_.mutable_check()->add_violations();
  violation.set_joint(2);
  violation.set_kind(v1::POSE_VIOLATION_OUTSIDE_LIMIT);
  violation.set_amount(0.25);
  const std::string json = Json(false);
  EXPECT_THAT(json, HasSubstr(R"("goals":{"code":5,"code_name":"NOT_FOUND")"));
  EXPECT_THAT(json, HasSubstr(R"("failed":true,"has_violation":true)"));
  EXPECT_THAT(json, HasSubstr(R"("violations":[{"joint":2,"name":"elbow",)"
                              R"("kind":"OUTSIDE_LIMIT","amount":0.25}])"));
}

TEST_F(CharacterSceneTest, PlacesTheTailsCollidersOnTheCorrectedPose) {
  result_.mutable_root()->mutable_translation()->set_x(3);
  EXPECT_THAT(Json(false), HasSubstr(R"("colliders":[{"name":"ball","joint":2,)"
                                     R"("shape":"sphere","start":[3,2.5,0],)"));
}

TEST_F(CharacterSceneTest, ShowsAFailedCharacterWithItsIncomingPoseOnly) {
  result_.mutable_status()->set_code(9);
  result_.mutable_status()->set_message("characters[0]: revision mismatch");
  const std::string json = Json(false);
  EXPECT_THAT(json, HasSubstr(R"("status":{"code":9,"code_name":)"
                              R"("FAILED_PRECONDITION","message":)"
                              R"("characters[0]: revision mismatch")"));
  EXPECT_THAT(json, HasSubstr(R"("corrected":null)"));
  EXPECT_THAT(json, Not(HasSubstr("moved_by")));
}

}  // namespace
}  // namespace ik::inspector
