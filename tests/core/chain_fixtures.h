// Small chains for the FABRIK and CCD unit tests: a straight or bent chain
// of local transforms with optional limits, forward kinematics written here
// (4x4 matrices, independent of the core's), and job set-up.
#ifndef IK_TESTS_CORE_CHAIN_FIXTURES_H_
#define IK_TESTS_CORE_CHAIN_FIXTURES_H_

#include <cstdint>
#include <deque>
#include <glm/gtc/matrix_transform.hpp>
#include <vector>

#include "absl/types/span.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/solvers/chain_job.h"

namespace ik::testing {

// A chain of local transforms: joint 0 at `base` in its parent's frame
// (identity unless set), each next joint `lengths[i]` along +X of the
// previous one's frame, all rotations identity (a straight chain along +X).
class TestChain {
 public:
  TestChain(const Vec3& base, const std::vector<double>& lengths) {
    Transform root;
    root.translation = base;
    locals_.push_back(root);
    for (const double length : lengths) {
      Transform local;
      local.translation = Vec3(length, 0.0, 0.0);
      locals_.push_back(local);
    }
    constraints_.resize(locals_.size());
  }
  // Constraints point into limits_: not copyable.
  TestChain(const TestChain&) = delete;
  TestChain& operator=(const TestChain&) = delete;

  // Gives joint i a limit (relative to its current rotation as rest).
  void SetLimit(int i, const JointLimit& limit) {
    limits_.push_back(limit);
    constraints_[i].limit = &limits_.back();
    constraints_[i].rest_rotation = locals_[i].rotation;
  }

  std::vector<Transform>& locals() { return locals_; }
  // The model transform of joint 0's parent (identity by default).
  Transform& parent() { return parent_; }
  absl::Span<const JointConstraint> constraints() const { return constraints_; }

  // Model positions of all joints, by 4x4 matrices.
  std::vector<Vec3> Positions() const {
    std::vector<Vec3> positions;
    glm::dmat4 matrix = glm::translate(glm::dmat4(1.0), parent_.translation) *
                        glm::mat4_cast(parent_.rotation) *
                        glm::scale(glm::dmat4(1.0), parent_.scale);
    for (const Transform& local : locals_) {
      matrix = matrix * glm::translate(glm::dmat4(1.0), local.translation) *
               glm::mat4_cast(local.rotation) *
               glm::scale(glm::dmat4(1.0), local.scale);
      positions.push_back(Vec3(matrix[3]));
    }
    return positions;
  }
  Vec3 Tip() const { return Positions().back(); }

  // A job of type Job on this chain, writing to the given outputs.
  template <typename Job>
  Job MakeJob(const Vec3& target, ChainWorkspace* workspace,
              SolveReport* report, StopReason* stop_reason = nullptr,
              std::uint64_t* limited_mask = nullptr, bool limits = true) {
    Job job;
    job.parent_model = parent_;
    job.locals = absl::MakeSpan(locals_);
    if (limits) job.constraints = constraints_;
    job.target_model = target;
    job.workspace = workspace;
    job.report = report;
    job.stop_reason = stop_reason;
    job.limited_mask = limited_mask;
    return job;
  }

 private:
  Transform parent_;
  std::vector<Transform> locals_;
  std::vector<JointConstraint> constraints_;
  std::deque<JointLimit> limits_;  // stable addresses
};

inline JointLimit HingeLimitAbout(const Vec3& axis, double min, double max) {
  JointLimit limit;
  limit.kind = JointLimit::Kind::kHinge;
  limit.hinge.axis = axis;
  limit.hinge.range = {min, max};
  return limit;
}

// A cone about the bone (+X, as TestChain's bones run), optional twist.
inline JointLimit ConeLimit(double swing_max, double twist = -1.0) {
  JointLimit limit;
  limit.kind = JointLimit::Kind::kBallSocket;
  limit.ball_socket.axis = Vec3(1.0, 0.0, 0.0);
  limit.ball_socket.twist_axis = Vec3(1.0, 0.0, 0.0);
  limit.ball_socket.swing_max = swing_max;
  if (twist >= 0.0) {
    limit.ball_socket.has_twist = true;
    limit.ball_socket.twist = {-twist, twist};
  }
  return limit;
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_CHAIN_FIXTURES_H_
