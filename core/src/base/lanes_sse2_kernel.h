// The two-lane width of the core's lane kernels
// (base/vector_lanes_kernel.h): two doubles of SSE2 (x86-64's baseline;
// elsewhere the same operations lane by lane), and the two-lane functions
// of base/trig_lanes.h.
//
// Not a header to include anywhere else: a lane width's source file
// includes it inside an anonymous namespace of ik, after <emmintrin.h>
// (where __SSE2__ is defined), <cmath> and base/trig_lanes.h, before the
// kernels. Deliberately without an include guard.

// Two lanes: SSE2's addpd, mulpd, divpd and sqrtpd.
using D = internal::Lanes2;
constexpr int kLanes = 2;
inline D Sqrt(D v) {
#if defined(__SSE2__)
  return D(_mm_sqrt_pd(__m128d(v)));
#else
  return D{std::sqrt(v[0]), std::sqrt(v[1])};
#endif
}
// A comparison's lanes as bits, lane i -> bit i (movmskpd).
inline unsigned MaskBits(decltype(D{} > D{}) mask) {
#if defined(__SSE2__)
  return static_cast<unsigned>(_mm_movemask_pd(__m128d(mask)));
#else
  return (mask[0] != 0 ? 1u : 0u) | (mask[1] != 0 ? 2u : 0u);
#endif
}
using internal::Atan2Lanes;
using internal::CosLanes;
using internal::SinLanes;
