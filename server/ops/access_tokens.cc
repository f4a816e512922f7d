#include "ops/access_tokens.h"

#include <openssl/sha.h>

#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace ik::server {
namespace {

constexpr size_t kMinTokenLength = 16;
constexpr size_t kMaxTokenLength = 512;

std::string Digest(absl::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(),
         digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

bool Visible(absl::string_view token) {
  for (char c : token) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

}  // namespace

absl::string_view RoleName(Role role) {
  return role == Role::kAdmin ? "admin" : "read";
}

absl::StatusOr<AccessTokens> AccessTokens::Load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("--token_file ", path, ": cannot be read"));
  }
  std::stringstream contents;
  contents << file.rdbuf();
  return Parse(contents.str(), absl::StrCat("--token_file ", path));
}

absl::StatusOr<AccessTokens> AccessTokens::Parse(absl::string_view contents,
                                                 absl::string_view source) {
  AccessTokens tokens;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(contents, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "#")) continue;
    const std::vector<absl::string_view> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    auto error = [&](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": line ", line_number, ": ", what));
    };
    if (words.size() != 2) {
      return error("expected '<role> <token>' (role read or admin)");
    }
    Role role;
    if (words[0] == "read") {
      role = Role::kRead;
    } else if (words[0] == "admin") {
      role = Role::kAdmin;
    } else if (words[1] == "read" || words[1] == "admin") {
      // Never quoted: the first word is the token written first.
      return error(
          "the role comes first: '<role> <token>' (role read or admin)");
    } else {
      return error("the first word is not a role (read or admin)");
    }
    const absl::string_view token = words[1];
    if (token.size() < kMinTokenLength || token.size() > kMaxTokenLength ||
        !Visible(token)) {
      return error(absl::StrCat(
          "a token is ", kMinTokenLength, " to ", kMaxTokenLength,
          " visible ASCII characters, this one is ", token.size(), " long"));
    }
    const int ordinal = static_cast<int>(tokens.roles_.size()) + 1;
    if (!tokens.roles_.emplace(Digest(token), Granted{role, ordinal}).second) {
      return error("this token is given on an earlier line too");
    }
  }
  if (tokens.roles_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": holds no token"));
  }
  return tokens;
}

absl::Status AccessTokens::Check(absl::string_view authorization, Role needed,
                                 absl::string_view method) const {
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        "this call needs a token: send the metadata 'authorization: Bearer "
        "<token>' (ikd --token_file)");
  }
  const std::optional<absl::string_view> token = Presented(authorization);
  if (!token.has_value()) {
    return absl::UnauthenticatedError(
        "the 'authorization' metadata is not 'Bearer <token>'");
  }
  auto found = roles_.find(Digest(*token));
  if (found == roles_.end()) {
    return absl::UnauthenticatedError("the bearer token is not valid");
  }
  if (needed == Role::kAdmin && found->second.role != Role::kAdmin) {
    return absl::PermissionDeniedError(
        absl::StrCat(method, " needs an admin token; this token's role is ",
                     RoleName(found->second.role)));
  }
  return absl::OkStatus();
}

std::string AccessTokens::CallerOf(absl::string_view authorization) const {
  const std::optional<absl::string_view> token = Presented(authorization);
  if (!token.has_value()) return std::string();
  auto found = roles_.find(Digest(*token));
  if (found == roles_.end()) return std::string();
  return absl::StrCat("token ", found->second.ordinal);
}

std::optional<absl::string_view> AccessTokens::Presented(
    absl::string_view authorization) {
  absl::string_view token = authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ") &&
      !absl::ConsumePrefix(&token, "bearer ")) {
    return std::nullopt;
  }
  return absl::StripAsciiWhitespace(token);
}

}  // namespace ik::server
