// SPDX-License-Identifier: BSD-2-Clause
/*
 * The per-packet action engine (replay/impair.h): hands out the trace's
 * actions in order, repeats the trace, falls back to the default once it is
 * exhausted, applies corruptions, and counts -- keeping "no more data"
 * apart from actions applied, as the netem trace extension does (A. Keller,
 * "Trace Control for Netem", ETH Zurich SA-2006-15, 2006).  No allocation
 * after impair_open().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "impair_int.h"

struct impair {
	struct impair_reader *rd;
	uint64_t repeat, rng, trace_len;
	bool exhausted;
	struct impair_action dflt;
	struct impair_stats st;
	char err[600];
};

static int im_fail(char *err, size_t errlen, int rc, const char *fmt, ...) PRINTF_LIKE(4, 5);

static int im_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static void copy_action(struct impair_action *d, const struct impair_action *s)
{
	d->drop = s->drop;
	d->delay_ns = s->delay_ns;
	d->ndup = s->ndup;
	d->ncorrupt = s->ncorrupt;
	d->src = s->src;
	memcpy(d->dup_delay_ns, s->dup_delay_ns, s->ndup * sizeof(s->dup_delay_ns[0]));
	memcpy(d->corrupt, s->corrupt, s->ncorrupt * sizeof(s->corrupt[0]));
}

int impair_open(struct impair **ip, const struct impair_cfg *cfg, size_t n, char *err,
		size_t errlen)
{
	struct impair *im;
	struct impair_action a;
	int rc;

	*ip = NULL;
	if (n != 1)
		return im_fail(err, errlen, -ENOTSUP,
			       "%zu impairment traces: only one is supported so far", n);
	if (cfg->filter)
		return im_fail(err, errlen, -ENOTSUP,
			       "--impair-flow: per-flow impairment is not supported yet");
	if (!cfg->path)
		return im_fail(err, errlen, -EINVAL, "no impairment trace given");
	if (impair_action_check(&cfg->dflt, err, errlen) < 0)
		return -EINVAL;
	im = calloc(1, sizeof(*im));
	if (!im)
		return im_fail(err, errlen, -ENOMEM, "out of memory");
	copy_action(&im->dflt, &cfg->dflt);
	im->dflt.src = IMPAIR_SRC_DEFAULT;
	im->repeat = cfg->repeat;
	im->rng = cfg->seed;
	rc = impair_reader_open(&im->rd, cfg->path);
	/* Read the whole trace once now: a bad action fails before the run, not in it. */
	while (rc >= 0 && (rc = impair_reader_next(im->rd, &a)) == 1)
		im->trace_len++;
	if (rc == 0)
		rc = impair_reader_rewind(im->rd);
	if (rc < 0) {
		snprintf(err, errlen, "%s", im->rd ? impair_reader_strerror(im->rd) : "out of memory");
		impair_close(im);
		return rc;
	}
	im->exhausted = im->trace_len == 0;
	*ip = im;
	return 0;
}

static void count(struct impair_stats *st, const struct impair_action *a)
{
	st->actions++;
	if (a->src == IMPAIR_SRC_TRACE)
		st->from_trace++;
	else
		st->from_default++;
	if (a->drop) {
		st->dropped++;
		return;
	}
	if (!a->delay_ns && !a->ndup && !a->ncorrupt)
		st->passed++;
	if (a->delay_ns)
		st->delayed++;
	if (a->ndup) {
		st->duplicated++;
		st->copies += a->ndup;
	}
}

int impair_next(struct impair *im, const uint8_t *frame, uint32_t len, struct impair_action *a)
{
	int rc;

	(void)frame;
	(void)len;
	while (!im->exhausted) {
		rc = impair_reader_next(im->rd, a);
		if (rc == 1) {
			a->src = IMPAIR_SRC_TRACE;
			count(&im->st, a);
			return 1;
		}
		if (rc < 0) {
			snprintf(im->err, sizeof(im->err), "%s", impair_reader_strerror(im->rd));
			return rc;
		}
		im->st.passes++;
		if (im->repeat && im->st.passes >= im->repeat) {
			im->exhausted = true;
			break;
		}
		rc = impair_reader_rewind(im->rd);
		if (rc < 0) {
			snprintf(im->err, sizeof(im->err), "%s", impair_reader_strerror(im->rd));
			return rc;
		}
	}
	copy_action(a, &im->dflt);
	count(&im->st, a);
	return 1;
}

/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014). */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t impair_corrupt_apply(struct impair *im, const struct impair_action *a, uint8_t *buf,
			      size_t len)
{
	uint64_t nbits = (uint64_t)len * 8;
	uint64_t flipped = 0;

	for (unsigned i = 0; i < a->ncorrupt; i++) {
		const struct impair_corrupt *c = &a->corrupt[i];

		switch (c->kind) {
		case IMPAIR_CORRUPT_BIT:
			if (c->pos >= nbits) {
				im->st.corrupt_outside++;
				break;
			}
			buf[c->pos / 8] ^= (uint8_t)(0x80u >> (c->pos % 8));
			flipped++;
			break;
		case IMPAIR_CORRUPT_BYTE:
			if (c->pos >= len) {
				im->st.corrupt_outside++;
				break;
			}
			buf[c->pos] ^= 0xff;
			flipped += 8;
			break;
		case IMPAIR_CORRUPT_RANDOM:
			if (!nbits) {
				im->st.corrupt_outside++;
				break;
			}
			/*
			 * K independent single-bit errors, uniform over the frame; at
			 * most one draw per bit of the frame, so that a huge K costs
			 * no more per packet than the frame's size.
			 */
			for (uint64_t k = 0; k < c->pos && k < nbits; k++) {
				uint64_t b = (uint64_t)(((unsigned __int128)rnd(&im->rng) * nbits) >> 64);

				buf[b / 8] ^= (uint8_t)(0x80u >> (b % 8));
				flipped++;
			}
			break;
		}
	}
	if (flipped) {
		im->st.corrupted++;
		im->st.bits_flipped += flipped;
	}
	return flipped;
}

const struct impair_stats *impair_stats(const struct impair *im)
{
	return &im->st;
}

const char *impair_strerror(const struct impair *im)
{
	return im->err[0] ? im->err : "no error";
}

void impair_close(struct impair *im)
{
	if (!im)
		return;
	impair_reader_close(im->rd);
	free(im);
}
