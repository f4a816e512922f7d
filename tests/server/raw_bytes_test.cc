// Bytes that are not the request, over a real channel: a unary call is
// answered INVALID_ARGUMENT naming the type it should have been (gRPC's
// callback API alone answers UNIMPLEMENTED with no message), and on a
// TickStream such a message is answered like a failed tick -- with its
// status -- while the stream goes on to the next tick.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <random>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/wire/tick_bytes.pb.h"
#include "pool_fixture.h"
#include "rpc/raw_call.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::LightReach;
using ::testing::HasSubstr;

// An invalid tag and an unfinished varint: no protobuf message parses it.
const std::string kNotAMessage("\xff\xff\xff\xff\xff", 5);

grpc::ByteBuffer Bytes(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

grpc::ByteBuffer Bytes(const google::protobuf::Message& message) {
  return Bytes(message.SerializeAsString());
}

// The example rigs on a server of its own.
class RawBytesTest : public IkServiceTest {
 protected:
  void SetUp() override { StartServer(::ik::testing::OneWorkerServer()); }
};

TEST_F(RawBytesTest, UndecodableRequestsAreInvalidArgument) {
  grpc::GenericStub stub(channel_);
  for (const char* method : {"SolveChain", "GroundFeet", "StepDynamics", "Tick",
                             "RegisterRig", "GetRig", "DeleteTerrain"}) {
    grpc::ClientContext context;
    const grpc::ByteBuffer request = Bytes(kNotAMessage);
    grpc::ByteBuffer response;
    grpc::Status status;
    absl::Notification done;
    stub.UnaryCall(&context, std::string("/ik.v1.IkService/") + method, {},
                   &request, &response, [&](grpc::Status s) {
                     status = std::move(s);
                     done.Notify();
                   });
    done.WaitForNotification();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << method;
    EXPECT_THAT(status.error_message(),
                HasSubstr(std::string("bytes do not parse as ik.v1.") + method +
                          "Request"));
  }
}

// A TickStream client on bytes: writes each message, then reads an answer.
class RawTickStream
    : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  RawTickStream(grpc::GenericStub& stub, std::vector<grpc::ByteBuffer> ticks)
      : ticks_(std::move(ticks)) {
    stub.PrepareBidiStreamingCall(&context_, "/ik.v1.IkService/TickStream", {},
                                  this);
    StartCall();
    Next();
  }

  void OnWriteDone(bool ok) override {
    if (ok) StartRead(&answer_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    v1::TickResponse response;
    std::vector<grpc::Slice> slices;
    answer_.Dump(&slices);
    std::string bytes;
    for (const grpc::Slice& slice : slices) {
      bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    response.ParseFromString(bytes);
    answers_.push_back(response);
    Next();
  }
  void OnDone(const grpc::Status& status) override {
    status_ = status;
    done_.Notify();
  }

  const std::vector<v1::TickResponse>& Wait() {
    done_.WaitForNotification();
    return answers_;
  }
  const grpc::Status& status() const { return status_; }

 private:
  void Next() {
    if (sent_ < ticks_.size()) {
      StartWrite(&ticks_[sent_++]);
    } else {
      StartWritesDone();
    }
  }

  grpc::ClientContext context_;
  std::vector<grpc::ByteBuffer> ticks_;
  size_t sent_ = 0;
  grpc::ByteBuffer answer_;
  std::vector<v1::TickResponse> answers_;
  grpc::Status status_;
  absl::Notification done_;
};

TEST_F(RawBytesTest, AnUndecodableTickIsAnsweredAndTheStreamGoesOn) {
  v1::TickRequest tick;
  tick.set_sequence(2);
  v1::TickCharacter* character = tick.add_characters();
  character->set_rig("humanoid");
  *character->add_goals() = LightReach().goals(0);
  grpc::GenericStub stub(channel_);
  RawTickStream stream(stub, {Bytes(kNotAMessage), Bytes(tick)});
  const std::vector<v1::TickResponse>& answers = stream.Wait();
  EXPECT_TRUE(stream.status().ok()) << stream.status().error_message();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].status().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(answers[0].status().message(),
              HasSubstr("bytes do not parse as ik.v1.TickRequest"));
  EXPECT_EQ(answers[1].sequence(), 2u);
  EXPECT_EQ(answers[1].status().code(), 0);
  ASSERT_EQ(answers[1].characters_size(), 1);
  EXPECT_EQ(answers[1].characters(0).goals_size(), 1)
      << answers[1].characters(0).status().message();
}

// A tick whose frame is sound but one character's bytes are not a
// TickCharacter: that character fails alone, on a unary Tick and on a
// TickStream alike.
TEST_F(RawBytesTest, ACharacterWhoseBytesDoNotParseFailsAlone) {
  v1::TickCharacter character;
  character.set_id("good");
  character.set_rig("humanoid");
  *character.add_goals() = LightReach().goals(0);
  wire::TickRequestBytes tick;
  tick.set_sequence(5);
  tick.add_characters(character.SerializeAsString());
  tick.add_characters(kNotAMessage);
  tick.add_characters(character.SerializeAsString());
  const auto expect = [](const v1::TickResponse& answer) {
    EXPECT_EQ(answer.sequence(), 5u);
    ASSERT_EQ(answer.characters_size(), 3);
    const v1::JobStatus& bad = answer.characters(1).status();
    EXPECT_EQ(bad.code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(bad.field(), "characters[1]");
    EXPECT_EQ(bad.message(),
              "characters[1]: its 5 bytes do not parse as "
              "ik.v1.TickCharacter");
    for (int k : {0, 2}) {
      EXPECT_EQ(answer.characters(k).id(), "good");
      EXPECT_EQ(answer.characters(k).goals_size(), 1)
          << answer.characters(k).status().message();
    }
  };
  grpc::GenericStub stub(channel_);
  grpc::ClientContext context;
  const grpc::ByteBuffer request = Bytes(tick);
  grpc::ByteBuffer response;
  grpc::Status status;
  absl::Notification done;
  stub.UnaryCall(&context, "/ik.v1.IkService/Tick", {}, &request, &response,
                 [&](grpc::Status s) {
                   status = std::move(s);
                   done.Notify();
                 });
  done.WaitForNotification();
  ASSERT_TRUE(status.ok()) << status.error_message();
  v1::TickResponse answer;
  ASSERT_TRUE(grpc::SerializationTraits<v1::TickResponse>::Deserialize(
                  &response, &answer)
                  .ok());
  expect(answer);

  RawTickStream stream(stub, {Bytes(tick)});
  const std::vector<v1::TickResponse>& answers = stream.Wait();
  EXPECT_TRUE(stream.status().ok()) << stream.status().error_message();
  ASSERT_EQ(answers.size(), 1u);
  expect(answers[0]);
}

// A tick's answer written without copying its characters has the bytes
// SerializeToString gives, for answers of every length class (empty, one-
// and multi-byte varint lengths), with and without the other fields.
TEST(TickAnswerBytesTest, MovedCharactersGiveTheSerializedBytes) {
  std::mt19937 engine(7);
  for (int trial = 0; trial < 40; ++trial) {
    wire::TickResponseBytes answer;
    const int count = static_cast<int>(engine() % 6);
    for (int k = 0; k < count; ++k) {
      constexpr size_t kLengths[] = {0, 1, 127, 128, 16383, 16384, 70000};
      std::string bytes(kLengths[engine() % 7], '\0');
      for (char& c : bytes) c = static_cast<char>(engine());
      answer.add_characters(std::move(bytes));
    }
    if (trial % 2 == 1) answer.set_sequence(engine());
    if (trial % 3 == 1) answer.mutable_status()->set_message("refused");
    const std::string expected = answer.SerializeAsString();
    grpc::ByteBuffer buffer;
    ASSERT_TRUE(SerializeAnswer(answer, &buffer).ok());
    EXPECT_EQ(answer.characters_size(), 0);
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(buffer.Dump(&slices).ok());
    std::string written;
    for (const grpc::Slice& slice : slices) {
      written.append(reinterpret_cast<const char*>(slice.begin()),
                     slice.size());
    }
    EXPECT_EQ(written, expected) << "trial " << trial;
  }
}

// A tick's sequence read without parsing the request is the one a full
// parse gives, wherever the bytes are split into slices, whatever comes
// before or after it (or twice: the last wins); a request cut short gives 0.
TEST(TickSequenceTest, ReadsWhatAFullParseReads) {
  std::mt19937 engine(11);
  for (int trial = 0; trial < 60; ++trial) {
    v1::TickRequest tick;
    const int characters = static_cast<int>(engine() % 5);
    for (int c = 0; c < characters; ++c) {
      v1::TickCharacter* character = tick.add_characters();
      character->set_rig(std::string(engine() % 300, 'r'));
      character->set_baseline(engine());
    }
    if (trial % 2 == 0) tick.set_sequence(engine() | (std::uint64_t{1} << 40));
    if (trial % 3 == 0) tick.set_job_rotations(true);
    std::string bytes = tick.SerializeAsString();
    if (trial % 5 == 0) {  // a second sequence after the rest
      v1::TickRequest later;
      later.set_sequence(engine());
      bytes += later.SerializeAsString();
    }
    v1::TickRequest parsed;
    ASSERT_TRUE(parsed.ParseFromString(bytes));
    // In up to three slices.
    const size_t first = bytes.empty() ? 0 : engine() % bytes.size();
    const size_t second = first + (bytes.size() - first) / 2;
    std::vector<grpc::Slice> slices;
    slices.emplace_back(bytes.data(), first);
    slices.emplace_back(bytes.data() + first, second - first);
    slices.emplace_back(bytes.data() + second, bytes.size() - second);
    const grpc::ByteBuffer buffer(slices.data(), slices.size());
    EXPECT_EQ(TickSequence(buffer), parsed.sequence()) << "trial " << trial;
    if (bytes.size() > 2 && characters > 0) {
      const grpc::Slice cut(bytes.data(), bytes.size() - 1);
      EXPECT_EQ(TickSequence(grpc::ByteBuffer(&cut, 1)), 0u)
          << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace ik::server
