// Limits and defaults shared by the rig and the solvers: a leaf header (no
// other ik header), so a solver can use them without the rig.
#ifndef IK_DEFAULTS_H_
#define IK_DEFAULTS_H_

namespace ik {

// The parent index of a root joint.
inline constexpr int kNoParent = -1;

// Size limits the core itself enforces (the server may set lower ones).
inline constexpr int kMaxJoints = 65536;
inline constexpr int kMaxChainJoints = 64;

// Bones shorter than this (metres, model space at rest) count as zero-length.
inline constexpr double kMinBoneLength = 1e-6;

// Default iteration cap and tolerance of a chain (the values of the CCD and
// FABRIK solvers in Szauer, "Hands-On C++ Game Animation Programming"
// (2020), ch. 13).
inline constexpr int kDefaultMaxIterations = 15;
inline constexpr double kDefaultTolerance = 1e-5;

}  // namespace ik

#endif  // IK_DEFAULTS_H_
