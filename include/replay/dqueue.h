/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dqueue: a deadline-ordered queue of fixed capacity, for the send loop
 * (src/run/loop.c) where packets become due out of read order: impairment
 * delays, two traces merged onto one schedule.  A binary min-heap keyed by
 * (deadline, sequence): the sequence is the order of insertion, so entries
 * with equal deadlines leave in the order they came (a stable merge, as
 * tcpreplay's --dualfile is meant to be).  All memory is allocated by
 * dq_init(); pushing and popping never allocate, O(log n) each.
 *
 * The loop does not use it when nothing can reorder packets (one source, no
 * impairment): a packet then goes straight from the source to its lane.
 */
#ifndef REPLAY_DQUEUE_H
#define REPLAY_DQUEUE_H

#include <stdbool.h>
#include <stdint.h>

struct dq_entry {
	uint64_t deadline_ns; /* the key: earliest first */
	uint64_t seq;         /* insertion order, breaks ties (set by dq_push()) */
	void *data;           /* the caller's; the queue never looks at it */
};

struct dqueue {
	struct dq_entry *heap; /* heap[0] is the earliest */
	unsigned n, cap;
	uint64_t next_seq;
};

/* dq_init() - an empty queue for at most @cap entries (@cap >= 1).  0, -EINVAL or -ENOMEM. */
int dq_init(struct dqueue *q, unsigned cap);

/* dq_free() - release its memory; the queue is then empty with capacity 0.  Idempotent. */
void dq_free(struct dqueue *q);

/* dq_len() / dq_full() - entries held; whether dq_push() would refuse. */
static inline unsigned dq_len(const struct dqueue *q)
{
	return q->n;
}

static inline bool dq_full(const struct dqueue *q)
{
	return q->n >= q->cap;
}

/* dq_push() - add @data due at @deadline_ns.  0, or -ENOSPC when full (nothing changed). */
int dq_push(struct dqueue *q, uint64_t deadline_ns, void *data);

/*
 * dq_peek() - the earliest entry (lowest deadline, then lowest sequence),
 * or NULL when empty.  Valid until the next push or pop.
 */
static inline const struct dq_entry *dq_peek(const struct dqueue *q)
{
	return q->n ? &q->heap[0] : (const struct dq_entry *)0;
}

/* dq_pop() - remove the earliest entry into *@out.  0, or -ENOENT when empty. */
int dq_pop(struct dqueue *q, struct dq_entry *out);

#endif
