#include "ik/rig/forward_kinematics.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/rig/rig.h"

namespace ik {

absl::Status LocalToModelJob::Validate() const {
  if (locals.size() != parents.size()) {
    return absl::InvalidArgumentError(absl::StrCat("locals: ", locals.size(),
                                                   " transforms for ",
                                                   parents.size(), " joints"));
  }
  if (models.size() != parents.size()) {
    return absl::InvalidArgumentError(absl::StrCat("models: ", models.size(),
                                                   " transforms for ",
                                                   parents.size(), " joints"));
  }
  if (from < 0 || static_cast<size_t>(from) > parents.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "from: ", from, " is not within [0, ", parents.size(), "]"));
  }
  for (size_t i = 0; i < parents.size(); ++i) {
    const int parent = parents[i];
    if (parent != kNoParent &&
        (parent < 0 || static_cast<size_t>(parent) >= i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parents[", i, "]: ", parent, " does not refer to an earlier joint"));
    }
  }
  return absl::OkStatus();
}

absl::Status LocalToModelJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  const int count = static_cast<int>(parents.size());
  for (int i = from; i < count; ++i) {
    const int parent = parents[i];
    models[i] = Compose(parent == kNoParent ? root : models[parent], locals[i]);
  }
  return absl::OkStatus();
}

}  // namespace ik
