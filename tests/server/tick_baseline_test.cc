// Baselines on a TickStream over a real channel (ik.v1
// TickCharacter.baseline): a character that sends only what changed since
// its previous tick on the stream -- no rig, the joints whose rotation
// changed, no dynamics states -- is answered as the same character sent
// complete on a stream of its own, bit for bit (less the states, which the
// stream keeps); a baseline the stream does not keep fails that character
// alone with its path, and a broken stream is resumed by sending complete
// characters again.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crowd.h"
#include "gtest/gtest.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

using Stream = grpc::ClientReaderWriter<v1::TickRequest, v1::TickResponse>;

// One TickStream: a tick written, its answer read.
class OpenStream {
 public:
  explicit OpenStream(v1::IkService::Stub& stub)
      : stream_(stub.TickStream(&context_)) {}
  ~OpenStream() { Close(); }

  v1::TickResponse Tick(const v1::TickRequest& request) {
    v1::TickResponse answer;
    EXPECT_TRUE(stream_->Write(request));
    EXPECT_TRUE(stream_->Read(&answer));
    return answer;
  }

  void Close() {
    if (stream_ == nullptr) return;
    stream_->WritesDone();
    const grpc::Status status = stream_->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    stream_.reset();
  }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<Stream> stream_;
};

// The crowd's tick `complete` with each character built on its previous
// tick `previous` (its sequence; `sent`: that tick's request): no rig, only
// the rotations that changed, no dynamics states.
v1::TickRequest OnBaselines(const v1::TickRequest& complete,
                            const v1::TickRequest& sent) {
  v1::TickRequest request = complete;
  for (int k = 0; k < request.characters_size(); ++k) {
    v1::TickCharacter& character = *request.mutable_characters(k);
    const v1::CompactPose& before = sent.characters(k).compact_pose();
    character.set_baseline(sent.sequence());
    character.clear_rig();
    character.mutable_dynamics()->clear_states();
    v1::CompactPose& pose = *character.mutable_compact_pose();
    const v1::CompactPose now = pose;
    pose.clear_rotations();
    pose.clear_quantized_rotations();
    const bool quantized = !now.quantized_rotations().empty();
    const int joints =
        quantized ? static_cast<int>(now.quantized_rotations().size()) / 6
                  : now.rotations_size() / 4;
    for (int j = 0; j < joints; ++j) {
      if (quantized) {
        const std::string mine = now.quantized_rotations().substr(6 * j, 6);
        if (mine == before.quantized_rotations().substr(6 * j, 6)) continue;
        pose.add_joints(j);
        pose.mutable_quantized_rotations()->append(mine);
        continue;
      }
      bool same = true;
      for (int i = 0; i < 4; ++i) {
        same = same && now.rotations(4 * j + i) == before.rotations(4 * j + i);
      }
      if (same) continue;
      pose.add_joints(j);
      for (int i = 0; i < 4; ++i) pose.add_rotations(now.rotations(4 * j + i));
    }
  }
  return request;
}

// `answer` less its dynamics states and its revision: what a character
// built on its baseline, without its rig, is answered.
v1::TickCharacterResult WithoutStates(v1::TickCharacterResult answer) {
  EXPECT_FALSE(answer.revision().empty());
  answer.clear_revision();
  for (v1::DynamicChainResult& chain :
       *answer.mutable_dynamics()->mutable_results()) {
    EXPECT_TRUE(chain.has_state());
    chain.clear_state();
  }
  return answer;
}

class TickBaselineTest : public TickTest {
 protected:
  v1::Rig Humanoid() {
    v1::GetRigRequest request;
    request.set_name("humanoid");
    v1::GetRigResponse response;
    EXPECT_TRUE(stub_->GetRig(Context().get(), request, &response).ok());
    return response.rig();
  }

  SyntheticCrowd Crowd(CrowdPoseForm form, int characters) {
    CrowdOptions options;
    options.characters = characters;
    options.pose_form = form;
    return SyntheticCrowd(Humanoid(), options);
  }
};

