#include "base/trig_lanes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <sleef.h>

#include <cmath>

#include "ik/base/trig.h"

namespace ik::internal {

#if defined(__SSE2__)
// SSE2 is x86-64's baseline: SLEEF's SSE2 builds need nothing more.
Lanes2 Atan2Lanes(Lanes2 y, Lanes2 x) {
  return (Lanes2)Sleef_cinz_atan2d2_u35sse2((__m128d)y, (__m128d)x);
}
Lanes2 SinLanes(Lanes2 x) {
  return (Lanes2)Sleef_cinz_sind2_u35sse2((__m128d)x);
}
Lanes2 CosLanes(Lanes2 x) {
  Lanes2 cosine = (Lanes2)Sleef_cinz_cosd2_u35sse2((__m128d)x);
  // The one place the SSE2 build parts from the scalar one: near 0 (|x|
  // about 3.3e-16 to 5.2e-16, negative x only) the scalar build gives 1
  // where the SSE2 build gives 1 - 2^-53. Lanes below 2^-40 take the
  // scalar function.
  for (int i = 0; i < 2; ++i) {
    if (std::abs(x[i]) < 0x1p-40) cosine[i] = Cos(x[i]);
  }
  return cosine;
}

Lanes2 AcosLanes(Lanes2 x) {
  return (Lanes2)Sleef_cinz_acosd2_u35sse2((__m128d)x);
}
Lanes2 AsinLanes(Lanes2 x) {
  return (Lanes2)Sleef_cinz_asind2_u35sse2((__m128d)x);
}
#else
// Elsewhere, the scalar functions lane by lane.
Lanes2 Atan2Lanes(Lanes2 y, Lanes2 x) {
  return Lanes2{Atan2(y[0], x[0]), Atan2(y[1], x[1])};
}
Lanes2 SinLanes(Lanes2 x) { return Lanes2{Sin(x[0]), Sin(x[1])}; }
Lanes2 CosLanes(Lanes2 x) { return Lanes2{Cos(x[0]), Cos(x[1])}; }
Lanes2 AcosLanes(Lanes2 x) { return Lanes2{Acos(x[0]), Acos(x[1])}; }
Lanes2 AsinLanes(Lanes2 x) { return Lanes2{Asin(x[0]), Asin(x[1])}; }
#endif

bool HasAvxLanes() {
#if defined(__x86_64__)
  static const bool has_avx = __builtin_cpu_supports("avx");
  return has_avx;
#else
  return false;
#endif
}

}  // namespace ik::internal
