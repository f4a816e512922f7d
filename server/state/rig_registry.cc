#include "state/rig_registry.h"

#include <utility>

#include "convert/rig.h"

namespace ik::server {

absl::StatusOr<std::shared_ptr<const RigEntry>> BuildRigEntry(
    const v1::Rig& rig, const ServiceLimits& limits, absl::string_view path) {
  absl::StatusOr<Character> validated = RigFromProto(rig, limits, path);
  if (!validated.ok()) return validated.status();
  v1::Rig normalized = NormalizedRig(rig, validated->rig);
  std::string revision = ContentRevision(normalized);
  const auto bytes = static_cast<std::int64_t>(sizeof(RigEntry) +
                                               2 * normalized.SpaceUsedLong());
  return std::make_shared<const RigEntry>(RigEntry{*std::move(validated),
                                                   std::move(normalized),
                                                   std::move(revision), bytes});
}

}  // namespace ik::server
