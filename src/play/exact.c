// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay live --exact: the recorded client packets themselves, on an
 * interface (replay/play.h, play_exact()).
 *
 * The client frames of every TCP conversation are read again from the
 * traces and sent by an AF_PACKET socket as recorded -- the same
 * segments, options and sizes -- with their acknowledgement numbers (and
 * SACK blocks) moved from the recorded server's sequence space to the
 * live server's, learnt from its SYN/ACK, and their TCP checksums made
 * anew.  The client's own sequence numbers are the recorded ones: the
 * server takes any.  The server's frames come in on a packet socket of
 * the same interface, filtered in the kernel to the recorded servers.
 *
 * A client frame goes out once the live server has sent, in order, what
 * the recorded frame acknowledged (its recorded ACK number says exactly
 * how much the recorded client had), after the recorded gap.  Nothing
 * heard for PLAY_EXACT_RTO_NS: the last frame again, PLAY_EXACT_TRIES
 * times at most, then a timeout.
 *
 * The host must not own the recorded client addresses: its kernel would
 * answer the live server's SYN/ACK with an RST (see replay(1)).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "play_int.h"
#include "replay/trace.h"

#define PLAY_EXACT_RTO_NS 200000000ull
#define PLAY_EXACT_TRIES 5

struct xframe {
	uint8_t *data;
	uint32_t len;
	uint64_t ts_ns;
	struct conv_l4 l4;     /* offsets into data; payload pointer not used */
	uint64_t need;         /* live server bytes (its FIN counted) needed before it */
	bool needs_synack;
};

struct xconv {
	const struct conv *cv;
	struct xframe *f;
	uint32_t nf, capf;
	uint32_t rec_isn;      /* the recorded server's ISN */
	bool have_rec_isn;
	bool started, done;
	uint32_t next;         /* next frame to send */
	unsigned tries;
	uint64_t t0, ready_ns, last_tx_ns, last_rx_ns;
	uint32_t live_isn;
	uint32_t ts_recent;    /* the live server's latest TSval, echoed (RFC 7323) */
	bool have_ts;
	bool synack, fin;
	uint64_t edge;         /* live server bytes received in order, its FIN counted */
	uint8_t *rx;
	size_t rxlen, rxcap;
	size_t ri;
	uint64_t sent;
	uint64_t at_ns;        /* start, from the run's origin */
};

struct xeng {
	const struct play_cfg *cfg;
	const struct conv_mask *mask;
	struct play_report *rep;
	struct xconv *x;
	uint32_t n;
	int fd, ifindex;
	uint64_t timeout_ns, active;
	uint8_t buf[65536];
};

static bool same_ep(const struct conv_addr *a, const struct conv_addr *b)
{
	return a->family == b->family && a->port == b->port &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET6 ? 16 : 4);
}

/* The conversation a frame from @src to @dst at @ts belongs to, and whether the client sent it. */
static struct xconv *find(struct xeng *e, const struct conv_addr *src, const struct conv_addr *dst,
			  uint64_t ts, bool live, bool *from_client)
{
	for (uint32_t i = 0; i < e->n; i++) {
		struct xconv *x = &e->x[i];
		const struct conv *c = x->cv;
		bool fc = same_ep(&c->ep[CONV_CLIENT], src) && same_ep(&c->ep[CONV_SERVER], dst);
		bool fs = same_ep(&c->ep[CONV_SERVER], src) && same_ep(&c->ep[CONV_CLIENT], dst);

		if (!fc && !fs)
			continue;
		if (live ? !x->started || x->done : ts < c->start_ns || ts > c->end_ns)
			continue;
		*from_client = fc;
		return x;
	}
	return NULL;
}

