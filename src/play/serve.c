// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay serve: the recorded servers, answering live clients (replay/play.h).
 *
 * A listener for every recorded server port (TCP) and a socket for every
 * recorded UDP server port, all in one epoll set with the connections.
 *
 * TCP.  A connection is matched to a recorded request -- the first of a
 * recorded connection or a later turn of one (add_turns()) -- by its first
 * bytes (conv_match(): a recorded request equal to what came, else the
 * longest common prefix, else the order), once they equal a recorded
 * request, or hold an empty line (an HTTP request's end), or the
 * client pauses (PLAY_TURN_QUIET_NS); at once when the recorded servers
 * spoke first.  Then the recorded server chunks go out turn by turn: a
 * turn waits for the client bytes the recording had before it -- as many
 * as recorded, or whatever came once the client pauses, for a client
 * whose request is not byte for byte the recorded one -- then the
 * recorded server's think time (none with --topspeed), then its chunks.
 * The connection closes as the recorded server did.
 *
 * UDP.  Each datagram is matched to a recorded request by content (the
 * bytes a recorded reply echoes, a DNS ID, are left out of the match and
 * copied from the live request into the reply) and answered with the
 * recorded replies that followed it.
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "play_int.h"

#define EPOLL_BATCH 256
#define SERVE_SLOTS_MAX 65536u
#define FIRST_BYTES_MAX 65536u
#define ECHO_MAX 8
#define TAG_LISTENER 0x80000000u
#define TAG_PENDING 0x40000000u

enum sstate {
	S_FREE,
	S_FIRST,   /* waiting for the bytes to match it by */
	S_SERVING,
	S_DRAIN,   /* our side closed: reading to the client's end */
};

struct listener {
	int fd;
	uint8_t proto;
	struct conv_addr addr;
	uint32_t *conv;        /* indices into the set, recorded order */
	struct conv_cand *cand;
	unsigned *uses;
	unsigned n, cap;
	size_t skip;           /* UDP: the leading bytes replies echo */
	uint32_t *req_chunk;   /* TCP: the turn's first server chunk; UDP: the request chunk */
	uint64_t *base;        /* TCP: client bytes recorded before the turn's request */
	bool server_first;     /* TCP: the recorded servers spoke first */
};

struct sslot {
	int fd;
	uint32_t gen;
	uint8_t state;
	bool eof;
	unsigned li;
	const struct conv *cv;
	size_t ri;
	uint8_t *buf;          /* the first bytes, until matched */
	size_t cap, len;
	uint64_t rx, consumed, rec_mark;
	uint32_t ci, csent;
	uint64_t sent, t0, last_rx_ns, last_ns, ready_ns, armed_ns;
};

/* A UDP reply due later (recorded timing). */
struct pending {
	bool used;
	unsigned li;
	const struct conv *cv;
	uint32_t ci;
	struct sockaddr_storage peer;
	socklen_t plen;
	uint8_t echo[ECHO_MAX];
	uint8_t echo_len;
};

struct server {
	const struct play_cfg *cfg;
	const struct conv_set *set;
	struct play_report *rep;
	int ep;
	struct listener *l;
	unsigned nl;
	struct sslot *s;
	uint32_t nslot, *freel, nfree;
	struct pending *pd;
	uint32_t npd, pending;
	struct ev_heap heap;
	uint64_t timeout_ns, done, active;
};

static int arm(struct server *sv, uint32_t i, uint64_t at)
{
	struct sslot *s = &sv->s[i];

	if (s->armed_ns && s->armed_ns <= at)
		return 0;
	s->armed_ns = at;
	return heap_push(&sv->heap, at, i, s->gen);
}

static void finish(struct server *sv, uint32_t i, enum play_verdict v, int err)
{
	struct sslot *s = &sv->s[i];

	if (s->cv) {
		struct play_result *r = &sv->rep->r[s->ri];

		r->verdict = (uint8_t)v;
		r->err = v == PLAY_ERROR ? err : 0;
		r->sent = s->sent;
		r->rcvd = s->rx;
		r->dur_ns = play_now_ns() - s->t0;
		sv->done++;
	} else if (v != PLAY_OK) {
		sv->rep->unmatched++;
	}
	close(s->fd);
	s->fd = -1;
	s->state = S_FREE;
	s->gen++;
	s->armed_ns = 0;
	s->cv = NULL;
	sv->freel[sv->nfree++] = i;
	sv->active--;
}

static const struct conv_chunk *next_server_chunk(struct sslot *s)
{
	while (s->ci < s->cv->nchunks && s->cv->chunks[s->ci].side != CONV_SERVER)
		s->ci++;
	return s->ci < s->cv->nchunks ? &s->cv->chunks[s->ci] : NULL;
}

/* Has the client said what the recording had it say before @need (see the top)? */
static bool turn_ready(struct sslot *s, uint64_t need, uint64_t now)
{
	uint64_t rq = need > s->rec_mark ? need - s->rec_mark : 0;

	if (!rq)
		return true;
	if (s->rx - s->consumed >= rq) {
		s->consumed += rq;
	} else if (s->rx > s->consumed && (s->eof || now - s->last_rx_ns >= PLAY_TURN_QUIET_NS)) {
		s->consumed = s->rx;
	} else {
		return false;
	}
	s->rec_mark = need;
	return true;
}

static uint64_t gap_before(const struct conv *c, uint32_t ci, uint64_t ts)
{
	uint64_t prev = ci ? c->chunks[ci - 1].ts_ns : c->start_ns;

	return ts > prev ? ts - prev : 0;
}

/* Serve as far as possible now; the time to look again, UINT64_MAX on an event, 0 when it ended. */
static uint64_t advance(struct server *sv, uint32_t i, uint64_t now)
{
	struct sslot *s = &sv->s[i];
	const struct conv *c = s->cv;
	const struct conv_dir *sd = &c->dir[CONV_SERVER], *cd = &c->dir[CONV_CLIENT];

	for (;;) {
		const struct conv_chunk *ch;

		if (s->state == S_DRAIN) {
			if (s->eof) {
				finish(sv, i, PLAY_OK, 0);
				return 0;
			}
			return UINT64_MAX;
		}
		ch = next_server_chunk(s);
		if (ch) {
			if (!s->csent) {
				uint64_t at;

				if (!s->ready_ns) {
					if (!turn_ready(s, ch->need_peer, now)) {
						if (s->eof) {
							/* The client is done before the recording was. */
							finish(sv, i, PLAY_OK, 0);
							return 0;
						}
						return s->rx > s->consumed ? s->last_rx_ns + PLAY_TURN_QUIET_NS
									   : UINT64_MAX;
					}
					s->ready_ns = now;
				}
				at = s->ready_ns + play_think_ns(sv->cfg, gap_before(c, s->ci, ch->ts_ns));
				if (now < at)
					return at;
			}
			while (s->csent < ch->len) {
				ssize_t n = send(s->fd, sd->data + ch->off + s->csent, ch->len - s->csent,
						 MSG_NOSIGNAL | MSG_DONTWAIT);

				if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
					return UINT64_MAX;
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					int err = errno;

					finish(sv, i, play_verdict_of(err, true), err);
					return 0;
				}
				s->csent += (uint32_t)n;
				s->sent += (uint64_t)n;
				s->last_ns = now;
			}
			s->ci++;
			s->csent = 0;
			s->ready_ns = 0;
			continue;
		}
		/* Everything recorded is out: close as the recorded server did. */
		{
			bool server_first = sd->close != CONV_CLOSE_NONE &&
					    (cd->close == CONV_CLOSE_NONE || sd->close_ns < cd->close_ns);
			uint64_t at;

			if (!server_first && !s->eof)
				return UINT64_MAX; /* the client closes first */
			if (!s->ready_ns) {
				if (server_first && !turn_ready(s, sd->close_need_peer, now) && !s->eof)
					return s->rx > s->consumed ? s->last_rx_ns + PLAY_TURN_QUIET_NS : UINT64_MAX;
				s->ready_ns = now;
			}
			at = s->ready_ns + play_think_ns(sv->cfg, gap_before(c, c->nchunks,
									     sd->close_ns ? sd->close_ns : c->end_ns));
			if (now < at)
				return at;
			if (sd->close == CONV_CLOSE_RST) {
				struct linger lg = { .l_onoff = 1, .l_linger = 0 };

				setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
				finish(sv, i, PLAY_OK, 0);
				return 0;
			}
			shutdown(s->fd, SHUT_WR);
			s->state = S_DRAIN;
		}
	}
}

