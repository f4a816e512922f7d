// A registry of named, immutable, content-hashed snapshots: the rigs and the
// terrains are each held in one.
//
// Handlers copy a std::shared_ptr<const Entry> out under the lock and use it
// without holding it, so an entry replaced or deleted mid-call stays alive
// until that call finishes. Thread-safe.
//
// `Entry` provides `name()` (its key) and a `revision` member (its content
// hash; equal revisions mean equal content).
#ifndef IK_SERVER_REGISTRY_H_
#define IK_SERVER_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace ik::server {

template <typename Entry>
class Registry {
 public:
  // `kind` names an entry in messages ("rig", "terrain"); it is also the
  // request field the entry came in, so "rig.name: ...".
  Registry(std::string kind, int max_entries)
      : kind_(std::move(kind)), max_entries_(max_entries) {}

  struct RegisterResult {
    std::shared_ptr<const Entry> entry;  // the entry now registered
    bool created = false;   // false when identical content was there already
    bool replaced = false;  // true when different content was replaced
  };

  // Adds `entry` under its name. The same revision again is a no-op
  // (created=false). Different content under the same name needs `replace`,
  // else ALREADY_EXISTS. A new name beyond max_entries: RESOURCE_EXHAUSTED.
  absl::StatusOr<RegisterResult> Register(std::shared_ptr<const Entry> entry,
                                          bool replace)
      ABSL_LOCKS_EXCLUDED(mu_) {
    const std::string name(entry->name());
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      if (static_cast<int>(entries_.size()) >= max_entries_) {
        return absl::ResourceExhaustedError(absl::StrCat(
            kind_, ".name: the registry holds ", entries_.size(), " ", kind_,
            "s, the limit; delete one before adding '", name, "'"));
      }
      entries_.emplace(name, entry);
      return RegisterResult{std::move(entry), true, false};
    }
    if (it->second->revision == entry->revision) {
      return RegisterResult{it->second, false, false};
    }
    if (!replace) {
      return absl::AlreadyExistsError(
          absl::StrCat(kind_, ".name: ", kind_, " '", name,
                       "' is registered with different content (",
                       it->second->revision, "); set replace to overwrite it"));
    }
    it->second = entry;
    return RegisterResult{std::move(entry), true, true};
  }

  // NOT_FOUND when nothing is called `name`.
  absl::StatusOr<std::shared_ptr<const Entry>> Get(absl::string_view name) const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) return NotRegistered(name);
    return it->second;
  }

  // Like Get, and FAILED_PRECONDITION when `revision` is non-empty and is
  // not the registered one.
  absl::StatusOr<std::shared_ptr<const Entry>> GetPinned(
      absl::string_view name, absl::string_view revision) const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::StatusOr<std::shared_ptr<const Entry>> entry = Get(name);
    if (!entry.ok()) return entry;
    if (!revision.empty() && (*entry)->revision != revision) {
      return RevisionMismatch(name, (*entry)->revision, revision);
    }
    return entry;
  }

  // All entries, sorted by name.
  std::vector<std::shared_ptr<const Entry>> List() const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::vector<std::shared_ptr<const Entry>> out;
    out.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) out.push_back(entry);
    return out;
  }

  // Removes the entry and returns the removed revision. NOT_FOUND when there
  // is none; FAILED_PRECONDITION when `revision` is non-empty and differs.
  absl::StatusOr<std::string> Delete(absl::string_view name,
                                     absl::string_view revision)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) return NotRegistered(name);
    if (!revision.empty() && it->second->revision != revision) {
      return RevisionMismatch(name, it->second->revision, revision);
    }
    std::string removed = it->second->revision;
    entries_.erase(it);
    return removed;
  }

  int size() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(entries_.size());
  }

 private:
  absl::Status RevisionMismatch(absl::string_view name,
                                absl::string_view registered,
                                absl::string_view expected) const {
    return absl::FailedPreconditionError(
        absl::StrCat("revision: ", kind_, " '", name, "' is at revision ",
                     registered, ", not ", expected));
  }

  absl::Status NotRegistered(absl::string_view name) const {
    return absl::NotFoundError(
        absl::StrCat(kind_, " '", name, "' is not registered"));
  }

  const std::string kind_;
  const int max_entries_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<const Entry>, std::less<>> entries_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace ik::server

#endif  // IK_SERVER_REGISTRY_H_
