#include "baselines.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "ik/compact_pose.h"

namespace ik::inspector {

void StreamBaselines::Overlay(const v1::CompactPose& pose, Kept& kept) {
  const bool quantized = !pose.quantized_rotations().empty();
  const int size = quantized ? kSmallestThreeBytes : 4 * sizeof(float);
  const int count =
      quantized ? static_cast<int>(pose.quantized_rotations().size() / size)
                : pose.rotations_size() / 4;
  if (count > 0) kept.quantized = quantized;
  for (int k = 0; k < count; ++k) {
    // Rotations listed by `joints`, else by position from joint 0.
    const int joint = pose.joints_size() > 0
                          ? (k < pose.joints_size() ? pose.joints(k) : -1)
                          : k;
    if (joint < 0) break;
    std::string bytes(size, '\0');
    if (quantized) {
      bytes = pose.quantized_rotations().substr(k * size, size);
    } else {
      std::memcpy(bytes.data(), pose.rotations().data() + 4 * k, size);
    }
    kept.rotations[joint] = std::move(bytes);
  }
  if (pose.translated_joints_size() == 0) return;
  kept.translations.clear();
  for (int k = 0; k < pose.translated_joints_size() &&
                  3 * k + 2 < pose.translations_size();
       ++k) {
    kept.translations[pose.translated_joints(k)] = {
        pose.translations(3 * k), pose.translations(3 * k + 1),
        pose.translations(3 * k + 2)};
  }
}

v1::CompactPose StreamBaselines::ToCompact(const Kept& kept,
                                           const v1::Transform& root) {
  v1::CompactPose pose;
  *pose.mutable_root() = root;
  std::string quantized;
  for (const auto& [joint, bytes] : kept.rotations) {
    pose.add_joints(joint);
    if (kept.quantized) {
      quantized += bytes;
      continue;
    }
    float xyzw[4];
    std::memcpy(xyzw, bytes.data(), sizeof(xyzw));
    for (const float v : xyzw) pose.add_rotations(v);
  }
  if (kept.quantized) pose.set_quantized_rotations(quantized);
  for (const auto& [joint, xyz] : kept.translations) {
    pose.add_translated_joints(joint);
    for (const float v : xyz) pose.add_translations(v);
  }
  return pose;
}

int StreamBaselines::Complete(uint64_t stream, v1::TickRequest& request) {
  if (request.resync()) streams_.erase(stream);
  Stream& kept_by_id = streams_[stream];
  int unknown = 0;
  for (v1::TickCharacter& character : *request.mutable_characters()) {
    if (character.baseline() == 0) continue;
    const auto found = kept_by_id.find(character.id());
    if (found == kept_by_id.end()) {
      ++unknown;
      continue;
    }
    Kept kept = found->second;
    Overlay(character.compact_pose(), kept);
    if (character.rig().empty()) {
      character.set_rig(kept.rig);
      character.set_revision(kept.revision);
    }
    *character.mutable_compact_pose() =
        ToCompact(kept, character.compact_pose().root());
    character.set_baseline(0);
  }
  return unknown;
}

void StreamBaselines::Absorb(uint64_t stream, const v1::TickRequest& request,
                             const v1::TickResponse& response) {
  Stream& kept_by_id = streams_[stream];
  const int answered =
      std::min(request.characters_size(), response.characters_size());
  for (int i = 0; i < answered; ++i) {
    const v1::TickCharacter& character = request.characters(i);
    const v1::TickCharacterResult& result = response.characters(i);
    if (result.status().code() != 0 || !character.has_compact_pose() ||
        character.baseline() != 0) {
      kept_by_id.erase(character.id());
      continue;
    }
    Kept kept;
    kept.rig = character.rig();
    kept.revision =
        result.revision().empty() ? character.revision() : result.revision();
    Overlay(character.compact_pose(), kept);
    kept_by_id[character.id()] = std::move(kept);
  }
}

}  // namespace ik::inspector
