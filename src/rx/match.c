// SPDX-License-Identifier: BSD-2-Clause
/*
 * Which packet of a sequence (the reference, the send log) a received frame
 * is.  Identities are sorted once with their positions; a frame's identity
 * is found by binary search.  With one position per identity that settles
 * it.  A trace played in a loop holds each packet once per pass, and then
 * the frame takes the first free position at or after where the sequence
 * is expected to be -- so a lost first copy is reported lost at its own
 * place, not blamed on a later pass -- unless that would skip ahead while
 * the next frame to arrive is the one expected (the caller looks one frame
 * ahead): then this frame is late (the nearest free position before) or,
 * with none free and the frame just before it a copy of it, one more copy
 * (a network duplicate arrives next to its original; a swapped neighbour
 * does not).
 *
 * Cost: O(n log n) to build, O(log n) per frame when frames arrive in order;
 * a frame that arrives late scans the free positions of its identity.
 */
#include <errno.h>
#include <stdlib.h>

#include "rx.h"

static int cmp_key(const void *a, const void *b)
{
	const struct rx_key *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int rx_index_build(struct rx_index *ix, const uint64_t *ids, size_t n)
{
	*ix = (struct rx_index){ .n = n };
	ix->keys = malloc((n ? n : 1) * sizeof(*ix->keys));
	ix->taken = calloc(n ? n : 1, sizeof(*ix->taken));
	if (!ix->keys || !ix->taken) {
		rx_index_free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ix->keys[i] = (struct rx_key){ .id = ids[i], .pos = i };
	qsort(ix->keys, n, sizeof(*ix->keys), cmp_key);
	return 0;
}

/* Index of the first key with (id, pos) >= (@id, @pos); n if none. */
static size_t lower_bound(const struct rx_index *ix, uint64_t id, size_t pos)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rx_key *k = &ix->keys[mid];

		if (k->id < id || (k->id == id && k->pos < pos))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t rx_index_take(struct rx_index *ix, uint64_t id, size_t expect, unsigned hints, bool *dup)
{
	size_t first = lower_bound(ix, id, 0), at, i, after = RX_NONE, before = RX_NONE;

	*dup = false;
	if (first == ix->n || ix->keys[first].id != id)
		return RX_NONE;
	at = lower_bound(ix, id, expect);
	for (i = at; i < ix->n && ix->keys[i].id == id; i++)
		if (!ix->taken[ix->keys[i].pos]) {
			after = i;
			break;
		}
	for (i = at; i-- > first;)
		if (!ix->taken[ix->keys[i].pos]) {
			before = i;
			break;
		}
	/* In place, or ahead of it (packets between lost or late) unless the next frame says otherwise. */
	if (after != RX_NONE && (ix->keys[after].pos == expect || !(hints & RX_TAKE_RESUMES)))
		i = after;
	else if (before != RX_NONE)
		i = before; /* late */
	else if (at > first && (hints & RX_TAKE_TWIN))
		goto duplicate; /* right after a copy of itself: another one */
	else if (after != RX_NONE)
		i = after; /* ahead after all: the one expected is late */
	else
		goto duplicate;
	if (ix->taken[ix->keys[i].pos] != UINT32_MAX)
		ix->taken[ix->keys[i].pos]++;
	return ix->keys[i].pos;
duplicate:
	*dup = true;
	i = at > first ? at - 1 : first;
	if (ix->taken[ix->keys[i].pos] != UINT32_MAX)
		ix->taken[ix->keys[i].pos]++;
	return ix->keys[i].pos;
}

void rx_index_free(struct rx_index *ix)
{
	free(ix->keys);
	free(ix->taken);
	*ix = (struct rx_index){ 0 };
}
