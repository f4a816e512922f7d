#include "ik/ground/leg.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "rig/part_checks.h"

namespace ik {
namespace {

using internal::CheckRange;
using internal::FindPartJoint;

absl::Status CheckLegSettings(const LegSettings& settings,
                              absl::string_view path) {
  struct Field {
    const char* name;
    double value;
    bool open_min;
  };
  const Field fields[] = {
      {"ankle_height", settings.ankle_height, false},
      {"toe_forward", settings.toe_forward, true},
      {"ray_above_hip", settings.ray_above_hip, false},
      {"ray_below_ankle", settings.ray_below_ankle, true},
      {"max_pelvis_drop", settings.max_pelvis_drop, false},
  };
  for (const Field& field : fields) {
    if (absl::Status status =
            CheckRange(field.value, 0.0, kMaxLegDistance, field.open_min,
                       absl::StrCat(path, ".", field.name), " m");
        !status.ok()) {
      return status;
    }
  }
  return CheckRange(settings.max_foot_tilt, 0.0, kPi / 2.0, false,
                    absl::StrCat(path, ".max_foot_tilt"), " rad");
}

// The hip, knee and ankle: each the parent of the next, with a bone.
absl::Status ResolveLimb(const Rig& rig, const LegDefinition& in,
                         absl::Span<const double> bone_lengths,
                         absl::string_view path, Leg& leg) {
  absl::StatusOr<int> hip = FindPartJoint(rig, in.hip, FieldPath(path, "hip"));
  if (!hip.ok()) return hip.status();
  absl::StatusOr<int> knee =
      FindPartJoint(rig, in.knee, FieldPath(path, "knee"));
  if (!knee.ok()) return knee.status();
  absl::StatusOr<int> ankle =
      FindPartJoint(rig, in.ankle, FieldPath(path, "ankle"));
  if (!ankle.ok()) return ankle.status();
  const std::pair<int, int> links[] = {{*knee, *hip}, {*ankle, *knee}};
  const char* const fields[] = {"knee", "ankle"};
  for (int k = 0; k < 2; ++k) {
    const auto [child, parent] = links[k];
    const std::string field_path = FieldPath(path, fields[k]);
    if (rig.parents()[child] != parent) {
      return InvalidField(
          field_path,
          absl::StrCat("joint '", rig.joint(child).name,
                       "' is not a child of '", rig.joint(parent).name,
                       "' (a leg is a hip -> knee -> ankle path)"));
    }
    if (!(bone_lengths[child] >= kMinBoneLength)) {
      return InvalidField(
          field_path, absl::StrCat("joint '", rig.joint(child).name,
                                   "' sits on its parent (zero-length bone)"));
    }
  }
  leg.hip = *hip;
  leg.knee = *knee;
  leg.ankle = *ankle;
  return absl::OkStatus();
}

// The optional toe: a descendant of the ankle.
absl::Status ResolveToe(const Rig& rig, const LegDefinition& in,
                        absl::string_view path, Leg& leg) {
  if (in.toe.empty()) return absl::OkStatus();
  const std::string toe_path = FieldPath(path, "toe");
  absl::StatusOr<int> toe = FindPartJoint(rig, in.toe, toe_path);
  if (!toe.ok()) return toe.status();
  int up = *toe;
  while (up != kNoParent && up != leg.ankle) up = rig.parents()[up];
  if (up != leg.ankle || *toe == leg.ankle) {
    return InvalidField(
        toe_path,
        absl::StrCat("joint '", in.toe, "' does not descend from ankle '",
                     in.ankle, "'"));
  }
  leg.toe = *toe;
  return absl::OkStatus();
}

absl::StatusOr<Leg> BuildLeg(const Rig& rig, const LegDefinition& in,
                             absl::Span<const double> bone_lengths,
                             absl::string_view path) {
  Leg leg;
  leg.name = in.name;
  if (absl::Status status = ResolveLimb(rig, in, bone_lengths, path, leg);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = ResolveToe(rig, in, path, leg); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckLegSettings(in.settings, path); !status.ok()) {
    return status;
  }
  leg.settings = in.settings;
  const absl::Span<const int> parents = rig.parents();
  for (int j = parents[leg.hip]; j != kNoParent; j = parents[j]) {
    leg.ancestors.push_back(j);
  }
  std::reverse(leg.ancestors.begin(), leg.ancestors.end());
  const absl::Span<const Transform> rest_pose = rig.rest_pose();
  const JointDefinition& knee = rig.joint(leg.knee);
  if (knee.limit.kind == JointLimit::Kind::kHinge) {
    const HingeLimit& hinge = knee.limit.hinge;
    leg.knee_bent =
        knee.rest.rotation *
        AngleAxis(0.5 * (hinge.range.min + hinge.range.max), hinge.axis);
  }
  leg.ankle_rest_model = rest_pose[leg.ankle].rotation;
  for (int j = parents[leg.ankle]; j != kNoParent; j = parents[j]) {
    leg.ankle_rest_model = rest_pose[j].rotation * leg.ankle_rest_model;
  }
  return leg;
}

}  // namespace

absl::StatusOr<std::vector<Leg>> BuildLegs(
    const Rig& rig, absl::Span<const LegDefinition> definitions) {
  const std::vector<double> bone_lengths = internal::RestBoneLengths(rig);
  std::vector<Leg> legs;
  legs.reserve(definitions.size());
  std::map<std::string, size_t> names;
  for (size_t l = 0; l < definitions.size(); ++l) {
    const LegDefinition& in = definitions[l];
    const std::string path = absl::StrCat("legs[", l, "]");
    if (absl::Status status =
            internal::CheckPartName(in.name, "legs", l, names);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<Leg> leg = BuildLeg(rig, in, bone_lengths, path);
    if (!leg.ok()) return leg.status();
    legs.push_back(*std::move(leg));
  }
  return legs;
}

}  // namespace ik
