// Lists the rigs of the ikd at argv[1] and solves the humanoid's left arm.
#include <cstdio>

#include "ik/client.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer HOST:PORT\n");
    return 2;
  }
  ik::ClientOptions options;
  options.target = argv[1];
  ik::Client client(options);
  absl::StatusOr<ik::v1::ListRigsResponse> rigs = client.ListRigs();
  if (!rigs.ok()) {
    std::fprintf(stderr, "%s\n", rigs.status().ToString().c_str());
    return 1;
  }
  for (const ik::v1::RigSummary& rig : rigs->rigs()) {
    std::printf("rig %s\n", rig.name().c_str());
  }
  ik::v1::SolveChainRequest request;
  request.set_rig("humanoid");
  ik::v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("left_arm");
  goal->mutable_target()->set_x(0.45);
  goal->mutable_target()->set_y(1.2);
  goal->mutable_target()->set_z(0.15);
  absl::StatusOr<ik::v1::SolveChainResponse> answer =
      client.SolveChain(request);
  if (!answer.ok()) {
    std::fprintf(stderr, "%s\n", answer.status().ToString().c_str());
    return 1;
  }
  std::printf("reached %s\n", answer->results(0).reached() ? "yes" : "no");
  return 0;
}
