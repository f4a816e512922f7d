// A fixed, seeded set of requests for every RPC of ik.v1.IkService, against
// the bundled example rigs and terrains: every solver with and without
// limits, poles, swivel angles and orientations, ad hoc chains, every kind of
// ground, dynamics with states carried from step to step, the registry calls
// and a few refused requests. golden_answers_test.cc replays them on a real
// server and compares every answer, bit for bit, with the recorded ones.
#ifndef IK_TESTS_SERVER_GOLDEN_REQUESTS_H_
#define IK_TESTS_SERVER_GOLDEN_REQUESTS_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ik/v1/ik.grpc.pb.h"

namespace ik::testing {

// What one case produced: the status code and, for an answer, its
// deterministic serialisation (error messages are not part of it).
struct GoldenAnswer {
  grpc::StatusCode code = grpc::StatusCode::OK;
  std::string bytes;
  std::string text;  // the answer in protobuf text form, for IKD_GOLDEN_TEXT
};

// One case: a name unique in the set, and how to ask for it. A case may
// depend on the answers of the cases before it (dynamics states carried
// from one step to the next), so cases run in order on one server.
struct GoldenCase {
  std::string name;
  std::function<GoldenAnswer(v1::IkService::Stub&)> run;
};

// The whole set, in order. The server must have loaded examples/rigs and
// examples/terrains and nothing else.
std::vector<GoldenCase> GoldenCases();

// "name code sha256-hex" for one case, as the golden file stores it.
std::string GoldenLine(const std::string& name, const GoldenAnswer& answer);

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_GOLDEN_REQUESTS_H_
