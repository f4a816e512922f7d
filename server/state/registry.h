// A registry of named, immutable, content-hashed snapshots: the rigs and the
// terrains are each held in one.
//
// Handlers copy a std::shared_ptr<const Entry> out under the lock and use it
// without holding it, so an entry replaced or deleted mid-call stays alive
// until that call finishes. Thread-safe.
//
// Changes (Register, Delete) may be made durable: each takes a `persist`
// step that runs after the change is decided and before it is made, and
// whose failure leaves the registry as it was. Changes are serialised on a
// lock of their own, so persisted changes land in the order they are made,
// while lookups (Get, List) only wait for the map update itself, never for
// a disk.
//
// `Entry` provides `name()` (its key), a `revision` member (its content
// hash, ContentRevision below; equal revisions mean equal content) and a
// `bytes` member (the memory it holds, counted in the budget).
#ifndef IK_SERVER_STATE_REGISTRY_H_
#define IK_SERVER_STATE_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message.h"
#include "ik/base/field_error.h"
#include "ik/base/pacer.h"
#include "ik/base/validate.h"

namespace ik::server {

// The content hash of a registered entry's (normalised) definition, its
// revision: "sha256:" and 16 hex digits of the SHA-256 of its deterministic
// serialisation. Equal content gives equal revisions on every replica.
// `pause` is called between pieces of the hashing (ik/base/pacer.h).
std::string ContentRevision(const google::protobuf::Message& normalized,
                            absl::FunctionRef<void()> pause = NoPause);

// The memory all registries may hold together (ikd --max_registry_bytes),
// shared by the rig and terrain registries. Thread-safe.
class RegistryBudget {
 public:
  explicit RegistryBudget(std::int64_t max_bytes) : max_bytes_(max_bytes) {}

  // Takes `add` bytes and gives back `release` (an entry replacing
  // another); false, and nothing changed, when the budget would be
  // exceeded. Giving back is never refused.
  bool Change(std::int64_t add, std::int64_t release)
      ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    const std::int64_t held = held_ + add - release;
    if (add > release && held > max_bytes_) return false;
    held_ = held;
    return true;
  }
  std::int64_t held() const ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    return held_;
  }
  std::int64_t max_bytes() const { return max_bytes_; }

  // Bytes of the budget held while a registration is built (its estimate),
  // so that registrations at once never build more than the budget can
  // take; given back when destroyed. ok() is false, and nothing is held,
  // when they do not fit.
  class Hold {
   public:
    Hold(RegistryBudget* budget, std::int64_t bytes)
        : budget_(budget), bytes_(bytes) {
      if (budget_ != nullptr && !budget_->Change(bytes_, 0)) {
        budget_ = nullptr;
        ok_ = false;
      }
    }
    ~Hold() {
      if (budget_ != nullptr) budget_->Change(0, bytes_);
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    bool ok() const { return ok_; }

   private:
    RegistryBudget* budget_;
    std::int64_t bytes_;
    bool ok_ = true;
  };

 private:
  const std::int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  std::int64_t held_ ABSL_GUARDED_BY(mutex_) = 0;
};

template <typename Entry>
class Registry {
 public:
  // `kind` names an entry in messages ("rig", "terrain"); it is also the
  // request field the entry came in, so "rig.name: ...". Entries' `bytes`
  // are counted in `budget` (none: not counted), which must outlive the
  // registry.
  Registry(std::string kind, int max_entries, RegistryBudget* budget = nullptr)
      : kind_(std::move(kind)), max_entries_(max_entries), budget_(budget) {}
  // The budget its entries count in; null: none.
  RegistryBudget* budget() const { return budget_; }

  ~Registry() {
    if (budget_ == nullptr) return;
    absl::MutexLock lock(&mu_);
    for (const auto& [name, entry] : entries_) budget_->Change(0, entry->bytes);
  }

  struct RegisterResult {
    std::shared_ptr<const Entry> entry;  // the entry now registered
    bool created = false;   // false when identical content was there already
    bool replaced = false;  // true when different content was replaced
  };

  // A change's durable step (see above); OK to go on.
  using Persist = absl::FunctionRef<absl::Status()>;
  static absl::Status NotPersisted() { return absl::OkStatus(); }

