// The rig registry: named, immutable rig snapshots shared by all handlers
// (server/state/registry.h says how they are shared). Thread-safe.
#ifndef IK_SERVER_STATE_RIG_REGISTRY_H_
#define IK_SERVER_STATE_RIG_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/character/character.h"
#include "ik/rig/rig.h"
#include "ik/v1/ik.pb.h"
#include "service_limits.h"
#include "state/registry.h"

namespace ik::server {

// One registered rig: the validated core character (the rig and its legs,
// colliders and dynamic chains), the definition as stored (normalised) and
// its content hash.
struct RigEntry {
  Character character;
  v1::Rig definition;
  std::string revision;
  // Memory held, estimated: the stored definition's (SpaceUsedLong) twice,
  // for it and the core's copy of the same joints, chains and parts.
  std::int64_t bytes = 0;

  const Rig& rig() const { return character.rig; }
  const std::string& name() const { return character.rig.name(); }
};

// Validates `rig` and builds an entry for it (outside any lock). Errors
// name "<path>.<field>" (`path`: "rig" in a request, "" for a file).
absl::StatusOr<std::shared_ptr<const RigEntry>> BuildRigEntry(
    const v1::Rig& rig, const ServiceLimits& limits, absl::string_view path);

class RigRegistry : public Registry<RigEntry> {
 public:
  explicit RigRegistry(int max_rigs, RegistryBudget* budget = nullptr)
      : Registry("rig", max_rigs, budget) {}
};

}  // namespace ik::server

#endif  // IK_SERVER_STATE_RIG_REGISTRY_H_
