#include "handlers/tick_baselines.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {
namespace {

constexpr int kQuatNumbers = 4;
constexpr int kQuantizedBytes = 6;

absl::Status NoBaseline(absl::string_view why) {
  return FieldError(absl::StatusCode::kFailedPrecondition, "baseline",
                    absl::StrCat(why, ": send the character complete"));
}

// OK when `pose`'s listed rotations fit the baseline `base`: the same
// encoding, as many as it lists, joints ascending among the baseline's.
absl::Status CheckListed(const v1::CompactPose& base,
                         const v1::CompactPose& pose) {
  const bool quantized = !base.quantized_rotations().empty();
  if (quantized ? pose.rotations_size() > 0
                : !pose.quantized_rotations().empty()) {
    return InvalidField(
        "compact_pose",
        absl::StrCat("the baseline's rotations are ",
                     quantized ? "quantized" : "float32",
                     ": send the changed joints' rotations the same way, or "
                     "the character complete"));
  }
  const int per_joint = quantized ? kQuantizedBytes : kQuatNumbers;
  const int base_joints =
      quantized
          ? static_cast<int>(base.quantized_rotations().size()) / per_joint
          : base.rotations_size() / per_joint;
  const int sent = quantized
                       ? static_cast<int>(pose.quantized_rotations().size())
                       : pose.rotations_size();
  if (sent != per_joint * pose.joints_size()) {
    return InvalidField(
        quantized ? "compact_pose.quantized_rotations"
                  : "compact_pose.rotations",
        absl::StrCat(sent, quantized ? " bytes" : " numbers", " for the ",
                     pose.joints_size(), " joints of compact_pose.joints: ",
                     per_joint, " a joint"));
  }
  for (int k = 0; k < pose.joints_size(); ++k) {
    const int joint = pose.joints(k);
    if (joint < 0 || joint >= base_joints ||
        (k > 0 && joint <= pose.joints(k - 1))) {
      return InvalidField(
          absl::StrCat("compact_pose.joints[", k, "]"),
          absl::StrCat(joint,
                       ": joints are given ascending, each once, among "
                       "the baseline's ",
                       base_joints));
    }
  }
  return absl::OkStatus();
}

// The rotations `pose` sends for its listed joints written over the
// baseline's complete rotations `base` (same encoding), into `pose`, which
// then lists no joints: the sent ones set aside, the baseline's copied in
// once, the sent ones written over it.
absl::Status MergeRotations(const v1::CompactPose& base,
                            v1::CompactPose& pose) {
  if (absl::Status status = CheckListed(base, pose); !status.ok()) {
    return status;
  }
  thread_local std::string sent_bytes;
  thread_local std::vector<float> sent_numbers;
  if (!base.quantized_rotations().empty()) {
    sent_bytes = pose.quantized_rotations();
    *pose.mutable_quantized_rotations() = base.quantized_rotations();
    std::string& merged = *pose.mutable_quantized_rotations();
    for (int k = 0; k < pose.joints_size(); ++k) {
      merged.replace(static_cast<size_t>(pose.joints(k)) * kQuantizedBytes,
                     kQuantizedBytes, sent_bytes, k * kQuantizedBytes,
                     kQuantizedBytes);
    }
  } else {
    sent_numbers.assign(pose.rotations().begin(), pose.rotations().end());
    *pose.mutable_rotations() = base.rotations();
    float* merged = pose.mutable_rotations()->mutable_data();
    for (int k = 0; k < pose.joints_size(); ++k) {
      for (int i = 0; i < kQuatNumbers; ++i) {
        merged[pose.joints(k) * kQuatNumbers + i] =
            sent_numbers[k * kQuatNumbers + i];
      }
    }
  }
  pose.clear_joints();
  return absl::OkStatus();
}

}  // namespace

void TickBaselines::Begin(std::uint64_t sequence, bool resync, int count) {
  sequence_ = sequence;
  if (resync) {
    has_previous_ = false;
    by_id_.clear();
  }
  current_.resize(count);
  for (Baseline& baseline : current_) baseline.kept = false;
}