static int add_frame(struct xconv *x, const struct pkt *p, const struct conv_l4 *l4)
{
	struct xframe *f;

	if (x->nf == x->capf) {
		uint32_t nc = x->capf ? x->capf * 2 : 16;
		struct xframe *v = realloc(x->f, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->f = v;
		x->capf = nc;
	}
	f = &x->f[x->nf];
	f->data = malloc(p->caplen);
	if (!f->data)
		return -ENOMEM;
	memcpy(f->data, p->data, p->caplen);
	f->len = p->caplen;
	f->ts_ns = p->ts_ns;
	f->l4 = *l4;
	f->l4.payload = NULL;
	x->nf++;
	return 0;
}

/* Every recorded client frame of the conversations, from the traces again. */
static int load_frames(struct xeng *e, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < e->n; i++) {
		const char *file = e->x[i].cv->file;
		struct trace *t = NULL;
		struct pkt p;
		bool seen = false;
		int rc;

		for (uint32_t k = 0; k < i && !seen; k++)
			seen = e->x[k].cv->file == file;
		if (seen)
			continue;
		rc = trace_open(&t, file, NULL);
		while (rc == 0 && (rc = trace_next(t, &p)) == 1) {
			struct conv_l4 l4;
			struct xconv *x;
			bool fc;

			rc = 0;
			if (conv_dissect(&p, &l4) < 0 || l4.proto != 6)
				continue;
			x = find(e, &l4.src, &l4.dst, p.ts_ns, false, &fc);
			if (!x || x->cv->file != file)
				continue;
			if (!fc) {
				if ((l4.tcp_flags & 0x12) == 0x12) {
					x->rec_isn = l4.seq;
					x->have_rec_isn = true;
				}
				continue;
			}
			rc = add_frame(x, &p, &l4);
		}
		if (rc < 0)
			snprintf(err, errlen, "%s", rc == -ENOMEM ? "out of memory" : t ? trace_strerror(t) : file);
		trace_close(t);
		if (rc < 0)
			return rc;
	}
	/* What each client frame acknowledged of the recorded server: what the live one must have sent. */
	for (uint32_t i = 0; i < e->n; i++) {
		struct xconv *x = &e->x[i];

		for (uint32_t k = 0; k < x->nf; k++) {
			struct xframe *f = &x->f[k];
			uint32_t rel = f->l4.ack - (x->rec_isn + 1);

			f->needs_synack = (f->l4.tcp_flags & 0x10) && x->have_rec_isn;
			f->need = f->needs_synack && rel < 0x80000000u ? rel : 0;
		}
	}
	return 0;
}

