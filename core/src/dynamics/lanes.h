// Two doubles computed side by side, one per lane (GCC's and Clang's vector
// extension, SSE2 on x86-64): a lane of a sum, difference, product,
// quotient or square root is the IEEE operation on that lane, so code that
// spells out a scalar formula on Lanes gives the scalar formula's bits in
// each lane. Comparisons give all-ones or zero per lane.
#ifndef IK_SRC_DYNAMICS_LANES_H_
#define IK_SRC_DYNAMICS_LANES_H_

#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ik::dynamics_internal {

// Sqrt is std::sqrt per lane; AtLeastZero is std::max(0.0, x) and
// AtMostOne std::min(1.0, x) per lane (NaN and -0 included: x > 0 ? x : 0,
// x < 1 ? x : 1).
#if defined(__SSE2__)
using Lanes = __m128d;
inline Lanes Sqrt(Lanes x) { return _mm_sqrt_pd(x); }
inline Lanes AtLeastZero(Lanes x) { return _mm_max_pd(x, _mm_setzero_pd()); }
inline Lanes AtMostOne(Lanes x) { return _mm_min_pd(x, _mm_set1_pd(1.0)); }
#else
typedef double Lanes __attribute__((vector_size(16)));
inline Lanes Sqrt(Lanes x) { return Lanes{std::sqrt(x[0]), std::sqrt(x[1])}; }
inline Lanes AtLeastZero(Lanes x) {
  return Lanes{x[0] > 0.0 ? x[0] : 0.0, x[1] > 0.0 ? x[1] : 0.0};
}
inline Lanes AtMostOne(Lanes x) {
  return Lanes{x[0] < 1.0 ? x[0] : 1.0, x[1] < 1.0 ? x[1] : 1.0};
}
#endif

inline Lanes Pair(double a, double b) { return Lanes{a, b}; }
inline Lanes Splat(double a) { return Lanes{a, a}; }

// A comparison's lanes as bits: lane 0 -> bit 0, lane 1 -> bit 1.
template <typename Mask>
inline unsigned LaneBits(const Mask& mask) {
#if defined(__SSE2__)
  return static_cast<unsigned>(
      _mm_movemask_pd(reinterpret_cast<__m128d>(mask)));
#else
  return static_cast<unsigned>(mask[0] != 0) |
         (static_cast<unsigned>(mask[1] != 0) << 1);
#endif
}

}  // namespace ik::dynamics_internal

#endif  // IK_SRC_DYNAMICS_LANES_H_
