/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside the impairment module: the two forms' codecs, shared by reader, writer and engine. */
#ifndef REPLAY_IMPAIR_INT_H
#define REPLAY_IMPAIR_INT_H

#include <stdio.h>

#include "replay/compiler.h"
#include "replay/impair.h"

/* Base word and extension layout (replay/impair.h). */
#define IMPAIR_W_VALUE_MASK 0x03ffffffu
#define IMPAIR_W_UNIT_SHIFT 26
#define IMPAIR_W_UNIT_WIDE 3u
#define IMPAIR_W_DROP (1u << 28)
#define IMPAIR_W_EXT (1u << 29)
#define IMPAIR_W_RESERVED 0xc0000000u
#define IMPAIR_W_DELAY_MASK 0x0fffffffu
#define IMPAIR_C_KIND_SHIFT 30
#define IMPAIR_C_POS_MASK 0x3fffffffu

/* impair_action_check() - can a trace hold @a?  0 or -EINVAL with the reason in @err. */
int impair_action_check(const struct impair_action *a, char *err, size_t errlen);

/* impair_text_write() - the canonical line of @a; 0 or -EIO. */
int impair_text_write(FILE *f, const struct impair_action *a);

/* impair_bin_write() - @a's words; 0 or -EIO. */
int impair_bin_write(FILE *f, const struct impair_action *a);

/*
 * The generator: xoshiro256** (D. Blackman, S. Vigna, "Scrambled linear
 * pseudorandom number generators", ACM TOMS 2021), its 256-bit state filled
 * from the 64-bit seed by splitmix64 (G. Steele, D. Lea, C. Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014).  Fixed, ours,
 * and documented in replay-impair(5), so a seed repeats a run on any machine.
 */
struct impair_rng {
	uint64_t s[4];
};

static inline uint64_t impair_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void impair_rng_seed(struct impair_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = impair_splitmix64(&seed);
}

static inline uint64_t impair_rng_next(struct impair_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5, res = (x << 7 | x >> 57) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = s[3] << 45 | s[3] >> 19;
	return res;
}

/* impair_rng_u32() - the upper 32 bits of the next draw (the better ones). */
static inline uint32_t impair_rng_u32(struct impair_rng *r)
{
	return (uint32_t)(impair_rng_next(r) >> 32);
}

/* impair_rng_below() - uniform in [0, n) by multiply-shift (n >= 1). */
static inline uint64_t impair_rng_below(struct impair_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)impair_rng_next(r) * n) >> 64);
}

/* ---- the statistical model (stat.c) ----------------------------------------- */

struct impair_stat;

int impair_stat_open(struct impair_stat **sp, const struct impair_stat_cfg *c, uint64_t seed,
		     char *err, size_t errlen);
/* One packet's action (src IMPAIR_SRC_MODEL); *@reordered when sent ahead. */
void impair_stat_next(struct impair_stat *s, uint64_t deadline_ns, uint32_t wirelen,
		      struct impair_action *a, bool *reordered);
void impair_stat_close(struct impair_stat *s);

#endif
