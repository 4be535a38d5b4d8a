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
 * does not).  O(n log n) to build, O(log n) a frame: free_up().
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
	if (n > (SIZE_MAX - 2) / sizeof(*ix->keys))
		return -ENOMEM;
	ix->keys = malloc((n ? n : 1) * sizeof(*ix->keys));
	ix->taken = calloc(n ? n : 1, sizeof(*ix->taken));
	ix->up = malloc((n + 1) * sizeof(*ix->up));
	ix->down = malloc((n + 1) * sizeof(*ix->down));
	if (!ix->keys || !ix->taken || !ix->up || !ix->down) {
		rx_index_free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ix->keys[i] = (struct rx_key){ .id = ids[i], .pos = i };
	qsort(ix->keys, n, sizeof(*ix->keys), cmp_key);
	/* Every key free: each points at itself; n (up) and 0 (down, keys shifted by one) end the walk. */
	for (size_t i = 0; i <= n; i++)
		ix->up[i] = ix->down[i] = i;
	return 0;
}

/*
 * The free positions are found through two "next free" forests over the
 * sorted keys, one looking up and one looking down, with path halving
 * (Tarjan and van Leeuwen, "Worst-case analysis of set union algorithms",
 * 1984): a taken key points past itself, so no lookup walks over taken
 * positions more than a near-constant number of times, however the frames
 * arrive.  A plain scan made a loop of many identical packets quadratic:
 * each late or doubled frame walked every earlier copy.
 */

/* The first free key at or after @i, or n. */
static size_t free_up(struct rx_index *ix, size_t i)
{
	while (ix->up[i] != i) {
		ix->up[i] = ix->up[ix->up[i]];
		i = ix->up[i];
	}
	return i;
}

/* The last free key before @i (keys [0, i)), as index + 1, or 0. */
static size_t free_down(struct rx_index *ix, size_t i)
{
	while (ix->down[i] != i) {
		ix->down[i] = ix->down[ix->down[i]];
		i = ix->down[i];
	}
	return i;
}

/* Key @i is taken once more; the first time, the forests route around it. */
static size_t take_key(struct rx_index *ix, size_t i)
{
	uint32_t *t = &ix->taken[ix->keys[i].pos];

	if (!*t) {
		ix->up[i] = i + 1;
		ix->down[i + 1] = i;
	}
	if (*t != UINT32_MAX)
		(*t)++;
	return ix->keys[i].pos;
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
	i = free_up(ix, at);
	if (i < ix->n && ix->keys[i].id == id)
		after = i;
	i = free_down(ix, at);
	if (i > first)
		before = i - 1;
	/* In place, or ahead of it (packets between lost or late) unless the next frame says otherwise. */
	if (after != RX_NONE && (ix->keys[after].pos == expect || !(hints & RX_TAKE_RESUMES)))
		return take_key(ix, after);
	if (before != RX_NONE)
		return take_key(ix, before); /* late */
	if (after != RX_NONE && !(at > first && (hints & RX_TAKE_TWIN)))
		return take_key(ix, after); /* ahead after all: the one expected is late */
	/* Right after a copy of itself, or every copy taken: another copy of the nearest before. */
	*dup = true;
	return take_key(ix, at > first ? at - 1 : first);
}

void rx_index_free(struct rx_index *ix)
{
	free(ix->keys);
	free(ix->taken);
	free(ix->up);
	free(ix->down);
	*ix = (struct rx_index){ 0 };
}
