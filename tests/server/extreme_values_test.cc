// Extreme finite numbers in every numeric field a request can carry, over a
// real channel: a seeded generator takes valid requests of every solving
// RPC (a tick of every job kind with its states carried, a pose check, a
// smoothed grounding, poles, swivels, orientations and wind; SolveChain,
// GroundFeet and StepDynamics alone), sets one to three of their numbers to
// +-1e308, the largest double, the smallest normal or a subnormal, and
// checks what comes back: an answer whose every number is finite, or an
// error -- of the call or of a tick's job -- whose message starts with the
// request's field path. No number in an answer may be an infinity or a NaN
// that no input held.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A numeric leaf of a message: field `field` of `message`, element `index`
// of a repeated field (-1: not repeated).
struct Leaf {
  Message* message;
  const FieldDescriptor* field;
  int index;
};

// Every double and float that is set in `message`, depth first.
void CollectLeaves(Message& message, std::vector<Leaf>& leaves) {
  const Reflection& reflection = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const bool number = field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE ||
                        field->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT;
    const bool nested = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (!number && !nested) continue;
    if (!field->is_repeated()) {
      if (number) {
        leaves.push_back({&message, field, -1});
      } else {
        CollectLeaves(*reflection.MutableMessage(&message, field), leaves);
      }
      continue;
    }
    for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
      if (number) {
        leaves.push_back({&message, field, i});
      } else {
        CollectLeaves(*reflection.MutableRepeatedMessage(&message, field, i),
                      leaves);
      }
    }
  }
}

void Set(const Leaf& leaf, double value) {
  const Reflection& reflection = *leaf.message->GetReflection();
  const bool is_float =
      leaf.field->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT;
  // A float field takes the float extremes (a double's would not be finite).
  const float narrow = std::abs(value) > FLT_MAX ? std::copysign(FLT_MAX, value)
                       : std::abs(value) > 0.0 && std::abs(value) < FLT_TRUE_MIN
                           ? std::copysign(FLT_TRUE_MIN, value)
                           : static_cast<float>(value);
  if (leaf.index < 0) {
    if (is_float) {
      reflection.SetFloat(leaf.message, leaf.field, narrow);
    } else {
      reflection.SetDouble(leaf.message, leaf.field, value);
    }
  } else if (is_float) {
    reflection.SetRepeatedFloat(leaf.message, leaf.field, leaf.index, narrow);
  } else {
    reflection.SetRepeatedDouble(leaf.message, leaf.field, leaf.index, value);
  }
}

// One to three numbers of `request` set to extreme finite values; the
// fields changed, for the failure message.
std::string Mutate(Message& request, std::mt19937_64& engine) {
  static constexpr double kExtremes[] = {1e308,   -1e308,   DBL_MAX,  -DBL_MAX,
                                         DBL_MIN, -DBL_MIN, 4.9e-324, -1e-310,
                                         1e154,   -1e154,   1e-160,   3e38};
  std::vector<Leaf> leaves;
  CollectLeaves(request, leaves);
  std::string changed;
  const int count = 1 + static_cast<int>(engine() % 3);
  for (int n = 0; n < count && !leaves.empty(); ++n) {
    const Leaf& leaf = leaves[engine() % leaves.size()];
    const double value = kExtremes[engine() % std::size(kExtremes)];
    Set(leaf, value);
    absl::StrAppend(&changed, leaf.message->GetDescriptor()->name(), ".",
                    leaf.field->name(), leaf.index >= 0 ? "[]" : "", "=", value,
                    " ");
  }
  return changed;
}

// "characters[3].goals[0].target.x: ..." -- a field path, then ": ".
bool StartsWithFieldPath(const std::string& message) {
  static const std::regex kPath(
      R"re(^[a-z_]+(\[[0-9]+\])*(\.[a-z_]+(\[[0-9]+\])*)*: )re");
  return std::regex_search(message, kPath);
}

// Every number of `answer` finite; every job status that is not OK names
// its field path.
void ExpectFiniteAnswer(const Message& answer, const std::string& where) {
  const Reflection& reflection = *answer.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(answer, &fields);
  if (answer.GetDescriptor()->name() == "JobStatus") {
    const auto* code = answer.GetDescriptor()->FindFieldByName("code");
    const auto* message = answer.GetDescriptor()->FindFieldByName("message");
    if (reflection.GetInt32(answer, code) != 0) {
      const std::string text = reflection.GetString(answer, message);
      EXPECT_TRUE(StartsWithFieldPath(text)) << where << ": " << text;
    }
  }
  for (const FieldDescriptor* field : fields) {
    const std::string path = absl::StrCat(where, ".", field->name());
    const int size =
        field->is_repeated() ? reflection.FieldSize(answer, field) : 1;
    for (int i = 0; i < size; ++i) {
      const bool repeated = field->is_repeated();
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_DOUBLE: {
          const double value =
              repeated ? reflection.GetRepeatedDouble(answer, field, i)
                       : reflection.GetDouble(answer, field);
          EXPECT_TRUE(std::isfinite(value)) << path << " = " << value;
          break;
        }
        case FieldDescriptor::CPPTYPE_FLOAT: {
          const float value =
              repeated ? reflection.GetRepeatedFloat(answer, field, i)
                       : reflection.GetFloat(answer, field);
          EXPECT_TRUE(std::isfinite(value)) << path << " = " << value;
          break;
        }
        case FieldDescriptor::CPPTYPE_MESSAGE:
          ExpectFiniteAnswer(
              repeated ? reflection.GetRepeatedMessage(answer, field, i)
                       : reflection.GetMessage(answer, field),
              repeated ? absl::StrCat(path, "[", i, "]") : path);
          break;
        default:
          break;
      }
    }
  }
}

