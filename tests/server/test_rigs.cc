#include "test_rigs.h"

#include <cstdint>

namespace ik::testing {

v1::Vec3 Vec(double x, double y, double z) {
  v1::Vec3 v;
  v.set_x(x);
  v.set_y(y);
  v.set_z(z);
  return v;
}

v1::Quat Rotation(double x, double y, double z, double w) {
  v1::Quat q;
  q.set_x(x);
  q.set_y(y);
  q.set_z(z);
  q.set_w(w);
  return q;
}

v1::TriangleMesh GridMesh(int cells_x, int cells_z, double spacing,
                          double min_x, double min_z, double base_y,
                          double slope_z) {
  v1::TriangleMesh mesh;
  for (int k = 0; k <= cells_z; ++k) {
    for (int i = 0; i <= cells_x; ++i) {
      const double z = min_z + k * spacing;
      mesh.add_vertices(min_x + i * spacing);
      mesh.add_vertices(base_y + slope_z * z);
      mesh.add_vertices(z);
    }
  }
  const auto vertex = [&](int i, int k) {
    return static_cast<uint32_t>(k * (cells_x + 1) + i);
  };
  for (int k = 0; k < cells_z; ++k) {
    for (int i = 0; i < cells_x; ++i) {
      for (uint32_t index :
           {vertex(i, k), vertex(i + 1, k), vertex(i + 1, k + 1), vertex(i, k),
            vertex(i + 1, k + 1), vertex(i, k + 1)}) {
        mesh.add_indices(index);
      }
    }
  }
  return mesh;
}

v1::Rig ArmRig() {
  v1::Rig rig;
  rig.set_name("arm");
  v1::Joint* shoulder = rig.add_joints();
  shoulder->set_name("shoulder");
  v1::Joint* elbow = rig.add_joints();
  elbow->set_name("elbow");
  elbow->set_parent("shoulder");
  *elbow->mutable_rest()->mutable_translation() = Vec(0, -0.3, 0);
  // A slight forward bend (5 degrees about X) so the bend plane is defined.
  *elbow->mutable_rest()->mutable_rotation() =
      Rotation(-0.043619387365336, 0, 0, 0.999048221581858);
  v1::Joint* wrist = rig.add_joints();
  wrist->set_name("wrist");
  wrist->set_parent_index(1);
  *wrist->mutable_rest()->mutable_translation() = Vec(0, -0.25, 0);
  v1::Chain* chain = rig.add_chains();
  chain->set_name("arm");
  chain->set_root("shoulder");
  chain->set_tip("wrist");
  return rig;
}

}  // namespace ik::testing