static uint16_t csum_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static uint64_t csum_add(uint64_t s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/* Frame @f with the live server's sequence space, its checksum anew, into @out; its length. */
static size_t rewrite(const struct xconv *x, const struct xframe *f, uint8_t *out)
{
	uint8_t *ip = out + f->l4.l3_off, *th = out + f->l4.l4_off;
	uint32_t delta = x->live_isn - x->rec_isn, tcplen;
	uint64_t s = 0;

	memcpy(out, f->data, f->len);
	if (f->l4.tcp_flags & 0x10)
		put32(th + 8, get32(th + 8) + delta);
	/* SACK blocks (RFC 2018) name the server's sequence numbers too. */
	for (uint32_t o = 20; o < f->l4.l4_hlen;) {
		uint8_t kind = th[o], len = o + 1 < f->l4.l4_hlen ? th[o + 1] : 0;

		if (kind == 0)
			break;
		if (kind == 1) {
			o++;
			continue;
		}
		if (len < 2 || o + len > f->l4.l4_hlen)
			break;
		if (kind == 5)
			for (uint32_t b = o + 2; b + 4 <= o + len; b += 4)
				put32(th + b, get32(th + b) + delta);
		/* The echoed timestamp is the live server's, as its stack would check it against its own. */
		if (kind == 8 && len == 10 && x->have_ts && get32(th + o + 6))
			put32(th + o + 6, x->ts_recent);
		o += len;
	}
	tcplen = f->l4.l4_hlen + f->l4.wire_plen;
	th[16] = th[17] = 0;
	if (x->cv->ep[CONV_CLIENT].family == AF_INET6) {
		s = csum_add(s, ip + 8, 32);
	} else {
		s = csum_add(s, ip + 12, 8);
	}
	s += 6 + tcplen;
	s = csum_add(s, th, tcplen);
	{
		uint16_t c = csum_fold(s);

		th[16] = (uint8_t)(c >> 8);
		th[17] = (uint8_t)c;
	}
	return f->l4.l4_off + tcplen;
}

static void conclude(struct xeng *e, struct xconv *x, enum play_verdict v)
{
	struct play_result *r = &e->rep->r[x->ri];

	r->verdict = (uint8_t)v;
	r->sent = x->sent;
	r->rcvd = x->rxlen;
	r->dur_ns = play_now_ns() - x->t0;
	if (v == PLAY_OK && e->cfg->compare != CONV_CMP_NONE &&
	    play_finish_compare(e->cfg, e->mask, x->cv, x->rx, x->rxlen, r) < 0) {
		r->verdict = PLAY_ERROR;
		r->err = ENOMEM;
	}
	x->done = true;
	e->active--;
}

static int send_frame(struct xeng *e, struct xconv *x, uint32_t k, uint64_t now)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = e->ifindex, .sll_halen = 6 };
	size_t n = rewrite(x, &x->f[k], e->buf);

	memcpy(sll.sll_addr, e->buf, 6);
	if (sendto(e->fd, e->buf, n, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	x->last_tx_ns = now;
	return 0;
}

/* Move a conversation on; the time to look again (UINT64_MAX: on a frame only). */
static uint64_t advance(struct xeng *e, struct xconv *x, uint64_t now)
{
	const struct conv_dir *sd = &x->cv->dir[CONV_SERVER];

	while (!x->done && x->next < x->nf) {
		const struct xframe *f = &x->f[x->next];
		uint64_t at;
		int rc;

		if (!x->ready_ns) {
			if ((f->needs_synack && !x->synack) || x->edge < f->need) {
				if (!x->next || now - x->last_tx_ns < PLAY_EXACT_RTO_NS)
					return x->last_tx_ns + PLAY_EXACT_RTO_NS;
				/* Nothing came back for it: the frame before again. */
				if (x->tries++ >= PLAY_EXACT_TRIES) {
					conclude(e, x, x->synack ? PLAY_TIMEOUT : PLAY_TIMEOUT);
					return UINT64_MAX;
				}
				rc = send_frame(e, x, x->next - 1, now);
				if (rc < 0) {
					e->rep->r[x->ri].err = -rc;
					conclude(e, x, PLAY_ERROR);
					return UINT64_MAX;
				}
				return now + PLAY_EXACT_RTO_NS;
			}
			x->ready_ns = now;
		}
		at = x->ready_ns;
		/* A trace's clock may step back: no gap then, not an endless one. */
		if (x->next && f->ts_ns > x->f[x->next - 1].ts_ns)
			at += play_think_ns(e->cfg, f->ts_ns - x->f[x->next - 1].ts_ns);
		if (now < at)
			return at;
		rc = send_frame(e, x, x->next, now);
		if (rc < 0) {
			e->rep->r[x->ri].err = -rc;
			conclude(e, x, PLAY_ERROR);
			return UINT64_MAX;
		}
		x->sent += f->l4.wire_plen;
		x->next++;
		x->ready_ns = 0;
		x->tries = 0;
	}
	if (x->done)
		return UINT64_MAX;
	/* Every frame is out: the rest of the reply, if any is still on its way. */
	if (x->rxlen >= sd->len || now - (x->last_rx_ns > x->last_tx_ns ? x->last_rx_ns : x->last_tx_ns) >= PLAY_EXACT_RTO_NS) {
		conclude(e, x, PLAY_OK);
		return UINT64_MAX;
	}
	return now + PLAY_EXACT_RTO_NS;
}

static int keep(struct xconv *x, const uint8_t *b, size_t n)
{
	if (x->rxlen + n > x->rxcap) {
		size_t nc = x->rxcap ? x->rxcap : 4096;
		uint8_t *v;

		while (nc < x->rxlen + n)
			nc *= 2;
		v = realloc(x->rx, nc);
		if (!v)
			return -ENOMEM;
		x->rx = v;
		x->rxcap = nc;
	}
	memcpy(x->rx + x->rxlen, b, n);
	x->rxlen += n;
	return 0;
}

static int on_frame(struct xeng *e, const uint8_t *b, size_t n, uint64_t now)
{
	struct pkt p = { .data = b, .caplen = (uint32_t)n, .wirelen = (uint32_t)n, .linktype = LINKTYPE_ETHERNET };
	struct conv_l4 l4;
	struct xconv *x;
	bool fc;
	uint32_t rel;

	if (conv_dissect(&p, &l4) < 0 || l4.proto != 6)
		return 0;
	x = find(e, &l4.src, &l4.dst, 0, true, &fc);
	if (!x || fc)
		return 0;
	x->last_rx_ns = now;
	for (uint32_t o = 20; o + 1 < l4.l4_hlen;) {
		const uint8_t *th = b + l4.l4_off;

		if (th[o] == 0)
			break;
		if (th[o] == 1) {
			o++;
			continue;
		}
		if (th[o + 1] < 2)
			break;
		if (th[o] == 8 && th[o + 1] == 10 && o + 10 <= l4.l4_hlen) {
			x->ts_recent = get32(th + o + 2);
			x->have_ts = true;
		}
		o += th[o + 1];
	}
	if (l4.tcp_flags & 0x04) {
		conclude(e, x, x->synack ? PLAY_RESET : PLAY_REFUSED);
		return 0;
	}
	if ((l4.tcp_flags & 0x12) == 0x12 && !x->synack) {
		x->synack = true;
		x->live_isn = l4.seq;
		e->rep->r[x->ri].connect_ns = now - x->t0;
		return 0;
	}
	if (!x->synack)
		return 0;
	rel = l4.seq - (x->live_isn + 1);
	if (rel <= x->edge && rel + l4.plen > x->edge && !x->fin) {
		if (!x->rxlen)
			e->rep->r[x->ri].first_ns = now - x->t0;
		if (keep(x, l4.payload + (x->edge - rel), rel + l4.plen - x->edge) < 0)
			return -ENOMEM;
		x->edge = rel + l4.plen;
	}
	if ((l4.tcp_flags & 0x01) && rel + l4.plen == x->edge && !x->fin) {
		x->fin = true;
		x->edge++;
	}
	return 0;
}

/* A packet socket on the interface, its kernel filter keeping the recorded servers' TCP. */
static int open_socket(struct xeng *e, char *err, size_t errlen)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	char *expr = NULL, name[80];
	size_t len = 0;
	FILE *f = open_memstream(&expr, &len);
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	struct bpf_program prog = { 0 };
	int one = 1, rc = 0, buf = 4 << 20;

	e->ifindex = (int)if_nametoindex(e->cfg->intf);
	if (!e->ifindex) {
		snprintf(err, errlen, "-i %s: no such interface", e->cfg->intf);
		rc = -ENODEV;
		goto out;
	}
	if (!f || !dead) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	fprintf(f, "tcp and (");
	for (uint32_t i = 0; i < e->n; i++) {
		char a[64];
		const struct conv_addr *s = &e->x[i].cv->ep[CONV_SERVER];

		inet_ntop(s->family, s->addr, a, sizeof(a));
		fprintf(f, "%s(src host %s and src port %u)", i ? " or " : "", a, s->port);
	}
	fprintf(f, ")");
	fclose(f);
	f = NULL;
	if (pcap_compile(dead, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errlen, "the packet filter: %s", pcap_geterr(dead));
		rc = -EINVAL;
		goto out;
	}
	e->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (e->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "-i %s: packet socket: %s%s", e->cfg->intf, strerror(errno),
			 errno == EPERM ? " (needs CAP_NET_RAW)" : "");
		goto out;
	}
	{
		struct sock_fprog fp = { .len = (unsigned short)prog.bf_len, .filter = (struct sock_filter *)prog.bf_insns };

		sll.sll_ifindex = e->ifindex;
		if (setsockopt(e->fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0 ||
		    bind(e->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			rc = -errno;
			snprintf(err, errlen, "-i %s: %s", e->cfg->intf, strerror(errno));
			goto out;
		}
	}
	setsockopt(e->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(e->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	(void)name;
out:
	if (f)
		fclose(f);
	free(expr);
	pcap_freecode(&prog);
	if (dead)
		pcap_close(dead);
	return rc;
}

static int collect(struct xeng *e, const struct conv_set *set)
{
	uint64_t first = UINT64_MAX;
	char why[512];

	e->x = calloc(set->n ? set->n : 1, sizeof(*e->x));
	if (!e->x)
		return -ENOMEM;
	for (uint32_t i = 0; i < set->n; i++) {
		const struct conv *c = set->v[i];

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
		e->x[e->n++].cv = c;
		if (c->start_ns < first)
			first = c->start_ns;
	}
	for (uint32_t i = 0; i < e->n; i++)
		e->x[i].at_ns = play_think_ns(e->cfg, e->x[i].cv->start_ns - first);
	return 0;
}

static int start(struct xeng *e, struct xconv *x, uint64_t now)
{
	struct play_result *r = play_report_add(e->rep);

	if (!r)
		return -ENOMEM;
	x->ri = (size_t)(r - e->rep->r);
	r->conv = x->cv->id;
	r->pass = 1;
	r->want_sent = x->cv->dir[CONV_CLIENT].len;
	r->want_rcvd = x->cv->dir[CONV_SERVER].len;
	r->connect_ns = r->first_ns = UINT64_MAX;
	x->started = true;
	x->t0 = x->last_rx_ns = now;
	e->active++;
	if (e->active > e->rep->max_active)
		e->rep->max_active = e->active;
	if (!x->nf || !x->have_rec_isn) {
		conclude(e, x, PLAY_ERROR);
		r->err = ENODATA;
	}
	return 0;
}

int play_exact(const struct play_cfg *cfg, const struct conv_set *set, const struct conv_mask *mask,
	       const volatile sig_atomic_t *stop, struct play_report *rep, char *err, size_t errlen)
{
	struct xeng *e = calloc(1, sizeof(*e));
	uint64_t origin, now;
	uint32_t nstarted = 0;
	int rc;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*e = (struct xeng){ .cfg = cfg, .mask = mask, .rep = rep, .fd = -1 };
	rep->role = "live";
	e->timeout_ns = (uint64_t)((cfg->timeout_s > 0 ? cfg->timeout_s : PLAY_TIMEOUT_DEFAULT_S) * 1e9);
	rc = collect(e, set);
	if (rc < 0 || (rc = load_frames(e, err, errlen)) < 0)
		goto fail;
	if (!e->n) {
		rc = 0;
		goto done;
	}
	rc = open_socket(e, err, errlen);
	if (rc < 0)
		goto out;
	origin = now = play_now_ns();
	while (!*stop) {
		uint64_t wake = UINT64_MAX;
		struct pollfd pfd = { .fd = e->fd, .events = POLLIN };
		bool left = false;

		for (uint32_t i = 0; i < e->n; i++) {
			struct xconv *x = &e->x[i];
			uint64_t w;

			if (!x->started && origin + x->at_ns <= now &&
			    (!cfg->max_concurrent || e->active < cfg->max_concurrent)) {
				if (start(e, x, now) < 0)
					goto fail;
				nstarted++;
			}
			if (!x->started) {
				left = true;
				if (origin + x->at_ns < wake)
					wake = origin + x->at_ns;
				continue;
			}
			if (x->done)
				continue;
			left = true;
			if (now - x->last_rx_ns >= e->timeout_ns && now - x->last_tx_ns >= e->timeout_ns) {
				conclude(e, x, x->synack ? PLAY_TIMEOUT : PLAY_TIMEOUT);
				continue;
			}
			w = advance(e, x, now);
			if (w < wake)
				wake = w;
			if (!x->done && x->last_rx_ns + e->timeout_ns < wake)
				wake = x->last_rx_ns + e->timeout_ns;
		}
		if (!left)
			break;
		poll(&pfd, 1, play_epoll_wait_ms(play_now_ns(), wake));
		now = play_now_ns();
		for (;;) {
			ssize_t n = recv(e->fd, e->buf, sizeof(e->buf), MSG_DONTWAIT | MSG_TRUNC);

			if (n <= 0)
				break;
			if ((size_t)n > sizeof(e->buf))
				continue;
			if (on_frame(e, e->buf, (size_t)n, now) < 0)
				goto fail;
		}
	}
	rep->interrupted = *stop != 0;
	for (uint32_t i = 0; i < e->n; i++)
		if (e->x[i].started && !e->x[i].done) {
			e->rep->r[e->x[i].ri].err = EINTR;
			conclude(e, &e->x[i], PLAY_ERROR);
		}
	rep->elapsed_ns = play_now_ns() - origin;
	(void)nstarted;
done:
	rc = 0;
	goto out;
fail:
	if (rc >= 0 || rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc >= 0)
		rc = -ENOMEM;
out:
	for (size_t k = 0; k < rep->n; k++)
		rep->verdicts[rep->r[k].verdict]++;
	for (uint32_t i = 0; i < e->n; i++) {
		for (uint32_t k = 0; k < e->x[i].nf; k++)
			free(e->x[i].f[k].data);
		free(e->x[i].f);
		free(e->x[i].rx);
	}
	free(e->x);
	if (e->fd >= 0)
		close(e->fd);
	free(e);
	return rc;
}
