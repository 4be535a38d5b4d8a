// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay live: the recorded clients against live servers (replay/play.h).
 *
 * One thread, one epoll set (edge-triggered: a slot reads and writes until
 * EAGAIN), one heap of timers.  A slot is one connection (or one UDP flow)
 * of a fixed pool, its receive buffer kept from one conversation to the
 * next, so a long run allocates nothing once the buffers have grown.
 *
 * A slot's steps: connect; then for each recorded client chunk, wait until
 * as many server bytes have come as the recording had delivered before it
 * (or the server has gone quiet for PLAY_REPLY_IDLE_NS after sending
 * something: a shorter reply than recorded must not stall the
 * conversation), then the recorded think time, then send it; then close
 * as the recorded client did, and read until the server's end.
 *
 * Timers are lazy: a slot's --timeout is checked when its timer fires
 * against the last time anything moved, and re-armed from there, so
 * reading and writing never touch the heap.
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "play_int.h"

/* A server that sent something and then nothing for this long has answered, whatever it sent. */
#define PLAY_REPLY_IDLE_NS 300000000ull
#define EPOLL_BATCH 256

enum cstate {
	C_FREE,
	C_CONNECTING,
	C_OPEN,
	C_DRAIN, /* our side closed (FIN): reading to the server's end */
};

struct slot {
	const struct conv *cv;
	size_t ri;            /* the result, in rep->r */
	int fd;
	uint32_t gen;
	uint8_t state;
	bool eof;
	bool rx_since_tx;
	uint32_t ci;          /* next chunk */
	uint32_t csent;       /* bytes of it sent */
	uint64_t sent, rcvd;
	uint64_t t0, ready_ns, last_ns;
	uint64_t armed_ns;    /* the pending timer's time; 0 = none */
	uint8_t *buf;         /* the live reply, up to cap bytes kept */
	size_t cap, keep;
};

struct inst {
	const struct conv *cv;
	uint32_t pass;
	uint64_t at_ns;       /* start, from the run's origin */
};

struct engine {
	const struct play_cfg *cfg;
	const struct conv_mask *mask;
	struct play_report *rep;
	int ep;
	struct slot *s;
	uint32_t nslot, *freel, nfree;
	struct ev_heap heap;
	struct inst *in;          /* one pass, in start order */
	size_t npass;
	uint64_t nin, next, span; /* instances over every pass, the next to start, a pass's length */
	uint64_t origin, timeout_ns, next_cps_ns, cps_gap_ns, active;
	uint64_t src_next;    /* --source-range: the next host number */
	uint64_t mismatches;
};

static int arm(struct engine *e, uint32_t i, uint64_t at)
{
	struct slot *s = &e->s[i];

	if (s->armed_ns && s->armed_ns <= at)
		return 0; /* an earlier timer re-evaluates anyway */
	s->armed_ns = at;
	return heap_push(&e->heap, at, i, s->gen);
}