/* Match the connection by what it sent so far, if that is enough to go by. */
static int try_match(struct server *sv, uint32_t i, uint64_t now, bool force)
{
	struct sslot *s = &sv->s[i];
	struct listener *l = &sv->l[s->li];
	enum conv_match_kind kind;
	struct play_result *r;
	int k = conv_match(l->cand, l->n, l->uses, s->buf, s->len, 0, &kind);

	if (k < 0)
		return 0;
	if (!force && kind != CONV_MATCH_EXACT &&
	    !(s->len && memmem(s->buf, s->len, "\r\n\r\n", 4)) &&
	    !(s->len && now - s->last_rx_ns >= PLAY_TURN_QUIET_NS) && !s->eof)
		return 0;
	r = play_report_add(sv->rep);
	if (!r)
		return -ENOMEM;
	l->uses[k]++;
	s->cv = sv->set->v[l->conv[k]];
	s->ri = (size_t)(r - sv->rep->r);
	s->state = S_SERVING;
	s->ci = l->req_chunk[k];
	s->rec_mark = l->base[k];
	r->conv = s->cv->id;
	r->pass = l->uses[k];
	r->match = (uint8_t)kind;
	r->want_sent = s->cv->dir[CONV_SERVER].len;
	r->want_rcvd = s->cv->dir[CONV_CLIENT].len;
	r->connect_ns = 0;
	r->first_ns = UINT64_MAX;
	return 0;
}

