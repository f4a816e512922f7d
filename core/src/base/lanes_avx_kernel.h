// The four-lane width of the core's lane kernels
// (base/vector_lanes_kernel.h): four doubles of AVX (vaddpd, vmulpd, vdivpd
// and vsqrtpd on 256-bit registers; no FMA), and the functions of
// base/trig_lanes.h through their two-lane SSE2 builds on each half: clang
// passes 256-bit vectors to an external function in memory unless the
// whole build targets AVX, and SLEEF's AVX builds read them from
// registers, so the lanes keep to the halves' ABI that both compilers
// share.
//
// Not a header to include anywhere else: an AVX source file includes it
// inside an anonymous namespace of ik, within its AVX target pragma, after
// <immintrin.h> and base/trig_lanes.h, before the kernels. Deliberately
// without an include guard.

using D = double __attribute__((vector_size(32)));
constexpr int kLanes = 4;
inline D Sqrt(D v) { return D(_mm256_sqrt_pd(__m256d(v))); }
// A comparison's lanes as bits, lane i -> bit i (vmovmskpd).
inline unsigned MaskBits(decltype(D{} > D{}) mask) {
  return static_cast<unsigned>(_mm256_movemask_pd(__m256d(mask)));
}

// `f` on each two-lane half of `x`.
template <typename F>
inline D OnHalves(F f, D x) {
  const internal::Lanes2 low = f(internal::Lanes2{x[0], x[1]});
  const internal::Lanes2 high = f(internal::Lanes2{x[2], x[3]});
  return D{low[0], low[1], high[0], high[1]};
}
inline D Atan2Lanes(D y, D x) {
  const internal::Lanes2 low = internal::Atan2Lanes(
      internal::Lanes2{y[0], y[1]}, internal::Lanes2{x[0], x[1]});
  const internal::Lanes2 high = internal::Atan2Lanes(
      internal::Lanes2{y[2], y[3]}, internal::Lanes2{x[2], x[3]});
  return D{low[0], low[1], high[0], high[1]};
}
inline D SinLanes(D x) { return OnHalves(internal::SinLanes, x); }
inline D CosLanes(D x) { return OnHalves(internal::CosLanes, x); }
