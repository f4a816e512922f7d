// The tick's compact form over a real channel (ik.v1 CompactPose, float32
// dynamics states): a character sent compactly is answered as the same
// character sent as a Pose whose doubles are the compact numbers widened
// (and so, by tick_test.cc, as the single RPCs answer that pose), with its
// final pose and states in the compact form; bad compact input fails the
// character alone with its path.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crowd.h"
#include "gtest/gtest.h"
#include "ik/compact_pose.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

enum class Encoding { kFloat, kQuantized };

// Rotation k of quantized bytes, decoded as ik.v1 CompactPose describes it
// (written from the proto's text, not from the server's decoder).
Quat Dequantize(const std::string& bytes, int k) {
  std::uint64_t v = 0;
  for (int b = 0; b < 6; ++b) {
    v |= std::uint64_t{static_cast<unsigned char>(bytes[6 * k + b])} << (8 * b);
  }
  EXPECT_EQ(v >> 47, 0u) << "bit 47 set";
  const int largest = static_cast<int>(v & 3);
  double q[4];
  double squares = 0.0;
  int shift = 2;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double code = static_cast<double>((v >> shift) & 0x7FFF);
    q[i] = (code / 32767 * 2 - 1) / std::sqrt(2.0);
    squares += q[i] * q[i];
    shift += 15;
  }
  q[largest] = 1.0 - squares > 0.0 ? std::sqrt(1.0 - squares) : 0.0;
  return MakeQuat(q[0], q[1], q[2], q[3]);
}

// A crowd whose every character sends all 28 rotations packed (Pose),
// every third moves two bones (JointPose translations), and one stands
// scaled (its root's scale not 1).
v1::TickRequest PackedCrowd(std::uint64_t seed, int count) {
  v1::TickRequest crowd = TickTest::Crowd(seed, 2 * count);
  v1::TickRequest request = crowd;
  request.clear_characters();
  for (int k = 0; k < count; ++k) {
    v1::TickCharacter& character = *request.add_characters();
    character = crowd.characters(2 * k);
    if (k == 3) {
      *character.mutable_pose()->mutable_root()->mutable_scale() =
          Vec(1.25, 1.25, 1.25);
    }
    if (k % 3 != 1) continue;
    for (int joint : {5, 9}) {
      v1::JointPose& moved = *character.mutable_pose()->add_joints();
      moved.set_index(joint);
      *moved.mutable_local()->mutable_translation() =
          Vec(0.01 * k, 0.1 + 0.001 * joint, -0.02);
    }
  }
  return request;
}

