// Byte classes of sixteen bytes at once, for the per-line reads every line of the evidence goes
// through (evidence::prefixChannel, the telling lines' demotions): a class test per byte costs a
// branch each, and the end of a name or word comes out of one compare mask instead.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>

namespace attrib::evidence {

// The lanes of `v` whose byte is in [lo, hi] (unsigned), all ones; the others zero. SSE2 has no
// unsigned byte compare: a byte is in the range when subtracting lo leaves it at most hi - lo.
inline __m128i bytesInRange(__m128i v, char lo, char hi) {
  const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8(lo));
  return _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(static_cast<char>(hi - lo))), t);
}

}  // namespace attrib::evidence

#endif
