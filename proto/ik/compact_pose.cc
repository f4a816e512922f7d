#include "ik/compact_pose.h"

#include <cmath>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"

namespace ik {
namespace {

constexpr double kCodeMax = 32767.0;
constexpr std::uint64_t kCodeMask = 0x7FFF;
// sqrt(2), correctly rounded.
constexpr double kSqrt2 = 1.4142135623730951;

}  // namespace

std::array<std::uint8_t, kSmallestThreeBytes> PackSmallestThree(double x,
                                                                double y,
                                                                double z,
                                                                double w) {
  const double norm = std::sqrt(x * x + y * y + z * z + w * w);
  std::array<double, 4> q = {0.0, 0.0, 0.0, 1.0};
  if (std::isfinite(norm) && norm > 0.0) {
    q = {x / norm, y / norm, z / norm, w / norm};
  }
  int largest = 0;
  for (int i = 1; i < 4; ++i) {
    if (std::abs(q[i]) > std::abs(q[largest])) largest = i;
  }
  const double sign = q[largest] < 0.0 ? -1.0 : 1.0;
  std::uint64_t value = static_cast<std::uint64_t>(largest);
  int shift = 2;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double code =
        std::nearbyint((sign * q[i] * kSqrt2 + 1.0) * 0.5 * kCodeMax);
    value |=
        static_cast<std::uint64_t>(std::fmin(std::fmax(code, 0.0), kCodeMax))
        << shift;
    shift += 15;
  }
  std::array<std::uint8_t, kSmallestThreeBytes> bytes;
  for (int b = 0; b < kSmallestThreeBytes; ++b) {
    bytes[b] = static_cast<std::uint8_t>(value >> (8 * b));
  }
  return bytes;
}

std::array<double, 4> UnpackSmallestThree(const std::uint8_t* bytes) {
  std::uint64_t value = 0;
  for (int b = 0; b < kSmallestThreeBytes; ++b) {
    value |= static_cast<std::uint64_t>(bytes[b]) << (8 * b);
  }
  const int largest = static_cast<int>(value & 3);
  std::array<double, 4> q;
  double squares = 0.0;
  int shift = 2;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double code = static_cast<double>((value >> shift) & kCodeMask);
    q[i] = (code / kCodeMax * 2.0 - 1.0) / kSqrt2;
    squares += q[i] * q[i];
    shift += 15;
  }
  const double rest = 1.0 - squares;
  q[largest] = rest > 0.0 ? std::sqrt(rest) : 0.0;
  return q;
}

void SetCompactRotations(absl::Span<const float> rotations,
                         RotationEncoding encoding, v1::CompactPose& pose) {
  pose.clear_joints();
  pose.clear_rotations();
  pose.clear_quantized_rotations();
  if (encoding == RotationEncoding::kFloat) {
    pose.mutable_rotations()->Add(rotations.begin(), rotations.end());
    return;
  }
  std::string& bytes = *pose.mutable_quantized_rotations();
  bytes.reserve(rotations.size() / 4 * kSmallestThreeBytes);
  for (size_t j = 0; j + 3 < rotations.size(); j += 4) {
    const auto packed = PackSmallestThree(rotations[j], rotations[j + 1],
                                          rotations[j + 2], rotations[j + 3]);
    bytes.append(reinterpret_cast<const char*>(packed.data()), packed.size());
  }
}

absl::Status ApplyCompactRotations(const v1::CompactPose& pose,
                                   absl::Span<float> rotations) {
  const bool quantized = !pose.quantized_rotations().empty();
  const int given = quantized
                        ? static_cast<int>(pose.quantized_rotations().size()) /
                              kSmallestThreeBytes
                        : pose.rotations_size() / 4;
  const int numbers = quantized
                          ? static_cast<int>(pose.quantized_rotations().size())
                          : pose.rotations_size();
  const int per_joint = quantized ? kSmallestThreeBytes : 4;
  const int listed = pose.joints_size() > 0 ? pose.joints_size() : given;
  if (numbers != listed * per_joint) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compact_pose: ", numbers, quantized ? " bytes" : " numbers", " for ",
        listed, " joints"));
  }
  const int joints = static_cast<int>(rotations.size() / 4);
  for (int k = 0; k < listed; ++k) {
    const int joint = pose.joints_size() > 0 ? pose.joints(k) : k;
    if (joint < 0 || joint >= joints) {
      return absl::InvalidArgumentError(
          absl::StrCat("compact_pose.joints[", k, "]: joint ", joint,
                       " is not among the ", joints, " joints given"));
    }
  }
  const auto* bytes =
      reinterpret_cast<const std::uint8_t*>(pose.quantized_rotations().data());
  for (int k = 0; k < listed; ++k) {
    float* out =
        rotations.data() + 4 * (pose.joints_size() > 0 ? pose.joints(k) : k);
    if (!quantized) {
      for (int i = 0; i < 4; ++i) out[i] = pose.rotations(4 * k + i);
      continue;
    }
    const std::array<double, 4> q =
        UnpackSmallestThree(bytes + kSmallestThreeBytes * k);
    const double norm =
        std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) out[i] = static_cast<float>(q[i] / norm);
  }
  return absl::OkStatus();
}

v1::Pose WidenedPose(const v1::CompactPose& pose) {
  v1::Pose out;
  *out.mutable_root() = pose.root();
  const bool quantized = !pose.quantized_rotations().empty();
  const int given = quantized
                        ? static_cast<int>(pose.quantized_rotations().size() /
                                           kSmallestThreeBytes)
                        : pose.rotations_size() / 4;
  const auto* bytes =
      reinterpret_cast<const std::uint8_t*>(pose.quantized_rotations().data());
  // The JointPose of each joint given one so far.
  std::map<int, v1::JointPose*> joint_poses;
  const auto joint_pose = [&](int joint) {
    v1::JointPose*& at = joint_poses[joint];
    if (at == nullptr) {
      at = out.add_joints();
      at->set_index(joint);
    }
    return at->mutable_local();
  };
  for (int k = 0; k < given; ++k) {
    std::array<double, 4> q;
    if (quantized) {
      q = UnpackSmallestThree(bytes + kSmallestThreeBytes * k);
    } else {
      for (int i = 0; i < 4; ++i) q[i] = pose.rotations(4 * k + i);
    }
    if (pose.joints_size() == 0) {
      out.mutable_rotations()->Add(q.begin(), q.end());
      continue;
    }
    if (k >= pose.joints_size()) break;
    v1::Quat& rotation = *joint_pose(pose.joints(k))->mutable_rotation();
    rotation.set_x(q[0]);
    rotation.set_y(q[1]);
    rotation.set_z(q[2]);
    rotation.set_w(q[3]);
  }
  for (int k = 0; k < pose.translated_joints_size() &&
                  3 * k + 2 < pose.translations_size();
       ++k) {
    v1::Vec3& translation =
        *joint_pose(pose.translated_joints(k))->mutable_translation();
    translation.set_x(pose.translations(3 * k));
    translation.set_y(pose.translations(3 * k + 1));
    translation.set_z(pose.translations(3 * k + 2));
  }
  return out;
}

}  // namespace ik