  // Adds `entry` under its name. The same revision again is a no-op
  // (created=false, nothing persisted). Different content under the same
  // name needs `replace`, else ALREADY_EXISTS. A new name beyond
  // max_entries, or content beyond the memory budget: RESOURCE_EXHAUSTED.
  absl::StatusOr<RegisterResult> Register(std::shared_ptr<const Entry> entry,
                                          bool replace,
                                          Persist persist = NotPersisted)
      ABSL_LOCKS_EXCLUDED(mu_, change_mu_) {
    const std::string name(entry->name());
    absl::MutexLock change(&change_mu_);
    bool replacing = false;
    std::int64_t released = 0;
    {
      absl::MutexLock lock(&mu_);
      auto it = entries_.find(name);
      if (it == entries_.end()) {
        if (static_cast<int>(entries_.size()) >= max_entries_) {
          return FieldError(
              absl::StatusCode::kResourceExhausted,
              absl::StrCat(kind_, ".name"),
              absl::StrCat("the registry holds ", entries_.size(), " ", kind_,
                           "s, the limit; delete one before adding '", name,
                           "'"));
        }
      } else if (it->second->revision == entry->revision) {
        return RegisterResult{it->second, false, false};
      } else if (!replace) {
        return FieldError(
            absl::StatusCode::kAlreadyExists, absl::StrCat(kind_, ".name"),
            absl::StrCat(
                kind_, " '", name, "' is registered with different content (",
                it->second->revision, "); set replace to overwrite it"));
      } else {
        replacing = true;
        released = it->second->bytes;
      }
    }
    if (budget_ != nullptr && !budget_->Change(entry->bytes, released)) {
      return OverBudget(*entry);
    }
    if (absl::Status persisted = persist(); !persisted.ok()) {
      if (budget_ != nullptr) budget_->Change(released, entry->bytes);
      return persisted;
    }
    absl::MutexLock lock(&mu_);
    entries_.insert_or_assign(name, entry);
    return RegisterResult{std::move(entry), true, replacing};
  }

  // Which entry a request names, and where in the request: `name_path` is
  // the field that holds the name ("rig", "name", "ground.terrains[2]"),
  // `revision_path` the one that pins a revision (empty `revision`: any).
  struct Reference {
    absl::string_view name;
    absl::string_view name_path;
    absl::string_view revision = {};
    absl::string_view revision_path = "revision";
  };

  // NOT_FOUND (naming `reference.name_path`) when nothing is called
  // `reference.name`; FAILED_PRECONDITION (naming `revision_path`) when a
  // revision is given and is not the registered one.
  absl::StatusOr<std::shared_ptr<const Entry>> Get(
      const Reference& reference) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    auto it = Find(reference);
    if (!it.ok()) return it.status();
    return (*it)->second;
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

  // Removes the entry and returns the removed revision; errors as for Get.
  absl::StatusOr<std::string> Delete(const Reference& reference,
                                     Persist persist = NotPersisted)
      ABSL_LOCKS_EXCLUDED(mu_, change_mu_) {
    absl::MutexLock change(&change_mu_);
    std::string removed;
    std::int64_t released = 0;
    {
      absl::MutexLock lock(&mu_);
      auto it = Find(reference);
      if (!it.ok()) return it.status();
      removed = (*it)->second->revision;
      released = (*it)->second->bytes;
    }
    if (absl::Status persisted = persist(); !persisted.ok()) return persisted;
    {
      absl::MutexLock lock(&mu_);
      entries_.erase(std::string(reference.name));
    }
    if (budget_ != nullptr) budget_->Change(0, released);
    return removed;
  }

  int size() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(entries_.size());
  }

 private:
  using Map = std::map<std::string, std::shared_ptr<const Entry>, std::less<>>;

  // The registered entry `reference` names (at its revision, if it pins
  // one); the errors Get documents otherwise.
  absl::StatusOr<typename Map::const_iterator> Find(
      const Reference& reference) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = entries_.find(reference.name);
    if (it == entries_.end()) return NotRegistered(reference);
    if (!reference.revision.empty() &&
        it->second->revision != reference.revision) {
      return RevisionMismatch(reference, it->second->revision);
    }
    return it;
  }

  absl::Status RevisionMismatch(const Reference& reference,
                                absl::string_view registered) const {
    return FieldError(
        absl::StatusCode::kFailedPrecondition, reference.revision_path,
        absl::StrCat(kind_, " ", Quoted(reference.name), " is at revision ",
                     registered, ", not ", reference.revision));
  }

  absl::Status OverBudget(const Entry& entry) const {
    return FieldError(
        absl::StatusCode::kResourceExhausted, kind_,
        absl::StrCat(kind_, " ", Quoted(entry.name()), " needs ", entry.bytes,
                     " bytes of memory; registered rigs and terrains hold ",
                     budget_->held(), " of the ", budget_->max_bytes(),
                     " allowed (ikd --max_registry_bytes); delete some "
                     "first"));
  }

  absl::Status NotRegistered(const Reference& reference) const {
    return FieldError(
        absl::StatusCode::kNotFound, reference.name_path,
        absl::StrCat(kind_, " ", Quoted(reference.name), " is not registered"));
  }

  const std::string kind_;
  const int max_entries_;
  RegistryBudget* const budget_;
  // Held for a whole change, persist step included; taken before mu_.
  absl::Mutex change_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  Map entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ik::server

#endif  // IK_SERVER_STATE_REGISTRY_H_