// `character`'s pose in the compact form; its Pose becomes the one whose
// doubles are the compact numbers widened (what a caller of the single
// RPCs would send for it).
v1::CompactPose ToCompact(v1::TickCharacter& character, Encoding encoding) {
  v1::Pose& pose = *character.mutable_pose();
  v1::CompactPose compact;
  *compact.mutable_root() = pose.root();
  const int joints = pose.rotations_size() / 4;
  for (int j = 0; j < joints; ++j) {
    double* q = pose.mutable_rotations()->mutable_data() + 4 * j;
    if (encoding == Encoding::kFloat) {
      for (int i = 0; i < 4; ++i) {
        compact.add_rotations(static_cast<float>(q[i]));
        q[i] = static_cast<float>(q[i]);
      }
      continue;
    }
    const auto bytes = PackSmallestThree(q[0], q[1], q[2], q[3]);
    compact.mutable_quantized_rotations()->append(
        reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const Quat back = Dequantize(compact.quantized_rotations(), j);
    for (double value : {back.x, back.y, back.z, back.w}) *q++ = value;
  }
  for (v1::JointPose& moved : *pose.mutable_joints()) {
    compact.add_translated_joints(moved.index());
    v1::Vec3& t = *moved.mutable_local()->mutable_translation();
    for (double value : {t.x(), t.y(), t.z()}) {
      compact.add_translations(static_cast<float>(value));
    }
    t = Vec(static_cast<float>(t.x()), static_cast<float>(t.y()),
            static_cast<float>(t.z()));
  }
  return compact;
}

// The request `reference` with each character's pose sent compactly
// (alternating encodings), and `reference` changed to the widened poses.
v1::TickRequest Compact(v1::TickRequest& reference) {
  v1::TickRequest compact = reference;
  for (int k = 0; k < reference.characters_size(); ++k) {
    v1::TickCharacter& character = *reference.mutable_characters(k);
    v1::TickCharacter& sent = *compact.mutable_characters(k);
    *sent.mutable_compact_pose() = ToCompact(
        character, k % 2 == 0 ? Encoding::kFloat : Encoding::kQuantized);
    sent.clear_pose();
  }
  return compact;
}

// Every state of the dynamics answer `dynamics` as a compact answer gives
// it: `packed` rounded to float32 into `packed_floats`.
void FloatStates(v1::StepDynamicsResponse& dynamics) {
  for (v1::DynamicChainResult& chain : *dynamics.mutable_results()) {
    v1::DynamicChainState& state = *chain.mutable_state();
    ASSERT_GT(state.packed_size(), 0);
    for (double value : state.packed()) {
      state.add_packed_floats(static_cast<float>(value));
    }
    state.clear_packed();
  }
}

// The compact answer `got` against the answer `want` to the widened pose:
// the same jobs' answers and statuses, the final pose rounded into the
// compact form (quantized rotations within the precision contract).
void ExpectCompactAnswer(v1::TickCharacterResult want,
                         const v1::TickCharacterResult& got,
                         Encoding encoding) {
  SCOPED_TRACE(got.id());
  EXPECT_EQ(got.status().code(), 0) << got.status().message();
  EXPECT_FALSE(got.has_root());
  EXPECT_EQ(got.joints_size(), 0);
  EXPECT_EQ(got.rotations_size(), 0);
  v1::CompactPose& pose = *want.mutable_compact_pose();
  *pose.mutable_root() = want.root();
  *pose.mutable_joints() = want.joints();
  const int changed = want.joints_size();
  ASSERT_GT(changed, 10);
  if (encoding == Encoding::kFloat) {
    for (double value : want.rotations()) {
      pose.add_rotations(static_cast<float>(value));
    }
  } else {
    const std::string& bytes = got.compact_pose().quantized_rotations();
    ASSERT_EQ(bytes.size(), 6u * changed);
    for (int k = 0; k < changed; ++k) {
      const double* q = want.rotations().data() + 4 * k;
      EXPECT_TRUE(SameRotation(Dequantize(bytes, k),
                               MakeQuat(q[0], q[1], q[2], q[3]), 1.4e-4))
          << "joint " << want.joints(k);
    }
    pose.set_quantized_rotations(bytes);
  }
  want.clear_root();
  want.clear_joints();
  want.clear_rotations();
  if (want.has_dynamics()) FloatStates(*want.mutable_dynamics());
  EXPECT_EQ(DeterministicBytes(got), DeterministicBytes(want));
}

TEST_P(TickTest, ACompactPoseIsAnsweredAsItsWidenedPoseIsInTheCompactForm) {
  constexpr int kCount = 12;
  v1::TickRequest reference = PackedCrowd(404, kCount);
  reference.set_job_rotations(true);
  v1::TickRequest compact = Compact(reference);
  for (int tick = 0; tick < 2; ++tick) {
    SCOPED_TRACE(absl::StrCat("tick ", tick));
    v1::TickResponse want;
    v1::TickResponse got;
    grpc::Status status = Tick(reference, &want);
    ASSERT_TRUE(status.ok()) << status.error_message();
    status = Tick(compact, &got);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(got.characters_size(), kCount);
    for (int k = 0; k < kCount; ++k) {
      ExpectCompactAnswer(want.characters(k), got.characters(k),
                          k % 2 == 0 ? Encoding::kFloat : Encoding::kQuantized);
    }
    // The widened poses are answered as the single RPCs answer them.
    for (int k : {0, 1, 4}) {
      ExpectSameAsSingleRpcs(reference, k, want.characters(k));
    }
    // The next tick carries the states over: the compact answer's float32
    // states, and the same numbers widened for the reference.
    for (int k = 0; k < kCount; ++k) {
      v1::StepDynamicsRequest& sent =
          *compact.mutable_characters(k)->mutable_dynamics();
      v1::StepDynamicsRequest& widened =
          *reference.mutable_characters(k)->mutable_dynamics();
      sent.clear_states();
      widened.clear_states();
      for (const v1::DynamicChainResult& chain :
           got.characters(k).dynamics().results()) {
        *sent.add_states() = chain.state();
        v1::DynamicChainState& state = *widened.add_states();
        state = chain.state();
        ASSERT_GT(state.packed_floats_size(), 0);
        for (float value : state.packed_floats()) state.add_packed(value);
        state.clear_packed_floats();
      }
    }
  }
}

TEST_P(TickTest, BadCompactInputFailsTheCharacterAloneWithItsPath) {
  v1::TickRequest reference = PackedCrowd(17, 12);
  const v1::TickRequest good = Compact(reference);
  v1::TickRequest request = good;
  const auto character = [&](int k) -> v1::TickCharacter& {
    return *request.mutable_characters(k);
  };
  const auto pose = [&](int k) -> v1::CompactPose& {
    return *character(k).mutable_compact_pose();
  };
  // 0: a pose in both forms.
  character(0).mutable_pose()->add_rotations(1.0);
  // 2: joint 3's rotation is not unit.
  pose(2).set_rotations(12, 2.0f);
  // 4: a rotation short.
  pose(4).mutable_rotations()->RemoveLast();
  // 6: float and quantized rotations.
  pose(6).set_quantized_rotations(std::string(6, '\0'));
  // 8: joints listed out of order, then a listed joint out of range.
  for (int j : {0, 2, 1}) pose(8).add_joints(j);
  pose(10).clear_rotations();
  for (int j : {3, 40}) pose(10).add_joints(j);
  for (int i = 0; i < 8; ++i) pose(10).add_rotations(i % 4 == 3 ? 1.0f : 0.0f);
  // 1: bit 47 of joint 2's rotation set.
  (*pose(1).mutable_quantized_rotations())[6 * 2 + 5] |= '\x80';
  // 3: translations without their joints; 5: a translation not finite; 7:
  // float states mixed with double ones.
  pose(3).clear_translated_joints();
  pose(3).add_translations(0.1f);
  pose(5).clear_translated_joints();
  pose(5).clear_translations();
  pose(5).add_translated_joints(4);
  for (float value : {0.0f, NAN, 0.0f}) pose(5).add_translations(value);
  v1::DynamicChainState& state = *character(7).mutable_dynamics()->add_states();
  state.set_chain("ponytail");
  state.add_packed(0.0);
  state.add_packed_floats(0.0f);

  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const auto expect = [&](int k, const v1::JobStatus& job,
                          const std::string& field) {
    SCOPED_TRACE(absl::StrCat("character ", k));
    EXPECT_EQ(job.code(), grpc::INVALID_ARGUMENT) << job.message();
    EXPECT_EQ(job.field(), field) << job.message();
    EXPECT_EQ(job.message().rfind(field + ": ", 0), 0u) << job.message();
  };
  const auto at = [&](int k) -> const v1::TickCharacterResult& {
    return response.characters(k);
  };
  expect(0, at(0).status(), "characters[0].compact_pose");
  expect(2, at(2).status(), "characters[2].compact_pose.rotations[12]");
  EXPECT_NE(at(2).status().message().find("joint 3"), std::string::npos);
  expect(4, at(4).status(), "characters[4].compact_pose.rotations");
  expect(6, at(6).status(), "characters[6].compact_pose.quantized_rotations");
  expect(8, at(8).status(), "characters[8].compact_pose.joints[2]");
  expect(10, at(10).status(), "characters[10].compact_pose.joints[1]");
  expect(1, at(1).status(),
         "characters[1].compact_pose.quantized_rotations[12]");
  expect(3, at(3).status(), "characters[3].compact_pose.translations");
  expect(5, at(5).status(), "characters[5].compact_pose.translations[0]");
  expect(7, at(7).dynamics_status(), "characters[7].dynamics.states[0].packed");
  // A failed character runs no job and leaves no pose.
  EXPECT_FALSE(at(2).has_compact_pose());
  EXPECT_FALSE(at(2).has_ground());
  // The others are answered as without the bad ones.
  v1::TickResponse clean;
  ASSERT_TRUE(Tick(good, &clean).ok());
  for (int k : {9, 11}) {
    EXPECT_EQ(DeterministicBytes(response.characters(k)),
              DeterministicBytes(clean.characters(k)))
        << "character " << k;
  }
  EXPECT_EQ(DeterministicBytes(response.characters(7).ground()),
            DeterministicBytes(clean.characters(7).ground()));
}

TEST_P(TickTest, TheCheckReadsACompactPoseAsClaimed) {
  v1::TickRequest reference = PackedCrowd(23, 2);
  v1::TickRequest request = Compact(reference);
  v1::TickCharacter& claimed = *request.mutable_characters(0);
  claimed.mutable_check();
  claimed.mutable_compact_pose()->set_rotations(4 * 6 + 3, NAN);
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::TickCharacterResult& out = response.characters(0);
  EXPECT_EQ(out.status().code(), 0) << out.status().message();
  int not_finite = 0;
  for (const v1::PoseViolation& violation : out.check().violations()) {
    if (violation.kind() == v1::POSE_VIOLATION_ROTATION_NOT_FINITE) {
      EXPECT_EQ(violation.joint(), 6);
      ++not_finite;
    }
  }
  EXPECT_EQ(not_finite, 1);
  EXPECT_TRUE(out.has_compact_pose());
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, TickTest, ::testing::Values(1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "threads");
                         });

}  // namespace
}  // namespace ik::server
