// A small arm rig definition and status expectations shared by the rig
// tests.
#ifndef IK_TESTS_CORE_RIG_FIXTURES_H_
#define IK_TESTS_CORE_RIG_FIXTURES_H_

#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/character/character.h"
#include "ik/rig/rig.h"

namespace ik::testing {

inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// shoulder (root) -> elbow -> wrist -> hand, with an "arm" chain.
inline RigDefinition ArmDefinition() {
  RigDefinition def;
  def.name = "arm";
  JointDefinition shoulder;
  shoulder.name = "shoulder";
  shoulder.rest.translation = Vec3(0.0, 1.4, 0.0);
  JointDefinition elbow;
  elbow.name = "elbow";
  elbow.parent = 0;
  elbow.rest.translation = Vec3(0.3, 0.0, 0.0);
  elbow.limit = Hinge(Vec3(0.0, -1.0, 0.0), 0.0, 2.5);
  JointDefinition wrist;
  wrist.name = "wrist";
  wrist.parent = 1;
  wrist.rest.translation = Vec3(0.25, 0.0, 0.0);
  JointDefinition hand;
  hand.name = "hand";
  hand.parent = 2;
  hand.rest.translation = Vec3(0.08, 0.0, 0.0);
  def.joints = {shoulder, elbow, wrist, hand};
  ChainDefinition chain;
  chain.name = "arm";
  chain.root = "shoulder";
  chain.tip = "wrist";
  def.chains = {chain};
  return def;
}

// Expects `def` to fail with `code` and a message containing `text`.
inline void ExpectError(RigDefinition def, absl::StatusCode code,
                        const std::string& text) {
  absl::StatusOr<Rig> rig = Rig::Create(std::move(def));
  ASSERT_FALSE(rig.ok()) << "expected an error containing '" << text << "'";
  EXPECT_EQ(rig.status().code(), code) << rig.status();
  EXPECT_TRUE(absl::StrContains(rig.status().message(), text))
      << "message: " << rig.status().message() << "\nwanted: " << text;
}

inline void ExpectInvalid(RigDefinition def, const std::string& text) {
  ExpectError(std::move(def), absl::StatusCode::kInvalidArgument, text);
}

// The same for a character: Character::Create (the rig, then its parts).
inline void ExpectError(CharacterDefinition def, absl::StatusCode code,
                        const std::string& text) {
  absl::StatusOr<Character> character = Character::Create(std::move(def));
  ASSERT_FALSE(character.ok())
      << "expected an error containing '" << text << "'";
  EXPECT_EQ(character.status().code(), code) << character.status();
  EXPECT_TRUE(absl::StrContains(character.status().message(), text))
      << "message: " << character.status().message() << "\nwanted: " << text;
}

inline void ExpectInvalid(CharacterDefinition def, const std::string& text) {
  ExpectError(std::move(def), absl::StatusCode::kInvalidArgument, text);
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_RIG_FIXTURES_H_