absl::StatusOr<const TickBaselines::Baseline*> TickBaselines::Find(
    const v1::TickCharacter& character) const {
  if (!has_previous_) {
    return NoBaseline(
        "this stream keeps no baselines (a new stream, or after resync)");
  }
  if (character.baseline() != previous_sequence_) {
    return NoBaseline(absl::StrCat("this stream keeps the baselines of tick ",
                                   previous_sequence_, ", not of tick ",
                                   character.baseline()));
  }
  const auto found = by_id_.find(character.id());
  if (found == by_id_.end()) {
    return NoBaseline(absl::StrCat(
        "character ", Quoted(character.id()), " was not answered in tick ",
        previous_sequence_,
        " with its rotations by position in compact_pose (absent, failed, "
        "or sent another way)"));
  }
  return &previous_[found->second];
}

absl::Status TickBaselines::Apply(v1::TickCharacter& character) const {
  if (character.baseline() == 0) return absl::OkStatus();
  if (character.has_pose()) {
    return InvalidField("baseline",
                        "a character built on a baseline sends compact_pose");
  }
  absl::StatusOr<const Baseline*> found = Find(character);
  if (!found.ok()) return found.status();
  const Baseline& base = **found;
  if (character.rig().empty()) {
    character.set_rig(base.rig);
    if (character.revision().empty()) character.set_revision(base.revision);
  }
  v1::CompactPose& pose = *character.mutable_compact_pose();
  const bool sends_rotations =
      pose.rotations_size() > 0 || !pose.quantized_rotations().empty();
  if (pose.joints_size() > 0 || !sends_rotations) {
    if (absl::Status status = MergeRotations(base.pose, pose); !status.ok()) {
      return status;
    }
  }
  if (pose.translated_joints_size() == 0 && pose.translations_size() == 0) {
    *pose.mutable_translated_joints() = base.pose.translated_joints();
    *pose.mutable_translations() = base.pose.translations();
  }
  if (character.has_dynamics() && character.dynamics().states_size() == 0) {
    for (const v1::DynamicChainState& state : base.states) {
      *character.mutable_dynamics()->add_states() = state;
    }
  }
  return absl::OkStatus();
}

void TickBaselines::Keep(int index, const v1::TickCharacter& character,
                         v1::TickCharacterResult& out) {
  Baseline& kept = current_[index];
  kept.kept = out.status().code() == 0 && character.has_compact_pose() &&
              character.compact_pose().joints_size() == 0;
  if (!kept.kept) return;
  kept.id = character.id();
  kept.rig = character.rig();
  kept.revision = out.revision();
  // The baseline pinned the revision it was made with, so a character
  // built on one that left its rig out knows it already.
  if (character.baseline() != 0 && character.revision() == kept.revision) {
    out.clear_revision();
  }
  // Copied one way: the character lives on its thread's arena.
  const v1::CompactPose& pose = character.compact_pose();
  kept.pose.Clear();
  *kept.pose.mutable_rotations() = pose.rotations();
  kept.pose.set_quantized_rotations(pose.quantized_rotations());
  *kept.pose.mutable_translated_joints() = pose.translated_joints();
  *kept.pose.mutable_translations() = pose.translations();
  const bool built_on_baseline = character.baseline() != 0;
  const int chains = out.dynamics().results_size();
  kept.states.resize(chains);
  for (int c = 0; c < chains; ++c) {
    v1::DynamicChainResult& result =
        *out.mutable_dynamics()->mutable_results(c);
    kept.states[c] = result.state();
    if (built_on_baseline) result.clear_state();
  }
}

void TickBaselines::End() {
  std::swap(previous_, current_);
  by_id_.clear();
  for (int k = 0; k < static_cast<int>(previous_.size()); ++k) {
    if (previous_[k].kept) by_id_[previous_[k].id] = k;
  }
  has_previous_ = true;
  previous_sequence_ = sequence_;
}

}  // namespace ik::server