static int read_conn(struct server *sv, uint32_t i, uint64_t now)
{
	struct sslot *s = &sv->s[i];
	uint8_t scratch[65536];

	for (;;) {
		uint8_t *dst = scratch;
		size_t room = sizeof(scratch);
		ssize_t n;

		if (s->state == S_FIRST) {
			if (s->cap - s->len < 4096 && s->cap < FIRST_BYTES_MAX) {
				size_t nc = s->cap ? s->cap * 2 : 4096;
				uint8_t *b = realloc(s->buf, nc);

				if (!b)
					return -ENOMEM;
				s->buf = b;
				s->cap = nc;
			}
			if (s->len < s->cap) {
				dst = s->buf + s->len;
				room = s->cap - s->len;
			}
		}
		n = recv(s->fd, dst, room, 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 0;
			return errno;
		}
		if (n == 0) {
			s->eof = true;
			return 0;
		}
		if (dst != scratch)
			s->len += (size_t)n;
		s->rx += (uint64_t)n;
		s->last_rx_ns = now;
		s->last_ns = now;
	}
}

static int settle(struct server *sv, uint32_t i, uint64_t wake, uint64_t now)
{
	struct sslot *s = &sv->s[i];
	uint64_t to = s->last_ns + sv->timeout_ns;

	if (s->state == S_FREE)
		return 0;
	if (wake <= now)
		wake = now + 1; /* never due again in the same pass over the timers */
	return arm(sv, i, wake < to ? wake : to);
}

static int step(struct server *sv, uint32_t i, uint64_t now)
{
	struct sslot *s = &sv->s[i];
	uint64_t wake;

	if (s->state == S_FIRST) {
		if (try_match(sv, i, now, false) < 0)
			return -ENOMEM;
		if (s->state == S_FIRST) {
			if (s->eof) {
				finish(sv, i, PLAY_CLOSED, 0);
				return 0;
			}
			return settle(sv, i, s->len ? s->last_rx_ns + PLAY_TURN_QUIET_NS : UINT64_MAX, now);
		}
	}
	wake = advance(sv, i, now);
	return wake ? settle(sv, i, wake, now) : 0;
}

