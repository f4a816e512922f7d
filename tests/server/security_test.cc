// TLS, mutual TLS and bearer tokens, over real channels to an in-process
// ikd, with certificates the test makes (test_certs.h): right CA, wrong CA,
// expired, not yet valid, none; tokens absent, unknown, read, admin.
#include <grpcpp/grpcpp.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "ik/client.h"
#include "ops/access_tokens.h"
#include "server.h"
#include "test_certs.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::TestCa;
using ::ik::testing::TestCertificate;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kReadToken[] = "read-token-0123456789abcdef";
constexpr char kAdminToken[] = "admin-token-0123456789abcdef";

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ikd-security-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Writes `contents` to a file of the test's directory; its path.
  std::string Write(const std::string& name, const std::string& contents) {
    const std::string path = absl::StrCat(dir_, "/", name);
    // Through a rename, as a certificate renewal would: a reader never sees
    // half a file.
    const std::string temporary = path + ".tmp";
    EXPECT_TRUE(::ik::testing::WriteFile(temporary, contents));
    std::filesystem::rename(temporary, path);
    return path;
  }

  // Server files for `certificate` (and the client CA, when given).
  TlsFiles ServerFiles(const TestCertificate& certificate,
                       const std::string& client_ca_pem = "") {
    TlsFiles files;
    files.cert_file = Write("server.crt", certificate.cert_pem);
    files.key_file = Write("server.key", certificate.key_pem);
    if (!client_ca_pem.empty()) {
      files.client_ca_file = Write("client-ca.crt", client_ca_pem);
    }
    return files;
  }

  void StartServer(ServerOptions options) {
    options.listen = "127.0.0.1:0";
    options.rig_dir = IK_EXAMPLES_DIR "/rigs";
    auto server = IkServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  // A client of the running server: TLS trusting `ca_pem` (and presenting
  // `client`, when it has a certificate) or, with ca_pem empty, plaintext.
  std::unique_ptr<Client> ClientOf(const std::string& ca_pem,
                                   const TestCertificate& client = {},
                                   const std::string& token = "") {
    ClientOptions options;
    options.target = absl::StrCat("127.0.0.1:", server_->port());
    options.deadline = absl::Seconds(10);
    options.token = token;
    if (!ca_pem.empty()) {
      ik::TlsFiles files;
      files.ca_file = Write("client-trusts.crt", ca_pem);
      if (!client.cert_pem.empty()) {
        files.cert_file = Write("client.crt", client.cert_pem);
        files.key_file = Write("client.key", client.key_pem);
      }
      auto credentials = TlsCredentials(files);
      EXPECT_TRUE(credentials.ok()) << credentials.status();
      options.credentials = *credentials;
    }
    return std::make_unique<Client>(options);
  }

  static v1::SolveChainRequest ArmGoal() {
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("left_arm");
    *goal->mutable_target() = ::ik::testing::Vec(0.45, 1.2, 0.15);
    return request;
  }

  // SolveChain's status through `client`.
  static absl::Status Solve(Client& client) {
    return client.SolveChain(ArmGoal()).status();
  }

  std::string dir_;
  std::unique_ptr<IkServer> server_;
};

// --- TLS ---------------------------------------------------------------

TEST_F(SecurityTest, TlsClientTrustingTheServersCaSolves) {
  TestCa ca("ikd CA");
  ServerOptions options;
  options.tls = ServerFiles(ca.Issue("ikd", -absl::Hours(1), absl::Hours(1)));
  StartServer(options);
  auto client = ClientOf(ca.cert_pem());
  EXPECT_TRUE(Solve(*client).ok()) << Solve(*client);
  absl::StatusOr<bool> health = client->CheckHealth();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_TRUE(*health);
}

