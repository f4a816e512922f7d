// Bearer tokens with roles (ikd --token_file): who may call what.
//
// A `read` token may solve (SolveChain, GroundFeet, StepDynamics, Tick,
// TickStream) and read the registries (GetRig, ListRigs, ListTerrains); an
// `admin` token may also register, replace and delete rigs and terrains.
// Clients send `authorization: Bearer <token>` as call metadata. Health and
// reflection are not IkService's and stay open (probes need no token).
//
// The token file: one token a line, `<role> <token>`, role `read` or
// `admin`; blank lines and lines starting with `#` are skipped. A token is
// 16 to 512 visible ASCII characters (no spaces). Only SHA-256 digests of
// the tokens are kept, so a lookup's timing tells nothing of a token.
//
//   auto tokens = AccessTokens::Load("/etc/ikd/tokens");
//   absl::Status allowed = tokens->Check(authorization_header, Role::kAdmin);
#ifndef IK_SERVER_OPS_ACCESS_TOKENS_H_
#define IK_SERVER_OPS_ACCESS_TOKENS_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ik::server {

// What a call needs, and what a token grants; admin includes read.
enum class Role { kRead, kAdmin };

absl::string_view RoleName(Role role);

// Immutable once loaded; thread-safe.
class AccessTokens {
 public:
  // Reads and parses the token file; INVALID_ARGUMENT naming the file and
  // line when a line is malformed, a role unknown, a token too short or
  // given twice; NOT_FOUND / PERMISSION_DENIED when the file cannot be read;
  // INVALID_ARGUMENT when it holds no token.
  static absl::StatusOr<AccessTokens> Load(const std::string& path);
  // The same from the file's contents (`source` names it in messages).
  static absl::StatusOr<AccessTokens> Parse(absl::string_view contents,
                                            absl::string_view source);

  // OK when `authorization` (the call's `authorization` metadata, empty when
  // absent) is `Bearer <token>` with a known token whose role includes
  // `needed`; UNAUTHENTICATED when it is absent, malformed or unknown;
  // PERMISSION_DENIED when the token's role is too weak (`method` names the
  // call in the message).
  absl::Status Check(absl::string_view authorization, Role needed,
                     absl::string_view method) const;

  // Who presents `authorization` (as Check reads it), naming its token by
  // its place in the file, never by its text: "token 3" for the third
  // token. Empty for a missing, malformed or unknown token.
  std::string CallerOf(absl::string_view authorization) const;

  int size() const { return static_cast<int>(roles_.size()); }

 private:
  struct Granted {
    Role role;
    int ordinal;  // 1 for the file's first token
  };

  AccessTokens() = default;
  // The token `authorization` presents ("Bearer <token>"); nullopt when it
  // is not of that form.
  static std::optional<absl::string_view> Presented(
      absl::string_view authorization);

  // SHA-256 digest of a token -> its role and place.
  absl::flat_hash_map<std::string, Granted> roles_;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_ACCESS_TOKENS_H_
