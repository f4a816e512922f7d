#include "server/rig_registry.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/convert.h"

namespace ik::server {
namespace {

absl::Status RevisionMismatch(absl::string_view name,
                              absl::string_view registered,
                              absl::string_view expected) {
  return absl::FailedPreconditionError(
      absl::StrCat("revision: rig '", name, "' is at revision ", registered,
                   ", not ", expected));
}

absl::Status NotRegistered(absl::string_view name) {
  return absl::NotFoundError(
      absl::StrCat("rig '", name, "' is not registered"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<const RigEntry>> BuildRigEntry(
    const v1::Rig& rig, const ServiceLimits& limits, absl::string_view prefix) {
  absl::StatusOr<Rig> validated = RigFromProto(rig, limits, prefix);
  if (!validated.ok()) return validated.status();
  v1::Rig normalized = NormalizedRig(rig, *validated);
  std::string revision = RigRevision(normalized);
  return std::make_shared<const RigEntry>(RigEntry{
      *std::move(validated), std::move(normalized), std::move(revision)});
}

absl::StatusOr<RigRegistry::RegisterResult> RigRegistry::Register(
    std::shared_ptr<const RigEntry> entry, bool replace) {
  const std::string& name = entry->rig.name();
  absl::MutexLock lock(&mu_);
  auto it = rigs_.find(name);
  if (it == rigs_.end()) {
    if (static_cast<int>(rigs_.size()) >= max_rigs_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "rig.name: the registry holds ", rigs_.size(),
          " rigs, the limit; delete one before adding '", name, "'"));
    }
    rigs_.emplace(name, entry);
    return RegisterResult{std::move(entry), true, false};
  }
  if (it->second->revision == entry->revision) {
    return RegisterResult{it->second, false, false};
  }
  if (!replace) {
    return absl::AlreadyExistsError(absl::StrCat(
        "rig.name: rig '", name, "' is registered with different content (",
        it->second->revision, "); set replace to overwrite it"));
  }
  it->second = entry;
  return RegisterResult{std::move(entry), true, true};
}

absl::StatusOr<std::shared_ptr<const RigEntry>> RigRegistry::Get(
    absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = rigs_.find(name);
  if (it == rigs_.end()) return NotRegistered(name);
  return it->second;
}

absl::StatusOr<std::shared_ptr<const RigEntry>> RigRegistry::GetPinned(
    absl::string_view name, absl::string_view revision) const {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry = Get(name);
  if (!entry.ok()) return entry;
  if (!revision.empty() && (*entry)->revision != revision) {
    return RevisionMismatch(name, (*entry)->revision, revision);
  }
  return entry;
}

std::vector<std::shared_ptr<const RigEntry>> RigRegistry::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const RigEntry>> out;
  out.reserve(rigs_.size());
  for (const auto& [name, entry] : rigs_) out.push_back(entry);
  return out;
}

absl::StatusOr<std::string> RigRegistry::Delete(absl::string_view name,
                                                absl::string_view revision) {
  absl::MutexLock lock(&mu_);
  auto it = rigs_.find(name);
  if (it == rigs_.end()) return NotRegistered(name);
  if (!revision.empty() && it->second->revision != revision) {
    return RevisionMismatch(name, it->second->revision, revision);
  }
  std::string removed = it->second->revision;
  rigs_.erase(it);
  return removed;
}

int RigRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(rigs_.size());
}

}  // namespace ik::server