static int on_accept(struct server *sv, unsigned li, uint64_t now)
{
	for (;;) {
		int fd = accept4(sv->l[li].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET };
		uint32_t i;
		struct sslot *s;

		if (fd < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED
				       ? 0 : -errno;
		if (!sv->nfree) {
			close(fd);
			sv->rep->unmatched++;
			continue;
		}
		i = sv->freel[--sv->nfree];
		s = &sv->s[i];
		*s = (struct sslot){ .fd = fd, .gen = s->gen + 1, .state = S_FIRST, .li = li, .t0 = now,
				     .last_ns = now, .buf = s->buf, .cap = s->cap };
		sv->active++;
		if (sv->active > sv->rep->max_active)
			sv->rep->max_active = sv->active;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ev.data.u32 = i;
		if (epoll_ctl(sv->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			finish(sv, i, PLAY_ERROR, errno);
			continue;
		}
		if (sv->l[li].server_first && try_match(sv, i, now, true) < 0)
			return -ENOMEM;
		if (step(sv, i, now) < 0)
			return -ENOMEM;
	}
}

/* One UDP reply: chunk @ci of @cv to @peer, its first bytes the live request's echo. */
static void udp_reply(struct server *sv, const struct listener *l, const struct conv *cv, uint32_t ci,
		      const struct sockaddr_storage *peer, socklen_t plen, const uint8_t *echo, size_t elen,
		      struct play_result *r)
{
	const struct conv_chunk *ch = &cv->chunks[ci];
	uint8_t buf[65536];
	size_t n = ch->len < sizeof(buf) ? ch->len : sizeof(buf);

	memcpy(buf, cv->dir[CONV_SERVER].data + ch->off, n);
	memcpy(buf, echo, elen < n ? elen : n);
	if (sendto(l->fd, buf, n, MSG_DONTWAIT, (const struct sockaddr *)peer, plen) == (ssize_t)n && r)
		r->sent += n;
	(void)sv;
}

static int pend(struct server *sv, unsigned li, const struct conv *cv, uint32_t ci,
		const struct sockaddr_storage *peer, socklen_t plen, const uint8_t *echo, size_t elen,
		uint64_t at)
{
	uint32_t k;

	for (k = 0; k < sv->npd && sv->pd[k].used; k++)
		;
	if (k == sv->npd) {
		struct pending *v = realloc(sv->pd, (sv->npd ? sv->npd * 2 : 64) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + sv->npd, 0, (sv->npd ? sv->npd : 64) * sizeof(*v));
		sv->pd = v;
		sv->npd = sv->npd ? sv->npd * 2 : 64;
	}
	sv->pd[k] = (struct pending){ .used = true, .li = li, .cv = cv, .ci = ci, .peer = *peer, .plen = plen,
				      .echo_len = (uint8_t)elen };
	memcpy(sv->pd[k].echo, echo, elen);
	sv->pending++;
	return heap_push(&sv->heap, at, TAG_PENDING | k, 0);
}

static int on_datagram(struct server *sv, unsigned li, uint64_t now)
{
	struct listener *l = &sv->l[li];

	for (;;) {
		uint8_t buf[65536];
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(l->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&peer, &plen);
		enum conv_match_kind kind;
		struct play_result *r;
		const struct conv *cv;
		uint32_t ci;
		uint64_t t_req;
		int k;

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED
				       ? 0 : -errno;
		k = conv_match(l->cand, l->n, l->uses, buf, (size_t)n, l->skip, &kind);
		if (k < 0) {
			sv->rep->unmatched++;
			continue;
		}
		l->uses[k]++;
		cv = sv->set->v[l->conv[k]];
		ci = l->req_chunk[k];
		r = play_report_add(sv->rep);
		if (!r)
			return -ENOMEM;
		*r = (struct play_result){ .conv = cv->id, .pass = l->uses[k], .match = (uint8_t)kind,
					   .rcvd = (uint64_t)n, .want_rcvd = cv->chunks[ci].len, .connect_ns = 0,
					   .first_ns = UINT64_MAX };
		sv->rep->udp_requests++;
		sv->done++;
		t_req = cv->chunks[ci].ts_ns;
		/* The replies recorded after it, up to the client's next datagram. */
		for (uint32_t j = ci + 1; j < cv->nchunks && cv->chunks[j].side == CONV_SERVER; j++) {
			uint64_t ts = cv->chunks[j].ts_ns, d = play_think_ns(sv->cfg, ts > t_req ? ts - t_req : 0);

			r->want_sent += cv->chunks[j].len;
			if (!d) {
				udp_reply(sv, l, cv, j, &peer, plen, buf, l->skip, r);
				r->first_ns = 0;
			} else if (pend(sv, li, cv, j, &peer, plen, buf, l->skip, now + d) < 0) {
				return -ENOMEM;
			}
		}
		r->sent = r->want_sent; /* replies due later count as sent when due */
	}
}

/* The candidates of every listener, and the listeners themselves. */
static int add_listener(struct server *sv, uint8_t proto, const struct conv_addr *a, uint32_t conv,
			uint32_t req_chunk, uint64_t base, uint64_t req_len)
{
	struct listener *l = NULL;

	for (unsigned k = 0; k < sv->nl; k++)
		if (sv->l[k].proto == proto && sv->l[k].addr.family == a->family && sv->l[k].addr.port == a->port)
			l = &sv->l[k];
	if (!l) {
		struct listener *v = realloc(sv->l, (sv->nl + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->l = v;
		l = &sv->l[sv->nl++];
		memset(l, 0, sizeof(*l));
		l->fd = -1;
		l->proto = proto;
		l->addr = *a;
		l->server_first = true;
		l->skip = ECHO_MAX;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? (size_t)l->cap * 2 : 4;
		uint32_t *cv = realloc(l->conv, nc * sizeof(*cv)), *rc;
		struct conv_cand *cd;
		unsigned *u;
		uint64_t *bs;

		if (!cv)
			return -ENOMEM;
		l->conv = cv;
		rc = realloc(l->req_chunk, nc * sizeof(*rc));
		if (!rc)
			return -ENOMEM;
		l->req_chunk = rc;
		bs = realloc(l->base, nc * sizeof(*bs));
		if (!bs)
			return -ENOMEM;
		l->base = bs;
		cd = realloc(l->cand, nc * sizeof(*cd));
		if (!cd)
			return -ENOMEM;
		l->cand = cd;
		u = realloc(l->uses, nc * sizeof(*u));
		if (!u)
			return -ENOMEM;
		l->uses = u;
		l->cap = (unsigned)nc;
	}
	{
		const struct conv *c = sv->set->v[conv];
		const struct conv_chunk *ch = req_chunk < c->nchunks ? &c->chunks[req_chunk] : NULL;
		struct conv_cand *cd = &l->cand[l->n];

		l->conv[l->n] = conv;
		l->req_chunk[l->n] = req_chunk;
		l->base[l->n] = base;
		l->uses[l->n] = 0;
		if (proto == 6) {
			cd->data = c->dir[CONV_CLIENT].data + base;
			cd->len = c->dir[CONV_CLIENT].len - base;
			cd->first_len = req_len;
			if (cd->first_len)
				l->server_first = false;
		} else {
			const struct conv_chunk *rsp = req_chunk + 1 < c->nchunks ? ch + 1 : NULL;

			cd->data = c->dir[CONV_CLIENT].data + ch->off;
			cd->len = ch->len;
			cd->first_len = ch->len;
			if (rsp && rsp->side == CONV_SERVER) {
				size_t e = conv_echo_len(cd->data, cd->len, c->dir[CONV_SERVER].data + rsp->off, rsp->len);

				if (e < l->skip)
					l->skip = e;
			}
		}
		l->n++;
	}
	return 0;
}

/*
 * A TCP conversation's turns as candidates: a connection may start at any
 * of its requests (a keep-alive connection's second request, asked for on
 * a connection of its own), and is served from there on.  A turn starts
 * at a server chunk that new client bytes came before.  Where the
 * recorded server spoke first, only the start is a candidate.
 */
static int add_turns(struct server *sv, const struct conv_addr *a, uint32_t k)
{
	const struct conv *c = sv->set->v[k];
	uint64_t prev = 0;
	uint32_t j = 0;
	bool first = true;
	int rc;

	while (j < c->nchunks && c->chunks[j].side != CONV_SERVER)
		j++;
	rc = add_listener(sv, 6, a, k, j, 0, j < c->nchunks ? c->chunks[j].need_peer : c->dir[CONV_CLIENT].len);
	if (rc < 0 || (j < c->nchunks && !c->chunks[j].need_peer))
		return rc;
	for (; j < c->nchunks; j++) {
		const struct conv_chunk *ch = &c->chunks[j];

		if (ch->side != CONV_SERVER)
			continue;
		if (!first && ch->need_peer > prev) {
			rc = add_listener(sv, 6, a, k, j, prev, ch->need_peer - prev);
			if (rc < 0)
				return rc;
		}
		first = false;
		prev = ch->need_peer;
	}
	return 0;
}

static int open_listener(struct server *sv, struct listener *l, char *err, size_t errlen)
{
	struct conv_addr a = l->addr;
	struct sockaddr_storage ss;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u32 = TAG_LISTENER | (uint32_t)(l - sv->l) };
	int one = 1;
	char name[80];

	if (sv->cfg->listen.set)
		memcpy(a.addr, sv->cfg->listen.a.addr, 16);
	else
		memset(a.addr, 0, 16);
	l->fd = socket(a.family, (l->proto == 6 ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		goto fail;
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a.family == AF_INET6)
		setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(l->fd, (struct sockaddr *)&ss, play_sockaddr(&a, &ss)) < 0 ||
	    (l->proto == 6 && listen(l->fd, 4096) < 0) || epoll_ctl(sv->ep, EPOLL_CTL_ADD, l->fd, &ev) < 0)
		goto fail;
	if (l->proto == 17 && l->skip == ECHO_MAX)
		l->skip = 0;
	return 0;
fail:
	snprintf(err, errlen, "cannot listen on %s %s: %s", l->proto == 6 ? "TCP" : "UDP",
		 conv_addr_str(&a, name, sizeof(name)), strerror(errno));
	return -errno;
}

static int setup(struct server *sv, char *err, size_t errlen)
{
	for (uint32_t k = 0; k < sv->set->n; k++) {
		const struct conv *c = sv->set->v[k];
		struct conv_addr a = c->ep[CONV_SERVER];
		char why[8];
		int rc = 0;

		if (conv_refusal(c, CONV_SERVER, why, sizeof(why)))
			continue;
		if (sv->cfg->listen.set && sv->cfg->listen.a.family != a.family)
			continue;
		a.port = play_map_port(&sv->cfg->port_map, a.port);
		if (c->proto == 6) {
			rc = add_turns(sv, &a, k);
		} else {
			for (uint32_t j = 0; j < c->nchunks && rc == 0; j++)
				if (c->chunks[j].side == CONV_CLIENT)
					rc = add_listener(sv, 17, &a, k, j, 0, 0);
		}
		if (rc < 0) {
			snprintf(err, errlen, "out of memory");
			return rc;
		}
	}
	if (!sv->nl) {
		snprintf(err, errlen, "no recorded server to play%s", sv->cfg->listen.set ? " on --listen's address family" : "");
		return -EINVAL;
	}
	for (unsigned k = 0; k < sv->nl; k++) {
		int rc = open_listener(sv, &sv->l[k], err, errlen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int on_timer(struct server *sv, const struct ev_timer *t, uint64_t now)
{
	struct sslot *s;

	if (t->idx & TAG_PENDING) {
		struct pending *p = &sv->pd[t->idx & ~TAG_PENDING];

		udp_reply(sv, &sv->l[p->li], p->cv, p->ci, &p->peer, p->plen, p->echo, p->echo_len, NULL);
		p->used = false;
		sv->pending--;
		return 0;
	}
	s = &sv->s[t->idx];
	if (s->state == S_FREE || t->gen != s->gen || t->at_ns != s->armed_ns)
		return 0;
	s->armed_ns = 0;
	if (now - s->last_ns >= sv->timeout_ns) {
		finish(sv, t->idx, s->state == S_DRAIN ? PLAY_OK : PLAY_TIMEOUT, 0);
		return 0;
	}
	return step(sv, t->idx, now);
}

static int on_event(struct server *sv, uint32_t tag, uint32_t evs, uint64_t now)
{
	struct sslot *s;
	int err;

	if (tag & TAG_LISTENER) {
		unsigned li = tag & ~TAG_LISTENER;

		return sv->l[li].proto == 6 ? on_accept(sv, li, now) : on_datagram(sv, li, now);
	}
	s = &sv->s[tag];
	if (s->state == S_FREE)
		return 0;
	if (evs & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) {
		err = read_conn(sv, tag, now);
		if (err < 0)
			return err;
		if (err) {
			finish(sv, tag, play_verdict_of(err, true), err);
			return 0;
		}
	}
	return step(sv, tag, now);
}

static void server_free(struct server *sv)
{
	for (unsigned k = 0; k < sv->nl; k++) {
		if (sv->l[k].fd >= 0)
			close(sv->l[k].fd);
		free(sv->l[k].conv);
		free(sv->l[k].cand);
		free(sv->l[k].uses);
		free(sv->l[k].req_chunk);
		free(sv->l[k].base);
	}
	free(sv->l);
	for (uint32_t i = 0; sv->s && i < sv->nslot; i++) {
		if (sv->s[i].state != S_FREE)
			close(sv->s[i].fd);
		free(sv->s[i].buf);
	}
	free(sv->s);
	free(sv->freel);
	free(sv->pd);
	heap_free(&sv->heap);
	if (sv->ep >= 0)
		close(sv->ep);
}

int play_serve(const struct play_cfg *cfg, const struct conv_set *set, const volatile sig_atomic_t *stop,
	       struct play_report *rep, char *err, size_t errlen)
{
	struct server sv = { .cfg = cfg, .set = set, .rep = rep, .ep = -1 };
	struct epoll_event evs[EPOLL_BATCH];
	uint64_t origin, end_ns = 0, now;
	int rc;

	rep->role = "serve";
	sv.timeout_ns = (uint64_t)((cfg->timeout_s > 0 ? cfg->timeout_s : PLAY_TIMEOUT_DEFAULT_S) * 1e9);
	sv.nslot = cfg->max_concurrent ? cfg->max_concurrent : 4096;
	sv.s = calloc(sv.nslot, sizeof(*sv.s));
	sv.freel = calloc(sv.nslot, sizeof(*sv.freel));
	sv.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!sv.s || !sv.freel || sv.ep < 0) {
		rc = sv.ep < 0 ? -errno : -ENOMEM;
		snprintf(err, errlen, "%s", strerror(-rc));
		goto out;
	}
	for (uint32_t i = 0; i < sv.nslot; i++) {
		sv.s[i].fd = -1;
		sv.freel[sv.nfree++] = sv.nslot - 1 - i;
	}
	rc = setup(&sv, err, errlen);
	if (rc < 0)
		goto out;
	origin = now = play_now_ns();
	if (cfg->duration_s > 0)
		end_ns = origin + (uint64_t)(cfg->duration_s * 1e9);
	while (!*stop) {
		struct ev_timer t;
		uint64_t at;
		int n;

		while (heap_pop_due(&sv.heap, now, &t))
			if (on_timer(&sv, &t, now) < 0)
				goto oom;
		if (cfg->conversations && sv.done >= cfg->conversations && !sv.active && !sv.pending)
			break;
		if (end_ns && now >= end_ns)
			break;
		at = heap_next(&sv.heap);
		if (end_ns && end_ns < at)
			at = end_ns;
		n = epoll_wait(sv.ep, evs, EPOLL_BATCH, play_epoll_wait_ms(play_now_ns(), at));
		now = play_now_ns();
		for (int k = 0; k < n; k++) {
			rc = on_event(&sv, evs[k].data.u32, evs[k].events, now);
			if (rc == -ENOMEM)
				goto oom;
			if (rc < 0) {
				snprintf(err, errlen, "%s", strerror(-rc));
				goto out;
			}
		}
	}
	rep->interrupted = *stop != 0;
	for (uint32_t i = 0; i < sv.nslot; i++)
		if (sv.s[i].state != S_FREE)
			finish(&sv, i, sv.s[i].state == S_DRAIN ? PLAY_OK : PLAY_ERROR, EINTR);
	rep->elapsed_ns = play_now_ns() - origin;
	rc = 0;
	goto out;
oom:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
out:
	for (size_t k = 0; k < rep->n; k++)
		rep->verdicts[rep->r[k].verdict]++;
	server_free(&sv);
	return rc;
}
