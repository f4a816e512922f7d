// Replays the golden request set (golden_requests.h) on a real ikd serving
// the bundled examples and compares every answer, bit for bit, with the
// answers recorded in tests/server/golden/answers.txt: reshaping the code
// must not change a single answer. Error messages are not compared (only
// their codes).
//
// To record the answers anew (only when an answer is meant to change, and
// say why in the commit):
//   IKD_GOLDEN_UPDATE=1 build/tests/server/golden_answers_test
// To see how much the answers moved, write their text forms before and after
// the change and compare them:
//   IKD_GOLDEN_TEXT=/tmp/before.txt build/tests/server/golden_answers_test
//   ... change, rebuild ...
//   IKD_GOLDEN_TEXT=/tmp/after.txt build/tests/server/golden_answers_test
//   tests/server/golden/compare_text.py /tmp/before.txt /tmp/after.txt
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "golden_requests.h"
#include "gtest/gtest.h"
#include "server.h"

namespace ik::testing {
namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

TEST(GoldenAnswersTest, EveryAnswerIsBitIdenticalToTheRecordedOne) {
  server::ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.rig_dir = IK_EXAMPLES_DIR "/rigs";
  options.terrain_dir = IK_EXAMPLES_DIR "/terrains";
  auto server = server::IkServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                          grpc::InsecureChannelCredentials());
  auto stub = v1::IkService::NewStub(channel);

  std::vector<std::string> answers;
  std::set<std::string> names;
  const char* text_path = std::getenv("IKD_GOLDEN_TEXT");
  std::ofstream text;
  if (text_path != nullptr) text.open(text_path);
  for (const GoldenCase& golden : GoldenCases()) {
    ASSERT_TRUE(names.insert(golden.name).second) << golden.name;
    const GoldenAnswer answer = golden.run(*stub);
    answers.push_back(GoldenLine(golden.name, answer));
    if (text.is_open()) {
      text << golden.name << " " << static_cast<int>(answer.code) << " "
           << answer.text << "\n";
    }
  }

  if (std::getenv("IKD_GOLDEN_UPDATE") != nullptr) {
    std::ofstream out(IK_GOLDEN_FILE);
    out << "# name, gRPC status code, SHA-256 of the answer's deterministic "
           "serialisation\n# (written by golden_answers_test with "
           "IKD_GOLDEN_UPDATE=1)\n";
    for (const std::string& line : answers) out << line << "\n";
    GTEST_SKIP() << "recorded " << answers.size() << " answers in "
                 << IK_GOLDEN_FILE;
  }

  const std::vector<std::string> recorded = ReadLines(IK_GOLDEN_FILE);
  ASSERT_EQ(recorded.size(), answers.size())
      << "the request set changed; record it again";
  int differing = 0;
  for (size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] != recorded[i]) {
      ++differing;
      ADD_FAILURE() << "answer differs:\n  recorded " << recorded[i]
                    << "\n  now      " << answers[i];
    }
  }
  EXPECT_EQ(differing, 0) << "of " << answers.size() << " answers";
}

}  // namespace
}  // namespace ik::testing
