// Size limits the service enforces on requests and on the registry. Each has
// a flag in main.cc; exceeding one gives RESOURCE_EXHAUSTED with the field.
#ifndef IK_SERVER_SERVICE_LIMITS_H_
#define IK_SERVER_SERVICE_LIMITS_H_

#include <cstdint>

namespace ik::server {

struct ServiceLimits {
  // Rigs held by the registry at once.
  int max_rigs = 1024;
  // Joints in one rig.
  int max_joints_per_rig = 512;
  // Chains in one rig.
  int max_chains_per_rig = 64;
  // Legs, colliders and dynamic chains in one rig (each).
  int max_parts_per_rig = 64;
  // Goals in one SolveChain request.
  int max_goals_per_request = 64;
  // Terrains held by the terrain registry at once.
  int max_terrains = 256;
  // Triangles, and vertices, in one registered mesh (each).
  int max_mesh_triangles = 1 << 20;
  // Samples in one registered heightfield.
  int max_heightfield_samples = 1 << 22;
  // Samples in one heightfield sent inline with a GroundFeet request.
  int max_inline_heightfield_samples = 1 << 16;
  // Planes, inline heightfields and terrains in one GroundFeet request
  // (together).
  int max_ground_shapes = 64;
  // Characters in one tick.
  int max_characters_per_tick = 4096;
  // Work (handlers/work.h: goals, grounding and dynamics in one unit) one
  // character may ask -- a single call's, or each of a tick's -- and one
  // call may ask over all its characters. Checked before any of it runs.
  std::int64_t max_work_per_character = 64'000'000;
  std::int64_t max_work_per_call = 150'000'000;
  // Bytes one tick's answer may hold: a tick whose characters' answers pass
  // it is refused whole, no more of it built once they do.
  std::int64_t max_answer_bytes = 8 << 20;
  // Bytes of answers written and not yet read (rpc/unread_answers.h) ikd
  // holds for one caller, and for all callers together, before it refuses
  // their next calls.
  std::int64_t max_unread_answer_bytes_per_caller = 8 << 20;
  std::int64_t max_unread_answer_bytes = 32 << 20;
  // Not a limit: whether terrains keep their definition (TerrainEntry), set
  // when the server records (--record_dir), whose files store the terrains
  // the recorded calls used. It counts against --max_registry_bytes.
  bool keep_terrain_definitions = false;
};

}  // namespace ik::server

#endif  // IK_SERVER_SERVICE_LIMITS_H_
