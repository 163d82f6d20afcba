#pragma once
// What the stratifying samplers share: the layout of a pixel's samples, a seeded pseudo-random permutation of [0, n) (Kensler 2013,
// "Correlated Multi-Jittered Sampling": a bijective hash on the next power of two, walked until it
// lands below n), and base-2 radical inverses for the (0, 2)-sequence. Every function is pure:
// a sample's numbers depend on its index, its pixel and its dimension only.
#include <cstdint>

namespace dray {

// A pixel's samples as a sampler lays them out: `count` in all (Mitsuba's sample count, which the
// sampler may round up from the spp asked for), on an rx x ry grid where the sampler has one.
struct SampleLayout {
  uint32_t count = 1, rx = 1, ry = 1;
};

// Index i's place in the permutation of [0, n) that `seed` names.
inline uint32_t permute(uint32_t i, uint32_t n, uint32_t seed) {
  if (n <= 1) return 0;
  uint32_t mask = n - 1;  // all ones below n's top bit: the hash is a bijection on [0, mask]
  mask |= mask >> 1, mask |= mask >> 2, mask |= mask >> 4, mask |= mask >> 8, mask |= mask >> 16;
  // Each step is a bijection on the low bits: xor, multiplication by an odd number, xorshift right.
  auto hash = [&](uint32_t x) {
    x ^= seed;
    x = (x * 0xe170893du) & mask;
    x ^= (seed >> 16) & mask;
    x ^= x >> 4;
    x = (x * (0x0929eb3fu | (seed >> 27) | 1u)) & mask;
    x ^= (seed >> 8) & mask;
    x ^= x >> 1;
    x = (x * 0x6935fa69u) & mask;
    x ^= x >> 11;
    x = (x * 0x74dcb303u) & mask;
    x ^= x >> 2;
    x = (x * 0x9e501cc3u) & mask;
    x ^= x >> 5;
    return x;
  };
  do i = hash(i); while (i >= n);  // a cycle through [0, mask] returns below n
  return uint32_t((uint64_t(i) + seed) % n);
}

// 32 random bits of (a, b): a seed per pixel and dimension.
inline uint32_t hash32(uint32_t a, uint32_t b) {
  uint64_t z = (uint64_t(a) << 32 | b) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return uint32_t((z ^ (z >> 31)) >> 32);
}


// The top 24 of 32 bits as a float in [0, 1): exact, never 1.
inline float bits_to_unit(uint32_t bits) { return float(bits >> 8) * 0x1p-24f; }

// The van der Corput radical inverse of i in base 2, xor-scrambled.
inline float radical_inverse_2(uint32_t i, uint32_t scramble) {
  i = (i << 16) | (i >> 16);
  i = ((i & 0x00ff00ffu) << 8) | ((i & 0xff00ff00u) >> 8);
  i = ((i & 0x0f0f0f0fu) << 4) | ((i & 0xf0f0f0f0u) >> 4);
  i = ((i & 0x33333333u) << 2) | ((i & 0xccccccccu) >> 2);
  i = ((i & 0x55555555u) << 1) | ((i & 0xaaaaaaaau) >> 1);
  return bits_to_unit(i ^ scramble);
}

// The second dimension of Sobol's sequence (with the van der Corput one, a (0, 2)-sequence),
// xor-scrambled.
inline float sobol_2(uint32_t i, uint32_t scramble) {
  for (uint32_t v = 1u << 31; i != 0; i >>= 1, v ^= v >> 1)
    if (i & 1u) scramble ^= v;
  return bits_to_unit(scramble);
}

}  // namespace dray
