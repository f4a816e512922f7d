// Closes what base/avx_target_begin.h opened. Deliberately without an
// include guard.
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
