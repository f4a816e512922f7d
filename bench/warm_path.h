// The warm benchmarks' target path, shared by chain_bench and torque_bench.
#ifndef IK_BENCH_WARM_PATH_H_
#define IK_BENCH_WARM_PATH_H_

#include <algorithm>
#include <random>
#include <vector>

#include "ik/rig/rig.h"
#include "random_poses.h"

namespace ik::bench {

// The tip's path while the chain sweeps smoothly between random poses
// within the limits, about 1 cm (a tick) per step: `count` targets that stay
// reachable within the limits, as a character's animation gives.
inline std::vector<Vec3> WarmPath(const Rig& rig, const Chain& chain,
                                  std::mt19937_64& engine, int count) {
  std::vector<Vec3> path;
  std::vector<Transform> from =
      testing::RandomChainPose(rig, chain, rig.rest_pose(), engine);
  while (static_cast<int>(path.size()) < count) {
    const std::vector<Transform> to =
        testing::RandomChainPose(rig, chain, rig.rest_pose(), engine);
    const Vec3 start =
        testing::ModelTransforms(rig, from)[chain.joints.back()].translation;
    const Vec3 end =
        testing::ModelTransforms(rig, to)[chain.joints.back()].translation;
    const int steps =
        std::max(1, static_cast<int>(glm::length(end - start) / 0.01));
    std::vector<Transform> pose = from;
    for (int step = 1; step <= steps; ++step) {
      const double t = static_cast<double>(step) / steps;
      for (const int joint : chain.joints) {
        pose[joint].rotation =
            glm::slerp(from[joint].rotation, to[joint].rotation, t);
      }
      path.push_back(
          testing::ModelTransforms(rig, pose)[chain.joints.back()].translation);
    }
    from = to;
  }
  path.resize(count);
  return path;
}

}  // namespace ik::bench

#endif  // IK_BENCH_WARM_PATH_H_
