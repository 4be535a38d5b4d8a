/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * slots: the memory of frames held back by impairment (src/run/impairing.c,
 * hold()), in fixed-size slots allocated before the run, so that holding
 * a frame in the send loop costs a memcpy and never a page fault.
 *
 * Two classes.  Every frame up to SLOTS_SMALL_BYTES (an Ethernet frame
 * with tags and the room edits need) takes a slot from the small pool: its
 * slots are packed end to end and made resident by slots_init() (up to
 * SLOTS_RESIDENT_MAX bytes of them), so the queue's memory is limit x 2 KiB
 * and a held frame touches one or two cache lines of pages already mapped.
 * A longer frame (jumbo, or a trace whose snaplen allows one) takes a slot
 * from the large pool, as long as the longest frame the traces declare;
 * that pool is reserved address space only and is faulted in where a large
 * frame lands.  The first measurement on the project machine: a slot per
 * 64 KiB (the traces' snaplen) meant a fresh page for each of the first
 * ~900 frames held at 90k pps with 10 ms of delay, ~16 us of page fault
 * each, and the whole run started 15 ms late (BENCHMARKS.md, "held frames without page faults").
 *
 * Each pool has as many slots as the caller may hold frames at once (the
 * queue's limit), so a pool never runs dry while the caller keeps to it.
 * Free slots are a stack: the slot freed last is used next, warm in cache.
 */
#ifndef REPLAY_SLOTS_H
#define REPLAY_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#define SLOTS_SMALL_BYTES 2048u                /* the small class: 1514 + tags + edits' room, 64-aligned */
#define SLOTS_RESIDENT_MAX ((size_t)128 << 20) /* made resident up front, at most (the rest on first use) */

struct slots_pool {
	uint8_t *mem;     /* n x stride bytes, page-aligned (an anonymous mapping) */
	size_t map_bytes; /* its length */
	unsigned *free;   /* free slot numbers within the pool, a stack */
	unsigned nfree;
	uint32_t stride;  /* bytes per slot, a multiple of 64 */
};

struct slots {
	struct slots_pool pool[2]; /* [0] small, [1] large (mem NULL when the small class holds every frame) */
	unsigned n;                /* slots per pool */
	uint32_t max_bytes;        /* the longest frame a slot holds */
};

/*
 * slots_init() - @n slots (>= 1) for frames of up to @max_bytes (>= 1).
 * 0, -EINVAL or -ENOMEM (nothing left allocated).
 */
int slots_init(struct slots *s, unsigned n, uint32_t max_bytes);

/* slots_free() - release all memory; idempotent. */
void slots_free(struct slots *s);

/*
 * slots_get() - a slot for a frame of @len bytes: its id (0 .. 2n - 1),
 * and its memory in *@buf.  -1 when @len exceeds max_bytes or its pool is
 * empty (more than n held of that class).
 */
static inline int slots_get(struct slots *s, uint32_t len, uint8_t **buf)
{
	unsigned c = len > s->pool[0].stride;
	struct slots_pool *p = &s->pool[c];
	unsigned k;

	if (len > s->max_bytes || !p->nfree)
		return -1;
	k = p->free[--p->nfree];
	*buf = p->mem + (size_t)k * p->stride;
	return (int)(c * s->n + k);
}

/* slots_put() - give back slot @id from slots_get(). */
static inline void slots_put(struct slots *s, unsigned id)
{
	unsigned c = id >= s->n;
	struct slots_pool *p = &s->pool[c];

	p->free[p->nfree++] = id - c * s->n;
}

/* slots_ids() - how many ids slots_get() can return: an array indexed by id has this many entries. */
static inline unsigned slots_ids(const struct slots *s)
{
	return s->pool[1].mem ? 2 * s->n : s->n;
}

/* slots_resident() - bytes slots_init() made resident (for messages and tests). */
size_t slots_resident(const struct slots *s);

#endif
