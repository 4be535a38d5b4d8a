// SPDX-License-Identifier: BSD-2-Clause
/*
 * The binary form of an impairment trace (layout in replay/impair.h): the
 * writer, and the check of what any trace can hold.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "impair_int.h"

int impair_action_check(const struct impair_action *a, char *err, size_t errlen)
{
	if (a->drop && (a->delay_ns || a->ndup || a->ncorrupt)) {
		snprintf(err, errlen, "'drop' cannot be combined with anything");
		return -EINVAL;
	}
	if (a->delay_ns > IMPAIR_DELAY_MAX) {
		snprintf(err, errlen, "delay of %" PRIu64 " ns is above 3600s", a->delay_ns);
		return -EINVAL;
	}
	for (unsigned i = 0; i < a->ndup; i++) {
		if (a->dup_delay_ns[i] > IMPAIR_DELAY_MAX) {
			snprintf(err, errlen, "delay of copy %u (%" PRIu64 " ns) is above 3600s",
				 i + 1, a->dup_delay_ns[i]);
			return -EINVAL;
		}
	}
	for (unsigned i = 0; i < a->ncorrupt; i++) {
		const struct impair_corrupt *c = &a->corrupt[i];

		if ((unsigned)c->kind > IMPAIR_CORRUPT_RANDOM || c->pos > IMPAIR_POS_MAX ||
		    (c->kind == IMPAIR_CORRUPT_RANDOM && !c->pos)) {
			snprintf(err, errlen, "corruption %u is not valid", i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static int put_word(FILE *f, uint32_t w)
{
	uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24) };

	return fwrite(b, 1, 4, f) == 4 ? 0 : -EIO;
}

/* The delay's word (bits 0..27) and whether it is wide (two words follow). */
static uint32_t delay_word(uint64_t ns, bool *wide)
{
	*wide = false;
	/* The coarsest unit that keeps the delay exact, as the text form writes it. */
	if (ns && ns % 1000000 == 0 && ns / 1000000 <= IMPAIR_W_VALUE_MASK)
		return (uint32_t)(ns / 1000000) | 2u << IMPAIR_W_UNIT_SHIFT;
	if (ns && ns % 1000 == 0 && ns / 1000 <= IMPAIR_W_VALUE_MASK)
		return (uint32_t)(ns / 1000) | 1u << IMPAIR_W_UNIT_SHIFT;
	if (ns <= IMPAIR_W_VALUE_MASK)
		return (uint32_t)ns;
	*wide = true;
	return IMPAIR_W_UNIT_WIDE << IMPAIR_W_UNIT_SHIFT;
}

static int put_delay(FILE *f, uint32_t extra, uint64_t ns)
{
	bool wide;
	uint32_t w = delay_word(ns, &wide) | extra;

	if (put_word(f, w) < 0)
		return -EIO;
	if (wide && (put_word(f, (uint32_t)ns) < 0 || put_word(f, (uint32_t)(ns >> 32)) < 0))
		return -EIO;
	return 0;
}

int impair_bin_write(FILE *f, const struct impair_action *a)
{
	if (a->drop)
		return put_word(f, IMPAIR_W_DROP);
	if (put_delay(f, a->ndup || a->ncorrupt ? IMPAIR_W_EXT : 0, a->delay_ns) < 0)
		return -EIO;
	if (!a->ndup && !a->ncorrupt)
		return 0;
	if (put_word(f, (uint32_t)a->ndup | (uint32_t)a->ncorrupt << 8) < 0)
		return -EIO;
	for (unsigned i = 0; i < a->ndup; i++)
		if (put_delay(f, 0, a->dup_delay_ns[i]) < 0)
			return -EIO;
	for (unsigned i = 0; i < a->ncorrupt; i++)
		if (put_word(f, (uint32_t)a->corrupt[i].kind << IMPAIR_C_KIND_SHIFT |
					a->corrupt[i].pos) < 0)
			return -EIO;
	return 0;
}

int impair_write_header(FILE *f, enum impair_fmt fmt)
{
	uint8_t h[IMPAIR_HDR_LEN] = { 'R', 'P', 'I', 'M', IMPAIR_VERSION, 0, 4, 0 };

	if (fmt != IMPAIR_FMT_BIN)
		return 0;
	return fwrite(h, 1, sizeof(h), f) == sizeof(h) ? 0 : -EIO;
}

int impair_write(FILE *f, enum impair_fmt fmt, const struct impair_action *a)
{
	char err[128];

	if (impair_action_check(a, err, sizeof(err)) < 0)
		return -EINVAL;
	return fmt == IMPAIR_FMT_BIN ? impair_bin_write(f, a) : impair_text_write(f, a);
}