TEST_F(SecurityTest, TlsRefusesClientsThatTrustAnotherCaOrSpeakPlaintext) {
  TestCa ca("ikd CA");
  TestCa other("another CA");
  ServerOptions options;
  options.tls = ServerFiles(ca.Issue("ikd", -absl::Hours(1), absl::Hours(1)));
  StartServer(options);
  EXPECT_EQ(Solve(*ClientOf(other.cert_pem())).code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(Solve(*ClientOf("")).code(), absl::StatusCode::kUnavailable);
  // The refused handshakes left the server serving.
  EXPECT_TRUE(Solve(*ClientOf(ca.cert_pem())).ok());
}

TEST_F(SecurityTest, ExpiredOrNotYetValidServerCertificateIsRefusedByClients) {
  TestCa ca("ikd CA");
  for (const auto& [from, to] : {std::pair{-absl::Hours(48), -absl::Hours(24)},
                                 std::pair{absl::Hours(24), absl::Hours(48)}}) {
    ServerOptions options;
    options.tls = ServerFiles(ca.Issue("ikd", from, to));
    StartServer(options);
    EXPECT_EQ(Solve(*ClientOf(ca.cert_pem())).code(),
              absl::StatusCode::kUnavailable)
        << "valid from now + " << from << " to now + " << to;
    server_.reset();
  }
}

TEST_F(SecurityTest, MutualTlsNeedsAValidClientCertificateFromTheClientCa) {
  TestCa server_ca("ikd CA");
  TestCa client_ca("client CA");
  TestCa other("another CA");
  ServerOptions options;
  options.tls =
      ServerFiles(server_ca.Issue("ikd", -absl::Hours(1), absl::Hours(1)),
                  client_ca.cert_pem());
  StartServer(options);
  const std::string trust = server_ca.cert_pem();
  EXPECT_TRUE(
      Solve(*ClientOf(trust, client_ca.Issue("game-server", -absl::Hours(1),
                                             absl::Hours(1))))
          .ok());
  EXPECT_EQ(Solve(*ClientOf(trust)).code(), absl::StatusCode::kUnavailable)
      << "no client certificate";
  EXPECT_EQ(Solve(*ClientOf(trust, other.Issue("intruder", -absl::Hours(1),
                                               absl::Hours(1))))
                .code(),
            absl::StatusCode::kUnavailable)
      << "a certificate from another CA";
  EXPECT_EQ(Solve(*ClientOf(trust, client_ca.Issue("expired", -absl::Hours(48),
                                                   -absl::Hours(24))))
                .code(),
            absl::StatusCode::kUnavailable)
      << "an expired client certificate";
}

TEST_F(SecurityTest, RenewedCertificateIsServedWithoutARestart) {
  TestCa old_ca("old CA");
  TestCa new_ca("new CA");
  ServerOptions options;
  options.tls =
      ServerFiles(old_ca.Issue("ikd", -absl::Hours(1), absl::Hours(1)));
  options.tls_reload_interval = absl::Seconds(1);
  StartServer(options);
  ASSERT_TRUE(Solve(*ClientOf(old_ca.cert_pem())).ok());
  TestCertificate renewed =
      new_ca.Issue("ikd", -absl::Hours(1), absl::Hours(1));
  // Key first, then certificate: the watcher may read the pair in between,
  // and keeps the old pair while the two do not match.
  Write("server.key", renewed.key_pem);
  Write("server.crt", renewed.cert_pem);
  // The watcher reads the files every second; a new connection sees the
  // renewed certificate within a few (bounded, not timed: 60 tries).
  bool renewed_served = false;
  for (int attempt = 0; attempt < 60 && !renewed_served; ++attempt) {
    renewed_served = Solve(*ClientOf(new_ca.cert_pem())).ok();
    if (!renewed_served) absl::SleepFor(absl::Milliseconds(500));
  }
  EXPECT_TRUE(renewed_served);
  EXPECT_EQ(Solve(*ClientOf(old_ca.cert_pem())).code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(SecurityTest, BadTlsFilesStopTheStartNamingTheFlag) {
  TestCa ca("ikd CA");
  const TestCertificate one = ca.Issue("ikd", -absl::Hours(1), absl::Hours(1));
  const TestCertificate two = ca.Issue("ikd", -absl::Hours(1), absl::Hours(1));
  struct Case {
    const char* name;
    TlsFiles files;
    const char* message;
  };
  const Case cases[] = {
      {"key of another certificate",
       {Write("a.crt", one.cert_pem), Write("b.key", two.key_pem), ""},
       "--tls_key "},
      {"missing certificate file",
       {dir_ + "/nothing.crt", Write("a.key", one.key_pem), ""},
       "--tls_cert "},
      {"certificate file holding a key",
       {Write("c.crt", one.key_pem), Write("a.key", one.key_pem), ""},
       "--tls_cert "},
      {"key file holding a certificate",
       {Write("a.crt", one.cert_pem), Write("d.key", one.cert_pem), ""},
       "--tls_key "},
      {"certificate without key",
       {Write("a.crt", one.cert_pem), "", ""},
       "--tls_cert and --tls_key"},
      {"client CA that is not PEM",
       {Write("a.crt", one.cert_pem), Write("a.key", one.key_pem),
        Write("ca.crt", "not a certificate")},
       "--tls_client_ca "},
      {"client CA without TLS",
       {"", "", Write("ca2.crt", ca.cert_pem())},
       "--tls_client_ca"},
  };
  for (const Case& bad : cases) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tls = bad.files;
    auto server = IkServer::Start(options);
    ASSERT_FALSE(server.ok()) << bad.name;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument)
        << bad.name;
    EXPECT_THAT(std::string(server.status().message()), StartsWith(bad.message))
        << bad.name;
  }
}

// --- Tokens ------------------------------------------------------------

class TokenTest : public SecurityTest {
 protected:
  void SetUp() override {
    SecurityTest::SetUp();
    ServerOptions options;
    options.token_file =
        Write("tokens", absl::StrCat("# roles\nread ", kReadToken, "\n\nadmin ",
                                     kAdminToken, "\n"));
    StartServer(options);
  }
};

TEST_F(TokenTest, CallsWithoutAValidTokenAreUnauthenticated) {
  for (const char* token : {"", "not-a-token-0123456789", "read-token"}) {
    auto client = ClientOf("", {}, token);
    absl::Status solved = Solve(*client);
    EXPECT_EQ(solved.code(), absl::StatusCode::kUnauthenticated)
        << "token '" << token << "': " << solved;
    EXPECT_EQ(client->ListRigs().status().code(),
              absl::StatusCode::kUnauthenticated);
    EXPECT_EQ(client->RegisterRig(::ik::testing::ArmRig()).status().code(),
              absl::StatusCode::kUnauthenticated);
  }
  EXPECT_THAT(std::string(Solve(*ClientOf("")).message()), HasSubstr("Bearer"));
}

TEST_F(TokenTest, AuthorizationThatIsNotABearerTokenIsUnauthenticated) {
  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                          grpc::InsecureChannelCredentials());
  auto stub = v1::IkService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Basic ", kAdminToken));
  v1::ListRigsResponse response;
  grpc::Status status =
      stub->ListRigs(&context, v1::ListRigsRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("not 'Bearer <token>'"));
}

