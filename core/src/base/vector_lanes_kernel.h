// Vectors and quaternions in SIMD lanes, one of each per lane, for the
// core's lane code (solvers/two_bone_lanes_kernel.h,
// rig/limb_lanes_kernel.h): glm's operations term for term, so that
// lane i of a result has the bits glm gives for lane i's values (with
// -ffp-contract=off, which the core builds with).
//
// Not a header to include anywhere else: a lane kernel includes it inside
// an anonymous namespace of ik, having defined
//   D                          the lane vector, kLanes doubles (GCC's
//                              vector extensions);
//   kLanes                     its width;
//   D Sqrt(D)                  the square root on every lane;
//   D Atan2Lanes(D y, D x)     Atan2 (ik/base/trig.h) on every lane, with
//                              the scalar function's bits;
//   unsigned MaskBits(M)       a comparison's lanes as bits, lane i -> bit i.
// Deliberately without an include guard.

// Per lane: all ones where a comparison holds, all zeros where not.
using M = decltype(D{} > D{});

struct V3x {
  D x, y, z;
};
struct Qx {
  D w, x, y, z;
};

inline D Splat(double v) {
  D d;
  for (int i = 0; i < kLanes; ++i) d[i] = v;
  return d;
}
inline V3x operator+(const V3x& a, const V3x& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline V3x operator-(const V3x& a, const V3x& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline V3x operator*(const V3x& a, D s) { return {a.x * s, a.y * s, a.z * s}; }
inline V3x operator*(D s, const V3x& a) { return {s * a.x, s * a.y, s * a.z}; }
// glm's dot and cross, term for term.
inline D Dot(const V3x& a, const V3x& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline V3x Cross(const V3x& x, const V3x& y) {
  return {x.y * y.z - y.y * x.z, x.z * y.x - y.z * x.x, x.x * y.y - y.x * x.y};
}
// glm's quaternion times vector.
inline V3x Rotate(const Qx& q, const V3x& v) {
  const V3x u{q.x, q.y, q.z};
  const V3x uv = Cross(u, v);
  const V3x uuv = Cross(u, uv);
  return v + ((uv * q.w) + uuv) * Splat(2.0);
}
// glm's quaternion product.
inline Qx Multiply(const Qx& p, const Qx& q) {
  return {p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
          p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
          p.w * q.y + p.y * q.w + p.z * q.x - p.x * q.z,
          p.w * q.z + p.z * q.w + p.x * q.y - p.y * q.x};
}
inline Qx Conjugate(const Qx& q) { return {q.w, -q.x, -q.y, -q.z}; }

// The lanes' values, one per item: get(*items[i]) for each lane i.
template <typename T, typename Get>
inline D Gather(const T* const items[kLanes], Get get) {
  D d;
  for (int i = 0; i < kLanes; ++i) d[i] = get(*items[i]);
  return d;
}
template <typename T, typename Get>
inline V3x Load(const T* const items[kLanes], Get get) {
  return {Gather(items, [&](const T& item) { return get(item).x; }),
          Gather(items, [&](const T& item) { return get(item).y; }),
          Gather(items, [&](const T& item) { return get(item).z; })};
}
template <typename T, typename Get>
inline Qx LoadRotation(const T* const items[kLanes], Get get) {
  return {Gather(items, [&](const T& item) { return get(item).w; }),
          Gather(items, [&](const T& item) { return get(item).x; }),
          Gather(items, [&](const T& item) { return get(item).y; }),
          Gather(items, [&](const T& item) { return get(item).z; })};
}
inline Quat Lane(const Qx& q, int i) {
  return Quat(q.w[i], q.x[i], q.y[i], q.z[i]);
}