// What a call gave: a finite answer or an error naming its field.
void ExpectFiniteOrFieldError(const grpc::Status& status, const Message& answer,
                              const std::string& changed) {
  SCOPED_TRACE(changed);
  if (status.ok()) {
    ExpectFiniteAnswer(answer, answer.GetDescriptor()->name());
  } else {
    EXPECT_NE(status.error_code(), grpc::StatusCode::INTERNAL)
        << status.error_message();
    EXPECT_TRUE(StartsWithFieldPath(status.error_message()))
        << status.error_message();
  }
}

// The crowd with every optional number set somewhere: a pose check (on a
// pose with a moved bone), a
// smoothed grounding with a tolerance, a pole, a swivel and an orientation
// on the goals, wind, and the states of a first tick carried.
class ExtremeValuesTest : public TickTest {
 protected:
  v1::TickRequest FullCrowd(std::uint64_t seed) {
    v1::TickRequest request = Crowd(seed, 4);
    v1::TickCharacter& checked = *request.mutable_characters(0);
    checked.mutable_check()->set_tolerance(0.01);
    v1::JointPose& moved = *checked.mutable_pose()->add_joints();
    moved.set_index(5);
    *moved.mutable_local()->mutable_translation() = Vec(0.01, 0.2, -0.01);
    *moved.mutable_local()->mutable_scale() = Vec(1.0, 1.0, 1.0);
    v1::GroundFeetRequest& ground =
        *request.mutable_characters(1)->mutable_ground();
    v1::GroundSmoothing& smoothing = *ground.mutable_smoothing();
    smoothing.set_previous_pelvis_drop(0.02);
    *smoothing.add_previous_foot_offsets() = Vec(0.0, 0.01, 0.0);
    *smoothing.add_previous_foot_offsets() = Vec(0.0, -0.01, 0.0);
    smoothing.set_delta_time(1.0 / 60.0);
    smoothing.set_max_pelvis_speed(1.0);
    smoothing.set_max_foot_speed(2.0);
    ground.set_tolerance(0.002);
    v1::ChainGoal& pole = *request.mutable_characters(2)->mutable_goals(0);
    *pole.mutable_pole() = Vec(0.5, 1.0, -1.0);
    pole.set_tolerance(1e-4);
    v1::ChainGoal& turned = *request.mutable_characters(2)->mutable_goals(1);
    turned.set_swivel(0.4);
    *turned.mutable_orientation() = Rotation(0.0, 0.0, 0.0, 1.0);
    turned.set_orientation_weight(0.5);
    v1::Wind& wind =
        *request.mutable_characters(3)->mutable_dynamics()->mutable_wind();
    wind.set_strength(2.0);
    *wind.mutable_direction() = Vec(1.0, 0.0, 0.0);
    wind.set_turbulence(0.3);
    wind.set_gust_frequency(0.5);
    // The states of a first tick, carried.
    v1::TickResponse first;
    EXPECT_TRUE(Tick(request, &first).ok());
    for (int k = 0; k < request.characters_size(); ++k) {
      v1::StepDynamicsRequest& dynamics =
          *request.mutable_characters(k)->mutable_dynamics();
      for (const v1::DynamicChainResult& chain :
           first.characters(k).dynamics().results()) {
        *dynamics.add_states() = chain.state();
      }
    }
    return request;
  }
};

TEST_P(ExtremeValuesTest, ATickAnswersFiniteNumbersOrNamesTheField) {
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    std::mt19937_64 engine(seed);
    v1::TickRequest request = FullCrowd(seed % 7);
    const std::string changed = Mutate(request, engine);
    v1::TickResponse answer;
    ExpectFiniteOrFieldError(Tick(request, &answer), answer,
                             absl::StrCat("seed ", seed, ": ", changed));
  }
}

TEST_P(ExtremeValuesTest, TheSingleCallsAnswerFiniteNumbersOrNameTheField) {
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    std::mt19937_64 engine(seed);
    const v1::TickRequest crowd = FullCrowd(seed % 5);
    const v1::TickCharacter& character = crowd.characters(seed % 4);

    v1::SolveChainRequest solve;
    solve.set_rig(character.rig());
    *solve.mutable_pose() = character.pose();
    *solve.mutable_goals() = character.goals();
    std::string changed = Mutate(solve, engine);
    v1::SolveChainResponse solved;
    ExpectFiniteOrFieldError(Solve(solve, &solved), solved,
                             absl::StrCat("seed ", seed, ": ", changed));

    v1::GroundFeetRequest ground = character.ground();
    ground.set_rig(character.rig());
    *ground.mutable_pose() = character.pose();
    if (!ground.has_ground()) *ground.mutable_ground() = crowd.shared_ground();
    changed = Mutate(ground, engine);
    v1::GroundFeetResponse grounded;
    ExpectFiniteOrFieldError(
        stub_->GroundFeet(Context().get(), ground, &grounded), grounded,
        absl::StrCat("seed ", seed, ": ", changed));

    v1::StepDynamicsRequest dynamics = character.dynamics();
    dynamics.set_rig(character.rig());
    *dynamics.mutable_pose() = character.pose();
    changed = Mutate(dynamics, engine);
    v1::StepDynamicsResponse stepped;
    ExpectFiniteOrFieldError(
        stub_->StepDynamics(Context().get(), dynamics, &stepped), stepped,
        absl::StrCat("seed ", seed, ": ", changed));
  }
}

INSTANTIATE_TEST_SUITE_P(OneSolverThread, ExtremeValuesTest,
                         ::testing::Values(1));

}  // namespace
}  // namespace ik::server