TEST_F(TokenTest, ReadTokenSolvesAndListsButMayNotChangeTheRegistries) {
  auto client = ClientOf("", {}, kReadToken);
  EXPECT_TRUE(Solve(*client).ok()) << Solve(*client);
  EXPECT_TRUE(client->ListRigs().ok());
  EXPECT_TRUE(client->GetRig("humanoid").ok());
  EXPECT_TRUE(client->ListTerrains().ok());
  absl::Status registered =
      client->RegisterRig(::ik::testing::ArmRig()).status();
  EXPECT_EQ(registered.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(registered.message(),
            "RegisterRig needs an admin token; this token's role is read");
  EXPECT_EQ(client->DeleteRig("humanoid").status().code(),
            absl::StatusCode::kPermissionDenied);
  v1::Terrain terrain;
  terrain.set_name("flat");
  *terrain.mutable_mesh() = ::ik::testing::GridMesh(1, 1, 1, 0, 0, 0, 0);
  EXPECT_EQ(client->RegisterTerrain(terrain).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(client->DeleteTerrain("flat").status().code(),
            absl::StatusCode::kPermissionDenied);
  // Nothing changed: the rigs are the examples', as at the start.
  std::vector<std::string> names;
  for (const auto& entry : server_->registry().List()) {
    names.push_back(entry->name());
  }
  EXPECT_THAT(names, ::testing::Contains("humanoid"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("arm")));
  EXPECT_EQ(static_cast<int>(names.size()), server_->loaded_rigs());
}

TEST_F(TokenTest, AdminTokenMayAlsoRegisterAndDelete) {
  auto client = ClientOf("", {}, kAdminToken);
  EXPECT_TRUE(Solve(*client).ok());
  ASSERT_TRUE(client->RegisterRig(::ik::testing::ArmRig()).ok());
  EXPECT_TRUE(client->DeleteRig("arm").ok());
}

TEST_F(TokenTest, HealthNeedsNoToken) {
  absl::StatusOr<bool> health = ClientOf("")->CheckHealth();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_TRUE(*health);
}

TEST_F(TokenTest, TickStreamNeedsAToken) {
  v1::TickRequest request;
  request.set_sequence(1);
  v1::TickCharacter* character = request.add_characters();
  character->set_rig("humanoid");
  *character->add_goals() = ArmGoal().goals(0);
  {
    auto client = ClientOf("");
    ik::TickStream stream(*client);
    absl::StatusOr<v1::TickResponse> answer = stream.Tick(request);
    EXPECT_EQ(answer.status().code(), absl::StatusCode::kUnauthenticated)
        << answer.status();
  }
  auto client = ClientOf("", {}, kReadToken);
  ik::TickStream stream(*client);
  absl::StatusOr<v1::TickResponse> answer = stream.Tick(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->sequence(), 1u);
  ASSERT_EQ(answer->characters_size(), 1);
  EXPECT_TRUE(answer->characters(0).goals(0).reached());
}

TEST_F(SecurityTest, TokensAndMutualTlsTogether) {
  TestCa ca("ikd CA");
  ServerOptions options;
  options.tls = ServerFiles(ca.Issue("ikd", -absl::Hours(1), absl::Hours(1)),
                            ca.cert_pem());
  options.token_file = Write("tokens", absl::StrCat("read ", kReadToken));
  StartServer(options);
  const TestCertificate client =
      ca.Issue("game-server", -absl::Hours(1), absl::Hours(1));
  EXPECT_EQ(Solve(*ClientOf(ca.cert_pem(), client)).code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(Solve(*ClientOf(ca.cert_pem(), client, kReadToken)).ok());
}

// --- The token file ----------------------------------------------------

TEST(AccessTokensTest, MalformedFilesAreRefusedNamingTheLine) {
  struct Case {
    const char* contents;
    const char* message;
  };
  const Case cases[] = {
      {"", "tokens: holds no token"},
      {"# only a comment\n", "tokens: holds no token"},
      {"root 0123456789abcdef0",
       "tokens: line 1: the first word is not a role (read or admin)"},
      {"0123456789abcdef-secret admin",
       "tokens: line 1: the role comes first: '<role> <token>'"},
      {"#\n0123456789abcdef-secret",
       "tokens: line 2: expected '<role> <token>'"},
      {"read\n", "tokens: line 1: expected '<role> <token>'"},
      {"\n\nread a b c", "tokens: line 3: expected '<role> <token>'"},
      {"read short", "tokens: line 1: a token is 16 to 512"},
      {"admin 0123456789abcdef\x01secret",
       "tokens: line 1: a token is 16 to 512"},
      {"read 0123456789abcdef\nadmin 0123456789abcdef",
       "tokens: line 2: this token is given on an earlier line too"},
  };
  for (const Case& bad : cases) {
    auto parsed = AccessTokens::Parse(bad.contents, "tokens");
    ASSERT_FALSE(parsed.ok()) << bad.contents;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(parsed.status().message());
    EXPECT_THAT(message, StartsWith(bad.message)) << bad.contents;
    // No word of the file but the role names reaches the message: any of
    // them may be a token (or its first characters).
    for (absl::string_view word : absl::StrSplit(
             bad.contents, absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
      if (word.size() < 5 || word == "admin") continue;
      EXPECT_THAT(message, Not(HasSubstr(std::string(word)))) << bad.contents;
    }
  }
  EXPECT_EQ(AccessTokens::Load("/nonexistent/tokens").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(AccessTokensTest, RolesGrantWhatTheyShould) {
  auto tokens = AccessTokens::Parse(
      "  read   0123456789abcdef-r  \n\tadmin 0123456789abcdef-a\n", "t");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_EQ(tokens->size(), 2);
  EXPECT_TRUE(
      tokens->Check("Bearer 0123456789abcdef-r", Role::kRead, "Solve").ok());
  EXPECT_EQ(
      tokens->Check("Bearer 0123456789abcdef-r", Role::kAdmin, "Delete").code(),
      absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(
      tokens->Check("Bearer 0123456789abcdef-a", Role::kAdmin, "Delete").ok());
  EXPECT_TRUE(
      tokens->Check("Bearer 0123456789abcdef-a", Role::kRead, "Solve").ok());
  EXPECT_EQ(tokens->Check("", Role::kRead, "Solve").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(
      tokens->Check("Bearer 0123456789abcdef-x", Role::kRead, "Solve").code(),
      absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace ik::server