static void finish(struct engine *e, uint32_t i, enum play_verdict v, int err)
{
	struct slot *s = &e->s[i];
	struct play_result *r = &e->rep->r[s->ri];
	uint64_t now = play_now_ns();

	r->verdict = (uint8_t)v;
	r->err = v == PLAY_ERROR ? err : 0;
	r->sent = s->sent;
	r->rcvd = s->rcvd;
	r->dur_ns = now - s->t0;
	if (v == PLAY_OK && e->cfg->compare != CONV_CMP_NONE &&
	    play_finish_compare(e->cfg, e->mask, s->cv, s->buf, s->keep, r) < 0) {
		r->verdict = PLAY_ERROR;
		r->err = ENOMEM;
	}
	if (r->verdict == PLAY_MISMATCH && e->mismatches++ >= e->cfg->mismatch_max) {
		r->rec_snip_len = 0;
		r->live_snip_len = 0;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->state = C_FREE;
	s->gen++;
	s->armed_ns = 0;
	e->freel[e->nfree++] = i;
	e->active--;
}

/* SO_LINGER 0: close() sends an RST, as the recorded client did. */
static void close_rst(struct slot *s)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

static int keep_bytes(struct engine *e, struct slot *s, size_t n)
{
	size_t want = s->cv->dir[CONV_SERVER].len + 65536;

	if (e->cfg->compare == CONV_CMP_NONE)
		return 0;
	if (s->keep + n > s->cap && s->cap < want) {
		size_t nc = s->cap ? s->cap : 4096;
		uint8_t *b;

		while (nc < s->keep + n && nc < want)
			nc *= 2;
		b = realloc(s->buf, nc);
		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = nc;
	}
	return 0;
}

/* Read everything there is: 0, or a verdict's errno. */
static int do_read(struct engine *e, struct slot *s, uint64_t now)
{
	uint8_t scratch[65536];

	for (;;) {
		uint8_t *dst = scratch;
		size_t room = sizeof(scratch);
		ssize_t n;

		if (keep_bytes(e, s, sizeof(scratch)) < 0)
			return ENOMEM;
		if (e->cfg->compare != CONV_CMP_NONE && s->keep < s->cap) {
			dst = s->buf + s->keep;
			room = s->cap - s->keep;
		}
		n = recv(s->fd, dst, room, 0);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : errno == EINTR ? 0 : errno;
		if (n == 0 && s->cv->proto == 6) {
			s->eof = true;
			return 0;
		}
		if (!s->rcvd)
			e->rep->r[s->ri].first_ns = now - s->t0;
		if (dst != scratch)
			s->keep += (size_t)n;
		s->rcvd += (size_t)n;
		s->rx_since_tx = true;
		s->last_ns = now;
	}
}

/* The recorded gap before chunk @ci (or the close, @ci == nchunks, at @close_ns). */
static uint64_t gap_before(const struct conv *c, uint32_t ci, uint64_t ts)
{
	uint64_t prev;

	if (ci == 0)
		return 0;
	prev = c->chunks[ci - 1].ts_ns;
	return ts > prev ? ts - prev : 0;
}

/* Has the server sent what the recording had by now (or gone quiet after answering)? */
static bool reply_in(const struct slot *s, uint64_t need, uint64_t now)
{
	return s->rcvd >= need || s->eof || (s->rx_since_tx && now - s->last_ns >= PLAY_REPLY_IDLE_NS);
}

/* When a server gone quiet counts as having answered; UINT64_MAX if not before an event. */
static uint64_t idle_wake(const struct slot *s, uint64_t now)
{
	uint64_t at = s->last_ns + PLAY_REPLY_IDLE_NS;

	return s->rx_since_tx && at > now ? at : UINT64_MAX;
}

/*
 * Move a slot on as far as it can go now.  Returns when it must wait: the
 * time to look again (UINT64_MAX: on an event only), or 0 when it ended.
 */
static uint64_t advance(struct engine *e, uint32_t i, uint64_t now)
{
	struct slot *s = &e->s[i];
	const struct conv *c = s->cv;
	const struct conv_dir *cd = &c->dir[CONV_CLIENT];
	const struct conv_dir *sd = &c->dir[CONV_SERVER];

	for (;;) {
		if (s->state == C_CONNECTING)
			return UINT64_MAX;
		while (s->ci < c->nchunks && c->chunks[s->ci].side != CONV_CLIENT)
			s->ci++;
		if (s->state == C_DRAIN) {
			/* UDP has no end to wait for: every recorded reply byte is enough. */
			if (s->eof || s->rcvd >= sd->len) {
				finish(e, i, s->rcvd < sd->len && e->cfg->compare == CONV_CMP_NONE
						     ? PLAY_CLOSED : PLAY_OK, 0);
				return 0;
			}
			if (c->proto == 17 && s->rx_since_tx && now - s->last_ns >= PLAY_REPLY_IDLE_NS) {
				finish(e, i, PLAY_OK, 0);
				return 0;
			}
			return idle_wake(s, now);
		}
		if (s->ci < c->nchunks) {
			const struct conv_chunk *ch = &c->chunks[s->ci];

			if (!s->csent) {
				uint64_t at;

				if (!reply_in(s, ch->need_peer, now))
					return idle_wake(s, now);
				if (s->eof && c->proto == 6) {
					/* The server ended the conversation before the client was done. */
					finish(e, i, PLAY_CLOSED, 0);
					return 0;
				}
				if (!s->ready_ns)
					s->ready_ns = now;
				at = s->ready_ns + play_think_ns(e->cfg, gap_before(c, s->ci, ch->ts_ns));
				if (now < at)
					return at;
			}
			while (s->csent < ch->len) {
				ssize_t n = send(s->fd, cd->data + ch->off + s->csent, ch->len - s->csent,
						 MSG_NOSIGNAL | MSG_DONTWAIT);

				if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
					return UINT64_MAX;
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					int err = errno;

					finish(e, i, play_verdict_of(err, true), err);
					return 0;
				}
				s->csent += (uint32_t)n;
				s->sent += (uint64_t)n;
				s->last_ns = now;
			}
			s->ci++;
			s->csent = 0;
			s->ready_ns = 0;
			s->rx_since_tx = false;
			continue;
		}
		/* Every client byte is out: close as recorded. */
		{
			bool client_first = cd->close != CONV_CLOSE_NONE &&
					    (sd->close == CONV_CLOSE_NONE || cd->close_ns <= sd->close_ns);
			uint64_t need = client_first ? cd->close_need_peer : sd->len, at;

			if (c->proto == 17) {
				s->state = C_DRAIN;
				continue;
			}
			if (!reply_in(s, need, now))
				return idle_wake(s, now);
			/* The recorded server closed first: wait for its end, or for it to go quiet. */
			if (!client_first && sd->close != CONV_CLOSE_NONE && !s->eof &&
			    now - s->last_ns < PLAY_REPLY_IDLE_NS)
				return idle_wake(s, now);
			if (!s->ready_ns)
				s->ready_ns = now;
			at = s->ready_ns + play_think_ns(e->cfg, gap_before(c, c->nchunks,
									   cd->close_ns ? cd->close_ns : c->end_ns));
			if (now < at)
				return at;
			if (cd->close == CONV_CLOSE_RST) {
				close_rst(s);
				finish(e, i, s->rcvd < sd->len && e->cfg->compare == CONV_CMP_NONE ? PLAY_CLOSED
												    : PLAY_OK, 0);
				return 0;
			}
			shutdown(s->fd, SHUT_WR);
			s->state = C_DRAIN;
			s->last_ns = now;
		}
	}
}

