#include "baselines.h"

#include <string>

#include "gtest/gtest.h"
#include "ik/compact_pose.h"

namespace ik::inspector {
namespace {

// A complete character: float32 rotations by position for `count` joints,
// joint k turned by k / 100 about z (w, z only), one translated joint.
v1::TickCharacter Complete(int count) {
  v1::TickCharacter character;
  character.set_id("a");
  character.set_rig("arm");
  character.set_revision("sha256:r1");
  v1::CompactPose& pose = *character.mutable_compact_pose();
  for (int k = 0; k < count; ++k) {
    for (const float v : {0.0f, 0.0f, k / 100.0f, 1.0f}) pose.add_rotations(v);
  }
  pose.add_translated_joints(1);
  for (const float v : {0.5f, 0.0f, 0.0f}) pose.add_translations(v);
  pose.mutable_root()->mutable_translation()->set_x(1.0);
  return character;
}

v1::TickResponse Answered(int characters, int failed = -1) {
  v1::TickResponse response;
  for (int i = 0; i < characters; ++i) {
    v1::TickCharacterResult* result = response.add_characters();
    result->set_revision("sha256:r1");
    if (i == failed) result->mutable_status()->set_code(3);
  }
  return response;
}

TEST(StreamBaselinesTest, CompletesACharacterFromItsLastCompletePose) {
  StreamBaselines baselines;
  v1::TickRequest first;
  *first.add_characters() = Complete(3);
  EXPECT_EQ(baselines.Complete(1, first), 0);
  baselines.Absorb(1, first, Answered(1));

  v1::TickRequest second;
  v1::TickCharacter& character = *second.add_characters();
  character.set_id("a");
  character.set_baseline(7);
  v1::CompactPose& sent = *character.mutable_compact_pose();
  sent.add_joints(2);
  for (const float v : {0.0f, 0.5f, 0.0f, 0.75f}) sent.add_rotations(v);
  sent.mutable_root()->mutable_translation()->set_x(2.0);
  EXPECT_EQ(baselines.Complete(1, second), 0);

  EXPECT_EQ(character.baseline(), 0u);
  EXPECT_EQ(character.rig(), "arm");
  EXPECT_EQ(character.revision(), "sha256:r1");
  const v1::CompactPose& pose = character.compact_pose();
  EXPECT_EQ(pose.root().translation().x(), 2.0);
  ASSERT_EQ(pose.joints_size(), 3);
  ASSERT_EQ(pose.rotations_size(), 12);
  EXPECT_EQ(pose.rotations(6), 0.01f);  // joint 1: kept
  EXPECT_EQ(pose.rotations(9), 0.5f);   // joint 2: sent
  EXPECT_EQ(pose.rotations(11), 0.75f);
  ASSERT_EQ(pose.translated_joints_size(), 1);  // kept
  EXPECT_EQ(pose.translations(0), 0.5f);
}

TEST(StreamBaselinesTest, KeepsQuantizedRotationsByteForByte) {
  StreamBaselines baselines;
  v1::TickRequest first;
  v1::TickCharacter& complete = *first.add_characters();
  complete.set_id("q");
  complete.set_rig("arm");
  const float rotations[] = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f};
  SetCompactRotations(rotations, RotationEncoding::kQuantized,
                      *complete.mutable_compact_pose());
  const std::string bytes = complete.compact_pose().quantized_rotations();
  baselines.Complete(4, first);
  baselines.Absorb(4, first, Answered(1));

  v1::TickRequest second;
  v1::TickCharacter& character = *second.add_characters();
  character.set_id("q");
  character.set_baseline(1);
  character.mutable_compact_pose();  // nothing changed
  EXPECT_EQ(baselines.Complete(4, second), 0);
  EXPECT_EQ(character.compact_pose().quantized_rotations(), bytes);
  EXPECT_EQ(character.compact_pose().rotations_size(), 0);
}

TEST(StreamBaselinesTest, CountsCharactersWhoseBaselineIsNotKnown) {
  StreamBaselines baselines;
  v1::TickRequest first;
  *first.add_characters() = Complete(2);
  *first.add_characters() = Complete(2);
  first.mutable_characters(1)->set_id("b");
  baselines.Complete(1, first);
  baselines.Absorb(1, first, Answered(2, /*failed=*/1));

  v1::TickRequest later;
  for (const char* id : {"a", "b", "c"}) {
    v1::TickCharacter* character = later.add_characters();
    character->set_id(id);
    character->set_baseline(1);
  }
  // "b" failed (it lost its baseline), "c" was never sent; another stream
  // knows none of them.
  EXPECT_EQ(baselines.Complete(1, later), 2);
  EXPECT_EQ(later.characters(0).baseline(), 0u);
  EXPECT_EQ(later.characters(1).baseline(), 1u);
  v1::TickRequest other = later;
  other.mutable_characters(0)->set_baseline(1);
  EXPECT_EQ(baselines.Complete(2, other), 3);
}

TEST(StreamBaselinesTest, ResyncForgetsTheStreamsBaselines) {
  StreamBaselines baselines;
  v1::TickRequest first;
  *first.add_characters() = Complete(2);
  baselines.Complete(1, first);
  baselines.Absorb(1, first, Answered(1));
  v1::TickRequest resync;
  resync.set_resync(true);
  v1::TickCharacter* character = resync.add_characters();
  character->set_id("a");
  character->set_baseline(1);
  EXPECT_EQ(baselines.Complete(1, resync), 1);
}

}  // namespace
}  // namespace ik::inspector
