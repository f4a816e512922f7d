// A dynamics state in its packed form (DynamicChainState.packed), written
// from the proto's description: per joint, position, previous position,
// rotation -- 10 numbers -- and the three repeated fields cleared.
#ifndef IK_TESTS_SERVER_PACKED_STATE_H_
#define IK_TESTS_SERVER_PACKED_STATE_H_

#include "ik/v1/dynamics.pb.h"

namespace ik::testing {

inline v1::DynamicChainState Packed(v1::DynamicChainState state) {
  for (int k = 0; k < state.positions_size(); ++k) {
    const v1::Vec3& p = state.positions(k);
    const v1::Vec3& q = state.previous_positions(k);
    const v1::Quat& r = state.rotations(k);
    for (double value : {p.x(), p.y(), p.z(), q.x(), q.y(), q.z(), r.x(), r.y(),
                         r.z(), r.w()}) {
      state.add_packed(value);
    }
  }
  state.clear_positions();
  state.clear_previous_positions();
  state.clear_rotations();
  return state;
}

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_PACKED_STATE_H_