static void on_connected(struct engine *e, uint32_t i, uint64_t now)
{
	struct slot *s = &e->s[i];
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		err = errno;
	if (err) {
		finish(e, i, play_verdict_of(err, false), err);
		return;
	}
	s->state = C_OPEN;
	s->last_ns = now;
	e->rep->r[s->ri].connect_ns = now - s->t0;
}

/* The next --source-range address, as a sockaddr with port 0. */
static socklen_t source_addr(struct engine *e, struct sockaddr_storage *ss)
{
	const struct play_cidr *r = &e->cfg->source_range;
	unsigned hostbits = (r->family == AF_INET ? 32 : 128) - r->prefix;
	uint64_t span = hostbits >= 63 ? UINT64_MAX : (1ull << hostbits);
	struct conv_addr a = { .family = r->family };
	uint64_t h;

	memcpy(a.addr, r->addr, 16);
	/* IPv4 ranges of 4 or more skip the network and broadcast addresses. */
	if (r->family == AF_INET && span >= 4)
		h = 1 + e->src_next++ % (span - 2);
	else
		h = e->src_next++ % span;
	for (int k = r->family == AF_INET ? 3 : 15; k >= 0 && h; k--) {
		uint64_t v = a.addr[k] + (h & 0xff);

		a.addr[k] = (uint8_t)v;
		h = (h >> 8) + (v >> 8);
	}
	return play_sockaddr(&a, ss);
}

