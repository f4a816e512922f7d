// Opens the part of an AVX source file whose functions are compiled for
// AVX (a target pragma: nothing else of the build is); base/avx_target_end.h
// closes it. None of those functions may run before internal::HasAvxLanes()
// (base/trig_lanes.h) says the processor has AVX.
//
// Not a header to include anywhere else: an AVX source file includes it on
// x86-64 after its own includes, and base/avx_target_end.h after its last
// AVX function. Deliberately without an include guard.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx")
#endif