TEST_P(TickBaselineTest, ACharacterOnItsBaselineIsAnsweredAsTheCompleteOne) {
  for (CrowdPoseForm form :
       {CrowdPoseForm::kCompact, CrowdPoseForm::kCompactQuantized}) {
    SCOPED_TRACE(form == CrowdPoseForm::kCompact ? "float32" : "quantized");
    SyntheticCrowd crowd = Crowd(form, 16);
    OpenStream complete(*stub_);
    OpenStream based(*stub_);
    v1::TickRequest previous;
    size_t complete_bytes = 0;
    size_t based_bytes = 0;
    for (int t = 0; t < 5; ++t) {
      const v1::TickRequest request = crowd.NextTick();
      const v1::TickResponse want = complete.Tick(request);
      const v1::TickRequest lean =
          t == 0 ? request : OnBaselines(request, previous);
      const v1::TickResponse got = based.Tick(lean);
      ASSERT_EQ(got.characters_size(), 16);
      for (int k = 0; k < 16; ++k) {
        SCOPED_TRACE(absl::StrCat("tick ", t, ", character ", k));
        const v1::TickCharacterResult& answer = got.characters(k);
        EXPECT_EQ(answer.status().code(), 0) << answer.status().message();
        EXPECT_EQ(answer.dynamics().results_size(), 1);
        if (t == 0) {
          EXPECT_EQ(DeterministicBytes(answer),
                    DeterministicBytes(want.characters(k)));
          continue;
        }
        EXPECT_EQ(DeterministicBytes(answer),
                  DeterministicBytes(WithoutStates(want.characters(k))));
      }
      if (t > 0) {
        complete_bytes += request.ByteSizeLong() + want.ByteSizeLong();
        based_bytes += lean.ByteSizeLong() + got.ByteSizeLong();
      }
      crowd.Absorb(want);
      previous = request;
    }
    // The stream's baselines really leave bytes out (a quarter at least,
    // with every job's answer in full).
    EXPECT_LT(4 * based_bytes, 3 * complete_bytes);
  }
}