static int start(struct engine *e, const struct inst *in, uint64_t now)
{
	uint32_t i = e->freel[--e->nfree];
	struct slot *s = &e->s[i];
	struct play_result *r = play_report_add(e->rep);
	struct conv_addr srv;
	struct sockaddr_storage ss;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u32 = i };
	socklen_t sl;
	int one = 1, rc;

	if (!r)
		return -ENOMEM;
	e->active++;
	if (e->active > e->rep->max_active)
		e->rep->max_active = e->active;
	*s = (struct slot){ .cv = in->cv, .ri = (size_t)(r - e->rep->r), .fd = -1, .gen = s->gen + 1,
			    .state = C_CONNECTING, .t0 = now, .last_ns = now, .buf = s->buf,
			    .cap = s->cap };
	r->conv = in->cv->id;
	r->pass = in->pass;
	r->want_sent = in->cv->dir[CONV_CLIENT].len;
	r->want_rcvd = in->cv->dir[CONV_SERVER].len;
	r->connect_ns = UINT64_MAX;
	r->first_ns = UINT64_MAX;
	play_server_addr(e->cfg, in->cv, &srv);
	s->fd = socket(srv.family == AF_INET6 ? AF_INET6 : AF_INET,
		       (in->cv->proto == 6 ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		rc = errno;
		finish(e, i, PLAY_ERROR, rc);
		return rc == EMFILE || rc == ENFILE ? -rc : 0;
	}
	if (in->cv->proto == 6)
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (e->cfg->source_range.set) {
		struct sockaddr_storage src;

		sl = source_addr(e, &src);
		/* Not an address of this host: IP_FREEBIND lets the socket have it (see replay(1)). */
		setsockopt(s->fd, SOL_IP, IP_FREEBIND, &one, sizeof(one));
		setsockopt(s->fd, SOL_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
		if (bind(s->fd, (struct sockaddr *)&src, sl) < 0) {
			rc = errno;
			finish(e, i, PLAY_ERROR, rc);
			return 0;
		}
	}
	if (epoll_ctl(e->ep, EPOLL_CTL_ADD, s->fd, &ev) < 0) {
		rc = errno;
		finish(e, i, PLAY_ERROR, rc);
		return 0;
	}
	sl = play_sockaddr(&srv, &ss);
	if (connect(s->fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		rc = errno;
		finish(e, i, play_verdict_of(rc, false), rc);
		return 0;
	}
	if (in->cv->proto == 17) {
		s->state = C_OPEN;
		e->rep->r[s->ri].connect_ns = 0;
	}
	return arm(e, i, now + e->timeout_ns);
}

/* Re-arm a slot after it moved: the earlier of its wake-up and its timeout. */
static int settle(struct engine *e, uint32_t i, uint64_t wake, uint64_t now)
{
	struct slot *s = &e->s[i];
	uint64_t to = s->last_ns + e->timeout_ns;

	if (s->state == C_FREE)
		return 0;
	if (wake <= now)
		wake = now + 1; /* never due again in the same pass over the timers */
	return arm(e, i, wake < to ? wake : to);
}

static int on_timer(struct engine *e, const struct ev_timer *t, uint64_t now)
{
	struct slot *s = &e->s[t->idx];
	uint64_t wake;

	if (s->state == C_FREE || t->gen != s->gen || t->at_ns != s->armed_ns)
		return 0;
	s->armed_ns = 0;
	if (now - s->last_ns >= e->timeout_ns) {
		/* All the recorded reply came and the server only did not close: that is done. */
		if (s->state == C_DRAIN && s->rcvd >= s->cv->dir[CONV_SERVER].len)
			finish(e, t->idx, PLAY_OK, 0);
		else
			finish(e, t->idx, PLAY_TIMEOUT, 0);
		return 0;
	}
	wake = advance(e, t->idx, now);
	return wake ? settle(e, t->idx, wake, now) : 0;
}

static int on_event(struct engine *e, uint32_t i, uint32_t evs, uint64_t now)
{
	struct slot *s = &e->s[i];
	uint64_t wake;
	int err;

	if (s->state == C_FREE)
		return 0;
	if (s->state == C_CONNECTING) {
		if (!(evs & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return 0;
		on_connected(e, i, now);
		if (s->state == C_FREE)
			return 0;
	}
	if (evs & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) {
		err = do_read(e, s, now);
		if (err) {
			finish(e, i, play_verdict_of(err, s->cv->proto == 6), err);
			return 0;
		}
	}
	wake = advance(e, i, now);
	return wake ? settle(e, i, wake, now) : 0;
}

static int inst_cmp(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x->cv->id < y->cv->id ? -1 : x->cv->id > y->cv->id;
}

static int instances(struct engine *e, const struct conv_set *set)
{
	uint64_t loops = e->cfg->loop ? e->cfg->loop : 1, first = UINT64_MAX, last = 0;
	size_t n = 0;
	char why[512];

	for (uint32_t k = 0; k < set->n; k++) {
		const struct conv *c = set->v[k];

		if (!play_playable(e->cfg, c, why, sizeof(why))) {
			struct play_result *r = play_report_add(e->rep);

			if (!r)
				return -ENOMEM;
			r->conv = c->id;
			r->pass = 1;
			r->verdict = PLAY_SKIPPED;
			r->want_sent = c->dir[CONV_CLIENT].len;
			r->want_rcvd = c->dir[CONV_SERVER].len;
			r->connect_ns = r->first_ns = UINT64_MAX;
			continue;
		}
		n++;
		if (c->start_ns < first)
			first = c->start_ns;
		if (c->start_ns > last)
			last = c->start_ns;
	}
	if (!n)
		return 0;
	/* One pass, in start order (the files' conversations interleave); the others follow from it. */
	e->in = calloc(n, sizeof(*e->in));
	if (!e->in)
		return -ENOMEM;
	for (uint32_t k = 0; k < set->n; k++) {
		const struct conv *c = set->v[k];

		if (play_playable(e->cfg, c, why, sizeof(why)))
			e->in[e->npass++] = (struct inst){ c, 1, play_think_ns(e->cfg, c->start_ns - first) };
	}
	qsort(e->in, e->npass, sizeof(*e->in), inst_cmp);
	e->nin = (uint64_t)e->npass * loops;
	/* The next pass starts a millisecond after the last start of the one before. */
	e->span = play_think_ns(e->cfg, last - first) + 1000000;
	return 0;
}

static int start_due(struct engine *e, uint64_t now, uint64_t *next_at)
{
	*next_at = UINT64_MAX;
	while (e->next < e->nin) {
		uint64_t pass = e->next / e->npass;
		struct inst one = e->in[e->next % e->npass], *in = &one;
		uint64_t at;
		int rc;

		one.pass = (uint32_t)pass + 1;
		one.at_ns += pass * e->span;
		at = e->origin + in->at_ns;

		if (e->cps_gap_ns && e->next_cps_ns > at)
			at = e->next_cps_ns;
		if (at > now) {
			*next_at = at;
			return 0;
		}
		if (!e->nfree)
			return 0; /* --max-concurrent: a slot frees on an event */
		e->next++;
		if (e->cps_gap_ns)
			e->next_cps_ns = (e->next_cps_ns > now - e->cps_gap_ns ? e->next_cps_ns : now) + e->cps_gap_ns;
		rc = start(e, in, now);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void engine_free(struct engine *e)
{
	for (uint32_t i = 0; e->s && i < e->nslot; i++) {
		if (e->s[i].fd >= 0 && e->s[i].state != C_FREE)
			close(e->s[i].fd);
		free(e->s[i].buf);
	}
	free(e->s);
	free(e->freel);
	free(e->in);
	heap_free(&e->heap);
	if (e->ep >= 0)
		close(e->ep);
}

int play_client(const struct play_cfg *cfg, const struct conv_set *set, const struct conv_mask *mask,
		const volatile sig_atomic_t *stop, struct play_report *rep, char *err, size_t errlen)
{
	struct engine e = { .cfg = cfg, .mask = mask, .rep = rep, .ep = -1 };
	struct epoll_event evs[EPOLL_BATCH];
	uint64_t now;
	int rc;

	rep->role = "live";
	e.timeout_ns = (uint64_t)((cfg->timeout_s > 0 ? cfg->timeout_s : PLAY_TIMEOUT_DEFAULT_S) * 1e9);
	e.cps_gap_ns = cfg->cps ? 1000000000ull / cfg->cps : 0;
	rc = instances(&e, set);
	if (rc < 0)
		goto oom;
	e.nslot = cfg->max_concurrent ? cfg->max_concurrent : PLAY_CONCURRENT_DEFAULT;
	if (e.nslot > e.nin)
		e.nslot = e.nin ? (uint32_t)e.nin : 1;
	e.s = calloc(e.nslot, sizeof(*e.s));
	e.freel = calloc(e.nslot, sizeof(*e.freel));
	if (!e.s || !e.freel)
		goto oom;
	for (uint32_t i = 0; i < e.nslot; i++) {
		e.s[i].fd = -1;
		e.freel[e.nfree++] = e.nslot - 1 - i;
	}
	e.ep = epoll_create1(EPOLL_CLOEXEC);
	if (e.ep < 0) {
		rc = -errno;
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto out;
	}
	e.origin = now = play_now_ns();
	while (!*stop) {
		uint64_t next_start, at;
		struct ev_timer t;
		int n;

		rc = start_due(&e, now, &next_start);
		if (rc < 0) {
			snprintf(err, errlen, "cannot open a socket: %s (raise the open files limit, ulimit -n, or lower --max-concurrent)",
				 strerror(-rc));
			goto out;
		}
		while (heap_pop_due(&e.heap, now, &t))
			if (on_timer(&e, &t, now) < 0)
				goto oom;
		if (e.next >= e.nin && !e.active)
			break;
		at = heap_next(&e.heap);
		if (next_start < at && e.nfree)
			at = next_start;
		n = epoll_wait(e.ep, evs, EPOLL_BATCH, play_epoll_wait_ms(play_now_ns(), at));
		now = play_now_ns();
		for (int k = 0; k < n; k++)
			if (on_event(&e, evs[k].data.u32, evs[k].events, now) < 0)
				goto oom;
	}
	rep->interrupted = *stop != 0;
	for (uint32_t i = 0; i < e.nslot; i++)
		if (e.s[i].state != C_FREE)
			finish(&e, i, PLAY_ERROR, EINTR);
	rep->elapsed_ns = play_now_ns() - e.origin;
	rc = 0;
	goto out;
oom:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
out:
	for (size_t k = 0; k < rep->n; k++)
		rep->verdicts[rep->r[k].verdict]++;
	engine_free(&e);
	return rc;
}
