// SPDX-License-Identifier: BSD-2-Clause
/* The deadline-ordered queue (replay/dqueue.h): a binary min-heap in one array. */
#include <errno.h>
#include <stdlib.h>

#include "replay/dqueue.h"

int dq_init(struct dqueue *q, unsigned cap)
{
	*q = (struct dqueue){ 0 };
	if (cap == 0)
		return -EINVAL;
	q->heap = calloc(cap, sizeof(*q->heap));
	if (!q->heap)
		return -ENOMEM;
	q->cap = cap;
	return 0;
}

void dq_free(struct dqueue *q)
{
	free(q->heap);
	*q = (struct dqueue){ 0 };
}

/* a leaves before b */
static inline int before(const struct dq_entry *a, const struct dq_entry *b)
{
	return a->deadline_ns < b->deadline_ns ||
	       (a->deadline_ns == b->deadline_ns && a->seq < b->seq);
}

int dq_push(struct dqueue *q, uint64_t deadline_ns, void *data)
{
	struct dq_entry e = { .deadline_ns = deadline_ns, .seq = q->next_seq, .data = data };
	unsigned i;

	if (q->n >= q->cap)
		return -ENOSPC;
	q->next_seq++;
	/* Sift up: move parents later than e down until e's place is found. */
	for (i = q->n++; i > 0; ) {
		unsigned parent = (i - 1) / 2;

		if (!before(&e, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = e;
	return 0;
}

int dq_pop(struct dqueue *q, struct dq_entry *out)
{
	struct dq_entry last;
	unsigned i = 0;

	if (!q->n)
		return -ENOENT;
	*out = q->heap[0];
	last = q->heap[--q->n];
	/* Sift down: the last entry goes from the root to where it belongs. */
	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->n)
		q->heap[i] = last;
	return 0;
}