TEST_P(TickBaselineTest, ABaselineTheStreamDoesNotKeepFailsTheCharacterAlone) {
  SyntheticCrowd crowd = Crowd(CrowdPoseForm::kCompact, 8);
  const auto expect = [](const v1::TickCharacterResult& out,
                         grpc::StatusCode code, const std::string& field) {
    SCOPED_TRACE(out.id());
    EXPECT_EQ(out.status().code(), code) << out.status().message();
    EXPECT_EQ(out.status().field(), field);
    EXPECT_EQ(out.status().message().rfind(field + ": ", 0), 0u)
        << out.status().message();
    EXPECT_FALSE(out.has_compact_pose());
  };
  OpenStream stream(*stub_);
  v1::TickRequest first = crowd.NextTick();
  // A new stream keeps no baseline.
  first.mutable_characters(2)->set_baseline(first.sequence() - 1 + 1);
  v1::TickResponse answer = stream.Tick(first);
  expect(answer.characters(2), grpc::FAILED_PRECONDITION,
         "characters[2].baseline");
  EXPECT_EQ(answer.characters(3).status().code(), 0);
  crowd.Absorb(answer);

  const v1::TickRequest complete = crowd.NextTick();
  v1::TickRequest request = OnBaselines(complete, first);
  // 2 failed in the tick before: it has no baseline.
  // 4 names a tick that is not the stream's previous one.
  request.mutable_characters(4)->set_baseline(first.sequence() + 7);
  // 5 sends its changed joints quantized on a float32 baseline.
  request.mutable_characters(5)->mutable_compact_pose()->clear_rotations();
  request.mutable_characters(5)
      ->mutable_compact_pose()
      ->set_quantized_rotations(std::string(
          6 * request.characters(5).compact_pose().joints_size(), '\0'));
  // 6 lists a joint twice.
  v1::CompactPose& six = *request.mutable_characters(6)->mutable_compact_pose();
  six.set_joints(1, six.joints(0));
  answer = stream.Tick(request);
  expect(answer.characters(2), grpc::FAILED_PRECONDITION,
         "characters[2].baseline");
  expect(answer.characters(4), grpc::FAILED_PRECONDITION,
         "characters[4].baseline");
  expect(answer.characters(5), grpc::INVALID_ARGUMENT,
         "characters[5].compact_pose");
  expect(answer.characters(6), grpc::INVALID_ARGUMENT,
         "characters[6].compact_pose.joints[1]");
  for (int k : {0, 1, 3, 7}) {
    EXPECT_EQ(answer.characters(k).status().code(), 0)
        << answer.characters(k).status().message();
  }

  // After resync the stream keeps nothing: every baseline fails, complete
  // characters are answered, and the tick after builds on them again.
  v1::TickRequest resync = OnBaselines(crowd.NextTick(), request);
  resync.set_resync(true);
  answer = stream.Tick(resync);
  for (int k = 0; k < 8; ++k) {
    expect(answer.characters(k), grpc::FAILED_PRECONDITION,
           absl::StrCat("characters[", k, "].baseline"));
  }
  v1::TickRequest again = crowd.NextTick();
  again.set_resync(true);
  answer = stream.Tick(again);
  for (const v1::TickCharacterResult& out : answer.characters()) {
    EXPECT_EQ(out.status().code(), 0) << out.status().message();
  }
  crowd.Absorb(answer);
  answer = stream.Tick(OnBaselines(crowd.NextTick(), again));
  for (const v1::TickCharacterResult& out : answer.characters()) {
    EXPECT_EQ(out.status().code(), 0) << out.status().message();
  }

  // A unary Tick keeps no baselines.
  v1::TickResponse unary;
  ASSERT_TRUE(
      stub_->Tick(Context().get(), OnBaselines(again, again), &unary).ok());
  expect(unary.characters(0), grpc::INVALID_ARGUMENT, "characters[0].baseline");
}

TEST_P(TickBaselineTest, ABrokenStreamIsResumedWithCompleteCharacters) {
  SyntheticCrowd crowd = Crowd(CrowdPoseForm::kCompact, 6);
  v1::TickRequest last;
  {
    OpenStream stream(*stub_);
    last = crowd.NextTick();
    crowd.Absorb(stream.Tick(last));
    const v1::TickRequest next = crowd.NextTick();
    const v1::TickResponse answer = stream.Tick(OnBaselines(next, last));
    for (const v1::TickCharacterResult& out : answer.characters()) {
      EXPECT_EQ(out.status().code(), 0) << out.status().message();
    }
    last = next;
    // The stream's answers left the states out: the caller keeps those of
    // the complete tick it last sent, which the next complete tick carries
    // anyway (a resumed stream starts from what the caller sends).
  }
  // A new stream (another connection, another replica): baselines fail,
  // complete characters go through and become baselines again.
  OpenStream resumed(*stub_);
  const v1::TickRequest next = crowd.NextTick();
  v1::TickResponse answer = resumed.Tick(OnBaselines(next, last));
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(answer.characters(k).status().code(), grpc::FAILED_PRECONDITION);
    EXPECT_EQ(answer.characters(k).status().field(),
              absl::StrCat("characters[", k, "].baseline"));
  }
  answer = resumed.Tick(next);
  for (const v1::TickCharacterResult& out : answer.characters()) {
    EXPECT_EQ(out.status().code(), 0) << out.status().message();
  }
  crowd.Absorb(answer);
  answer = resumed.Tick(OnBaselines(crowd.NextTick(), next));
  for (const v1::TickCharacterResult& out : answer.characters()) {
    EXPECT_EQ(out.status().code(), 0) << out.status().message();
    EXPECT_FALSE(out.dynamics().results(0).has_state());
  }
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, TickBaselineTest, ::testing::Values(1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "threads");
                         });

}  // namespace
}  // namespace ik::server
