// The torque solver's settings (ik/solvers/torque.h), apart from the solver so
// that rig.h can hold them per chain.
#ifndef IK_TORQUE_SETTINGS_H_
#define IK_TORQUE_SETTINGS_H_

#include "absl/types/span.h"
#include "ik/base/math.h"

namespace ik {

// One joint's resistance to turning. The defaults resist nothing but the
// turn itself (every joint equal, no spring).
struct TorqueJointSettings {
  // Resistance to any turn, relative to the chain's other joints: finite,
  // > 0. Of the tip's move, each joint takes a share inversely proportional
  // to its resistance. Dimensionless (only ratios matter).
  double stiffness = 1.0;
  // The spring towards `preferred_rotation` beyond the comfort range,
  // resisting torque per radian of bend past `comfort`, in the units of
  // `stiffness`: finite, >= 0 (0: no spring). Each iteration the joint
  // springs back by elasticity / (stiffness + elasticity) of its bend past
  // comfort, less what the target needs.
  double elasticity = 0.0;
  // Radians, [0, pi]: the bend from `preferred_rotation` (the angle of
  // preferred^-1 * local) within which the spring does nothing.
  double comfort = 0.0;
  // The local rotation (same frame as ChainJob::locals) the joint is most
  // comfortable in; unit (within about 1e-3). Typically the joint's rest
  // rotation (JointDefinition::rest.rotation); the caller fills it in.
  Quat preferred_rotation{1.0, 0.0, 0.0, 0.0};
};

// How the torque solver steps. Owns nothing.
struct TorqueSettings {
  // The sensitivity k of Elias's torque rule (ik/solvers/torque.h): the
  // fraction of the predicted step taken each iteration, (0, 1]. Below 1 the
  // tip approaches more smoothly, in more iterations.
  double gain = 1.0;
  // The damped variant's lambda, as a fraction of the chain's length (the
  // sum of its bones), so one value suits chains of any size: finite,
  // >= 0; 0 selects the plain Jacobian-transpose step. Larger is steadier
  // near straight poses and slower to converge.
  double damping = 0.05;
  // Radians, (0, pi]: the largest turn of any joint in one iteration; a
  // larger step is scaled down as a whole.
  double max_step = 0.5;
  // The root's stiffness and elasticity as a multiple of the last turned
  // joint's: finite, > 0. Joint j of the n - 1 turned joints is scaled by
  // root_stiffness^((n - 2 - j) / (n - 2)), on top of its own settings
  // (1: no profile; 4: the root four times as stiff as the joint before the
  // tip).
  double root_stiffness = 1.0;
  // Optional: empty (every joint TorqueJointSettings{}), or one per joint
  // (same size as ChainJob::locals; the tip's is not used). It is the
  // caller's responsibility to keep it alive during Run().
  absl::Span<const TorqueJointSettings> joints;
};

}  // namespace ik

#endif  // IK_TORQUE_SETTINGS_H_
