// The rig registry: named, immutable rig snapshots shared by all handlers.
//
// Handlers copy a std::shared_ptr<const RigEntry> out under the lock and
// solve without holding it, so a rig replaced or deleted mid-solve stays
// alive until that solve finishes. Thread-safe.
#ifndef IK_SERVER_RIG_REGISTRY_H_
#define IK_SERVER_RIG_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "ik/rig.h"
#include "ik/v1/ik.pb.h"
#include "server/service_limits.h"

namespace ik::server {

// One registered rig: the validated core rig, the definition as stored
// (normalised) and its content hash.
struct RigEntry {
  Rig rig;
  v1::Rig definition;
  std::string revision;
};

// Validates `rig` and builds an entry for it (outside any lock). `prefix`
// starts error messages ("rig." for requests, "<file>: " for files).
absl::StatusOr<std::shared_ptr<const RigEntry>> BuildRigEntry(
    const v1::Rig& rig, const ServiceLimits& limits, absl::string_view prefix);

class RigRegistry {
 public:
  explicit RigRegistry(int max_rigs) : max_rigs_(max_rigs) {}

  struct RegisterResult {
    std::shared_ptr<const RigEntry> entry;  // the entry now registered
    bool created = false;   // false when identical content was there already
    bool replaced = false;  // true when different content was replaced
  };

  // Adds `entry` under its rig's name. The same revision again is a no-op
  // (created=false). Different content under the same name needs `replace`,
  // else ALREADY_EXISTS. A new name beyond max_rigs: RESOURCE_EXHAUSTED.
  absl::StatusOr<RegisterResult> Register(std::shared_ptr<const RigEntry> entry,
                                          bool replace)
      ABSL_LOCKS_EXCLUDED(mu_);

  // NOT_FOUND when no rig is called `name`.
  absl::StatusOr<std::shared_ptr<const RigEntry>> Get(
      absl::string_view name) const ABSL_LOCKS_EXCLUDED(mu_);

  // Like Get, and FAILED_PRECONDITION when `revision` is non-empty and is
  // not the registered one.
  absl::StatusOr<std::shared_ptr<const RigEntry>> GetPinned(
      absl::string_view name, absl::string_view revision) const
      ABSL_LOCKS_EXCLUDED(mu_);

  // All entries, sorted by name.
  std::vector<std::shared_ptr<const RigEntry>> List() const
      ABSL_LOCKS_EXCLUDED(mu_);

  // Removes the rig and returns the removed revision. NOT_FOUND when there is
  // none; FAILED_PRECONDITION when `revision` is non-empty and differs.
  absl::StatusOr<std::string> Delete(absl::string_view name,
                                     absl::string_view revision)
      ABSL_LOCKS_EXCLUDED(mu_);

  int size() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const int max_rigs_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<const RigEntry>, std::less<>> rigs_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace ik::server

#endif  // IK_SERVER_RIG_REGISTRY_H_
