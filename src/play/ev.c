// SPDX-License-Identifier: BSD-2-Clause
/* The engines' clock, timer heap and the small functions the engines share (play_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "play_int.h"

uint64_t play_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool before(const struct ev_timer *a, const struct ev_timer *b)
{
	return a->at_ns < b->at_ns;
}

int heap_push(struct ev_heap *h, uint64_t at_ns, uint32_t idx, uint32_t gen)
{
	size_t i;

	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 1024;
		struct ev_timer *v = realloc(h->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = nc;
	}
	i = h->n++;
	h->v[i] = (struct ev_timer){ at_ns, idx, gen };
	while (i && before(&h->v[i], &h->v[(i - 1) / 2])) {
		struct ev_timer t = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

int heap_pop_due(struct ev_heap *h, uint64_t now_ns, struct ev_timer *out)
{
	size_t i = 0;

	if (!h->n || h->v[0].at_ns > now_ns)
		return 0;
	*out = h->v[0];
	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct ev_timer t;

		if (l < h->n && before(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && before(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
	return 1;
}

uint64_t heap_next(const struct ev_heap *h)
{
	return h->n ? h->v[0].at_ns : UINT64_MAX;
}

void heap_free(struct ev_heap *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

socklen_t play_sockaddr(const struct conv_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(a->port);
		memcpy(&s6->sin6_addr, a->addr, 16);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(a->port);
	memcpy(&s4->sin_addr, a->addr, 4);
	return sizeof(*s4);
}

enum play_verdict play_verdict_of(int err, bool established)
{
	switch (err) {
	case ECONNREFUSED:
		return established ? PLAY_RESET : PLAY_REFUSED;
	case ECONNRESET:
	case EPIPE:
		return established ? PLAY_RESET : PLAY_REFUSED;
	case ETIMEDOUT:
		return PLAY_TIMEOUT;
	case ENETUNREACH:
	case EHOSTUNREACH:
	case ENETDOWN:
	case EHOSTDOWN:
		return PLAY_UNREACHABLE;
	default:
		return PLAY_ERROR;
	}
}

uint64_t play_think_ns(const struct play_cfg *cfg, uint64_t gap_ns)
{
	if (cfg->topspeed)
		return 0;
	if (cfg->speed > 0 && cfg->speed != 1.0)
		return (uint64_t)((double)gap_ns / cfg->speed);
	return gap_ns;
}

static void snip(const uint8_t *b, size_t n, uint64_t off, uint8_t back, uint8_t *out, uint8_t *olen)
{
	size_t lo = off >= back ? (size_t)off - back : 0, k = 0;

	while (k < PLAY_SNIP_BYTES && lo + k < n) {
		out[k] = b[lo + k];
		k++;
	}
	*olen = (uint8_t)k;
}

int play_finish_compare(const struct play_cfg *cfg, const struct conv_mask *mask, const struct conv *c,
			const uint8_t *live, size_t len, struct play_result *r)
{
	const struct conv_dir *d = &c->dir[CONV_SERVER];
	enum conv_cmp mode = (enum conv_cmp)cfg->compare;
	struct conv_diff diff;

	/* A recorded reply the capture cut or lost cannot be compared: only completion counts. */
	if (d->trunc_recno || d->gap_off != UINT64_MAX)
		mode = CONV_CMP_NONE;
	if (conv_compare(mask, mode, d->data, d->len, live, len, &diff) < 0)
		return -ENOMEM;
	if (diff.equal)
		return 0;
	r->verdict = PLAY_MISMATCH;
	r->diff = true;
	r->rec_off = diff.rec_off;
	r->live_off = diff.live_off;
	r->snip_back = 8;
	snip(d->data, d->len, diff.rec_off, 8, r->rec_snip, &r->rec_snip_len);
	snip(live, len, diff.live_off, 8, r->live_snip, &r->live_snip_len);
	return 0;
}

int play_epoll_wait_ms(uint64_t now_ns, uint64_t at_ns)
{
	uint64_t d;

	if (at_ns == UINT64_MAX)
		return 1000;
	if (at_ns <= now_ns)
		return 0;
	d = (at_ns - now_ns + 999999) / 1000000;
	return d > 1000 ? 1000 : (int)d;
}
