// Forward kinematics: local transforms -> model-space transforms.
//
//   std::vector<ik::Transform> model(rig.joint_count());
//   ik::LocalToModelJob fk;
//   fk.parents = rig.parents();
//   fk.locals = locals;
//   fk.models = absl::MakeSpan(model);
//   absl::Status status = fk.Run();
#ifndef IK_FORWARD_KINEMATICS_H_
#define IK_FORWARD_KINEMATICS_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"

namespace ik {

// Computes model[i] = model[parent[i]] * local[i] for joints parent-first.
// Owns no memory and allocates nothing. Not thread-safe on the same outputs.
struct LocalToModelJob {
  // Parent index per joint; kNoParent for a root. Each parent must come
  // before its child. It is the caller's responsibility to keep the spans
  // alive for the duration of Run().
  absl::Span<const int> parents;
  // Local transforms, one per joint.
  absl::Span<const Transform> locals;
  // Optional transform applied to root joints (model -> world): identity by
  // default, which gives model space.
  Transform root;
  // Only joints with index >= from are recomputed; joints before it must
  // already hold valid model transforms in `models`. Default 0: all joints.
  int from = 0;
  // Output: one transform per joint (same size as `parents`).
  absl::Span<Transform> models;

  // INVALID_ARGUMENT when the spans' sizes differ, `from` is out of range, or
  // a parent index does not come before its child.
  absl::Status Validate() const;
  // Validates, then computes `models`.
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_FORWARD_KINEMATICS_H_
