// SPDX-License-Identifier: BSD-2-Clause
/*
 * Conversations from frames (replay/conv.h): flows found by their
 * addresses and ports while the traces are read, each keeping its packets'
 * payloads in arrival order; at the end each flow is reassembled, its
 * roles decided and its streams cut into chunks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "conv_int.h"
#include "replay/trace.h"

/* A packet of a flow, as captured; its payload is in the flow's arena. */
struct seg {
	uint64_t ts_ns, recno;
	uint64_t data_off;  /* into flow.arena */
	uint32_t seq;       /* TCP sequence number (the SYN's own when SYN is set) */
	uint32_t len;       /* payload bytes captured */
	uint32_t wire_len;  /* payload bytes the headers declare */
	uint8_t side;       /* 0: the first packet's sender, 1: the other end */
	uint8_t flags;      /* CONV_TCP_* */
};

struct flow {
	struct conv_addr ep[2]; /* ep[0] sent the first packet */
	uint8_t proto;
	bool done;              /* replaced by a new connection on the same ports */
	bool syn[2], synack[2], fin[2], rst[2];
	uint32_t isn[2];
	uint64_t start_ns, end_ns, first_recno;
	const char *file;
	struct seg *segs;
	size_t nseg, capseg;
	uint8_t *arena;
	size_t alen, acap;
};

struct conv_build {
	struct flow **all;   /* creation order */
	size_t n, cap;
	uint32_t *slot;      /* hash table: index + 1 into all, 0 = empty */
	size_t nslot;        /* power of two */
	struct conv_stats st;
};

int conv_build_new(struct conv_build **bp)
{
	struct conv_build *b = calloc(1, sizeof(*b));

	*bp = b;
	if (!b)
		return -ENOMEM;
	b->nslot = 1024;
	b->slot = calloc(b->nslot, sizeof(*b->slot));
	if (!b->slot) {
		free(b);
		*bp = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void flow_free(struct flow *f)
{
	if (!f)
		return;
	free(f->segs);
	free(f->arena);
	free(f);
}

void conv_build_free(struct conv_build *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		flow_free(b->all[i]);
	free(b->all);
	free(b->slot);
	free(b);
}

static int addr_cmp(const struct conv_addr *a, const struct conv_addr *b)
{
	int r = memcmp(a->addr, b->addr, 16);

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (r)
		return r;
	return a->port == b->port ? 0 : a->port < b->port ? -1 : 1;
}

static uint64_t key_hash(uint8_t proto, const struct conv_addr *x, const struct conv_addr *y)
{
	const struct conv_addr *lo = addr_cmp(x, y) <= 0 ? x : y, *hi = lo == x ? y : x;
	uint64_t h = 0xcbf29ce484222325ull ^ proto;

	for (int k = 0; k < 2; k++) {
		const struct conv_addr *a = k ? hi : lo;

		for (int i = 0; i < 16; i++)
			h = (h ^ a->addr[i]) * 0x100000001b3ull;
		h = (h ^ a->port ^ (uint64_t)a->family << 16) * 0x100000001b3ull;
	}
	return h ^ h >> 29;
}

static bool same_flow(const struct flow *f, uint8_t proto, const struct conv_addr *s,
		      const struct conv_addr *d)
{
	return f->proto == proto && ((!addr_cmp(&f->ep[0], s) && !addr_cmp(&f->ep[1], d)) ||
				     (!addr_cmp(&f->ep[0], d) && !addr_cmp(&f->ep[1], s)));
}

/* The slot of the flow (or where it would go). */
static size_t find_slot(const struct conv_build *b, uint8_t proto, const struct conv_addr *s,
			const struct conv_addr *d)
{
	size_t i = key_hash(proto, s, d) & (b->nslot - 1);

	while (b->slot[i] && !same_flow(b->all[b->slot[i] - 1], proto, s, d))
		i = (i + 1) & (b->nslot - 1);
	return i;
}

static int grow_table(struct conv_build *b)
{
	uint32_t *old = b->slot;
	size_t nold = b->nslot;

	b->slot = calloc(nold * 2, sizeof(*b->slot));
	if (!b->slot) {
		b->slot = old;
		return -ENOMEM;
	}
	b->nslot = nold * 2;
	for (size_t i = 0; i < nold; i++) {
		const struct flow *f;

		if (!old[i])
			continue;
		f = b->all[old[i] - 1];
		b->slot[find_slot(b, f->proto, &f->ep[0], &f->ep[1])] = old[i];
	}
	free(old);
	return 0;
}

static struct flow *new_flow(struct conv_build *b, size_t slot, const struct conv_l4 *fr,
			     const struct pkt *p, const char *file)
{
	struct flow *f;

	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		struct flow **v = realloc(b->all, nc * sizeof(*v));

		if (!v)
			return NULL;
		b->all = v;
		b->cap = nc;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->ep[0] = fr->src;
	f->ep[1] = fr->dst;
	f->proto = fr->proto;
	f->start_ns = p->ts_ns;
	f->first_recno = p->recno;
	f->file = file;
	b->all[b->n++] = f;
	b->slot[slot] = (uint32_t)b->n;
	return f;
}

static int add_seg(struct flow *f, const struct conv_l4 *fr, const struct pkt *p, uint8_t side)
{
	struct seg *s;

	if (f->nseg == f->capseg) {
		size_t nc = f->capseg ? f->capseg * 2 : 16;
		struct seg *v = realloc(f->segs, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->segs = v;
		f->capseg = nc;
	}
	if (f->alen + fr->plen > f->acap) {
		size_t nc = f->acap ? f->acap : 4096;
		uint8_t *a;

		while (nc < f->alen + fr->plen)
			nc *= 2;
		a = realloc(f->arena, nc);
		if (!a)
			return -ENOMEM;
		f->arena = a;
		f->acap = nc;
	}
	s = &f->segs[f->nseg++];
	*s = (struct seg){ .ts_ns = p->ts_ns, .recno = p->recno, .data_off = f->alen, .seq = fr->seq,
			   .len = fr->plen, .wire_len = fr->wire_plen, .side = side,
			   .flags = fr->tcp_flags };
	if (fr->plen)
		memcpy(f->arena + f->alen, fr->payload, fr->plen);
	f->alen += fr->plen;
	if (p->ts_ns > f->end_ns)
		f->end_ns = p->ts_ns;
	return 0;
}

int conv_build_add(struct conv_build *b, const struct pkt *p, const char *file)
{
	struct conv_l4 fr;
	struct flow *f = NULL;
	size_t slot;
	uint8_t side;

	b->st.packets++;
	switch (conv_parse(p, &fr)) {
	case CONV_P_OK:
		break;
	case CONV_P_FRAGMENT:
		b->st.fragments++;
		return 0;
	case CONV_P_MALFORMED:
		b->st.malformed++;
		return 0;
	default:
		b->st.other++;
		return 0;
	}
	if (fr.proto == 6)
		b->st.tcp++;
	else
		b->st.udp++;
	if (2 * (b->n + 1) > b->nslot && grow_table(b) < 0)
		return -ENOMEM;
	slot = find_slot(b, fr.proto, &fr.src, &fr.dst);
	if (b->slot[slot])
		f = b->all[b->slot[slot] - 1];
	side = f && addr_cmp(&f->ep[0], &fr.src) ? 1 : 0;
	/* A new SYN on ports whose connection ended, or with another ISN: a new connection. */
	if (f && fr.proto == 6 && (fr.tcp_flags & (CONV_TCP_SYN | CONV_TCP_ACK)) == CONV_TCP_SYN &&
	    ((f->syn[side] && f->isn[side] != fr.seq) || f->rst[0] || f->rst[1] || (f->fin[0] && f->fin[1]))) {
		f->done = true;
		f = NULL;
	}
	if (!f) {
		f = new_flow(b, slot, &fr, p, file);
		if (!f)
			return -ENOMEM;
		side = 0;
	}
	if (fr.proto == 6) {
		if (fr.tcp_flags & CONV_TCP_SYN) {
			if (fr.tcp_flags & CONV_TCP_ACK)
				f->synack[side] = true;
			f->syn[side] = true;
			f->isn[side] = fr.seq;
		}
		if (fr.tcp_flags & CONV_TCP_FIN)
			f->fin[side] = true;
		if (fr.tcp_flags & CONV_TCP_RST)
			f->rst[side] = true;
	}
	return add_seg(f, &fr, p, side);
}

int conv_build_read(struct conv_build *b, const char *path, char *err, size_t errlen)
{
	struct trace *t = NULL;
	struct pkt p;
	int rc = trace_open(&t, path, NULL);

	while (rc == 0 && (rc = trace_next(t, &p)) == 1)
		rc = conv_build_add(b, &p, path);
	if (rc < 0)
		snprintf(err, errlen, "%s", rc == -ENOMEM ? "out of memory" : t ? trace_strerror(t) : path);
	trace_close(t);
	return rc < 0 ? rc : 0;
}

/* --- reassembly --- */

struct ival {
	uint64_t lo, hi;
};

static int ival_cmp(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The stream offset of @s's payload in its side, or UINT64_MAX if it lies before the stream's start. */
static uint64_t rel_off(const struct seg *s, uint32_t base)
{
	uint32_t r = s->seq + ((s->flags & CONV_TCP_SYN) ? 1 : 0) - base;

	return r >= 0x80000000u ? UINT64_MAX : r;
}

/* Which of the flow's sides is the client. */
static int client_side(const struct flow *f, unsigned *flags)
{
	if (f->proto != 6)
		return 0;
	for (int s = 0; s < 2; s++)
		if (f->syn[s] && !f->synack[s]) {
			if (f->synack[!s])
				*flags |= CONV_F_HANDSHAKE;
			else
				*flags |= CONV_F_NO_SYNACK;
			return s;
		}
	for (int s = 0; s < 2; s++)
		if (f->synack[s])
			return !s;
	*flags |= CONV_F_MIDSTREAM;
	if (f->ep[0].port != f->ep[1].port)
		return f->ep[0].port < f->ep[1].port ? 1 : 0;
	return 0;
}

static uint32_t tcp_base(const struct flow *f, int side)
{
	bool any = false;
	uint32_t base = 0;

	if (f->syn[side])
		return f->isn[side] + 1;
	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *s = &f->segs[i];

		if (s->side != side || (!s->len && !(s->flags & CONV_TCP_FIN)))
			continue;
		if (!any || (int32_t)(s->seq - base) < 0)
			base = s->seq;
		any = true;
	}
	return base;
}

/* The contiguous prefix of side @side's stream, its end, and what cuts it. */
static int stream_extent(const struct flow *f, int side, uint32_t base, struct conv_dir *d)
{
	struct ival *iv = malloc((f->nseg ? f->nseg : 1) * sizeof(*iv));
	size_t n = 0;
	uint64_t edge = 0, trunc = UINT64_MAX;

	if (!iv)
		return -ENOMEM;
	d->gap_off = UINT64_MAX;
	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *s = &f->segs[i];
		uint64_t r;

		if (s->side != side || !s->len)
			continue;
		r = rel_off(s, base);
		if (r == UINT64_MAX)
			continue;
		iv[n++] = (struct ival){ r, r + s->len };
		if (s->len < s->wire_len && r + s->len < trunc) {
			trunc = r + s->len;
			d->trunc_recno = s->recno;
			d->trunc_off = r;
		}
	}
	qsort(iv, n, sizeof(*iv), ival_cmp);
	for (size_t i = 0; i < n; i++) {
		if (iv[i].lo > edge) {
			d->gap_off = edge;
			break;
		}
		if (iv[i].hi > edge)
			edge = iv[i].hi;
	}
	free(iv);
	if (trunc < edge) {
		edge = trunc;
		d->gap_off = UINT64_MAX;
	}
	d->len = edge;
	return 0;
}

struct side_state {
	uint32_t base;
	uint8_t *have; /* bytes filled (data pass), then delivered (chunk pass) */
	uint64_t edge;
};

static int add_chunk(struct conv *c, uint32_t *cap, const struct conv_chunk *k)
{
	if (c->nchunks == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		struct conv_chunk *v = realloc(c->chunks, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->chunks = v;
		*cap = nc;
	}
	c->chunks[c->nchunks++] = *k;
	c->dir[k->side].nchunks++;
	return 0;
}

static void note_close(struct conv *c, int side, const struct seg *s, uint64_t peer_edge)
{
	struct conv_dir *d = &c->dir[side];

	if (d->close != CONV_CLOSE_NONE)
		return;
	if (s->flags & CONV_TCP_RST)
		d->close = CONV_CLOSE_RST;
	else if (s->flags & CONV_TCP_FIN)
		d->close = CONV_CLOSE_FIN;
	else
		return;
	d->close_ns = s->ts_ns;
	d->close_need_peer = peer_edge;
}

static int tcp_streams(const struct flow *f, struct conv *c, int cs)
{
	struct side_state ss[2] = { { 0 } };
	uint32_t cap = 0;
	int rc = -ENOMEM;

	for (int k = 0; k < 2; k++) {
		int fs = k == CONV_CLIENT ? cs : !cs;

		ss[k].base = tcp_base(f, fs);
		if (stream_extent(f, fs, ss[k].base, &c->dir[k]) < 0)
			goto out;
		c->dir[k].data = malloc(c->dir[k].len ? c->dir[k].len : 1);
		ss[k].have = calloc(c->dir[k].len ? c->dir[k].len : 1, 1);
		if (!c->dir[k].data || !ss[k].have)
			goto out;
	}
	/* Data: the first copy of each byte wins. */
	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *s = &f->segs[i];
		int k = s->side == cs ? CONV_CLIENT : CONV_SERVER;
		struct conv_dir *d = &c->dir[k];
		uint64_t r = rel_off(s, ss[k].base), newb = 0, old = 0;
		const uint8_t *src;

		if (!s->len)
			continue;
		src = f->arena + s->data_off;
		d->segments++;
		for (uint64_t j = 0; r != UINT64_MAX && j < s->len && r + j < d->len; j++) {
			if (!ss[k].have[r + j]) {
				ss[k].have[r + j] = 1;
				d->data[r + j] = src[j];
				newb++;
			} else {
				old++;
				if (d->data[r + j] != src[j])
					d->conflicts++;
			}
		}
		if (!newb)
			d->retrans++;
		else if (old)
			d->overlaps++;
	}
	/* Delivery: a segment delivers what it makes contiguous. */
	for (int k = 0; k < 2; k++)
		memset(ss[k].have, 0, c->dir[k].len ? c->dir[k].len : 1);
	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *s = &f->segs[i];
		int k = s->side == cs ? CONV_CLIENT : CONV_SERVER;
		struct conv_dir *d = &c->dir[k];
		uint64_t r = rel_off(s, ss[k].base), old = ss[k].edge;

		if (s->len && r != UINT64_MAX) {
			if (r > old && r < d->len)
				d->ooo++;
			for (uint64_t j = r; j < r + s->len && j < d->len; j++)
				ss[k].have[j] = 1;
			while (ss[k].edge < d->len && ss[k].have[ss[k].edge])
				ss[k].edge++;
			while (ss[k].edge > old) {
				uint64_t n = ss[k].edge - old;
				struct conv_chunk ch = { .ts_ns = s->ts_ns, .off = old, .side = (uint8_t)k,
							 .need_peer = ss[!k].edge,
							 .len = n > 0x40000000u ? 0x40000000u : (uint32_t)n };

				if (add_chunk(c, &cap, &ch) < 0)
					goto out;
				old += ch.len;
			}
		}
		note_close(c, k, s, ss[!k].edge);
	}
	rc = 0;
out:
	free(ss[0].have);
	free(ss[1].have);
	return rc;
}

static int udp_streams(const struct flow *f, struct conv *c)
{
	uint32_t cap = 0;

	for (int k = 0; k < 2; k++) {
		c->dir[k].gap_off = UINT64_MAX;
		c->dir[k].data = malloc(f->alen ? f->alen : 1);
		if (!c->dir[k].data)
			return -ENOMEM;
	}
	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *s = &f->segs[i];
		struct conv_dir *d = &c->dir[s->side];
		struct conv_chunk ch = { .ts_ns = s->ts_ns, .off = d->len, .len = s->len, .side = s->side,
					 .need_peer = c->dir[!s->side].len };

		d->segments++;
		if (d->trunc_recno)
			continue; /* the stream ended at the cut datagram */
		if (s->len < s->wire_len) {
			d->trunc_recno = s->recno;
			d->trunc_off = d->len;
			continue;
		}
		if (s->len)
			memcpy(d->data + d->len, f->arena + s->data_off, s->len);
		d->len += s->len;
		if (add_chunk(c, &cap, &ch) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void conv_free(struct conv *c)
{
	if (!c)
		return;
	free(c->dir[0].data);
	free(c->dir[1].data);
	free(c->chunks);
	free(c);
}

static int flow_to_conv(const struct flow *f, uint32_t id, struct conv **out)
{
	struct conv *c = calloc(1, sizeof(*c));
	int cs, rc;

	*out = c;
	if (!c)
		return -ENOMEM;
	cs = client_side(f, &c->flags);
	c->id = id;
	c->proto = f->proto;
	c->ep[CONV_CLIENT] = f->ep[cs];
	c->ep[CONV_SERVER] = f->ep[!cs];
	c->start_ns = f->start_ns;
	c->end_ns = f->end_ns;
	c->first_recno = f->first_recno;
	c->file = f->file;
	rc = f->proto == 6 ? tcp_streams(f, c, cs) : udp_streams(f, c);
	if (rc < 0) {
		conv_free(c);
		*out = NULL;
	}
	return rc;
}

int conv_build_finish(struct conv_build *b, struct conv_set **out)
{
	struct conv_set *s = calloc(1, sizeof(*s));
	int rc = -ENOMEM;

	*out = NULL;
	if (!s)
		goto out;
	s->st = b->st;
	s->v = calloc(b->n ? b->n : 1, sizeof(*s->v));
	if (!s->v)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		rc = flow_to_conv(b->all[i], (uint32_t)i + 1, &s->v[s->n]);
		if (rc < 0)
			goto out;
		s->n++;
		/* The flow's packets are not needed any more: keep the peak low. */
		flow_free(b->all[i]);
		b->all[i] = NULL;
	}
	*out = s;
	s = NULL;
	rc = 0;
out:
	conv_set_free(s);
	conv_build_free(b);
	return rc;
}

void conv_set_free(struct conv_set *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		conv_free(s->v[i]);
	free(s->v);
	free(s);
}

char *conv_addr_str(const struct conv_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family == AF_INET6 ? AF_INET6 : AF_INET, a->addr, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, len, a->family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, a->port);
	return buf;
}

char *conv_name(const struct conv *c, char *buf, size_t len)
{
	char a[64], b[64];

	snprintf(buf, len, "%s %s -> %s", c->proto == 6 ? "tcp" : "udp",
		 conv_addr_str(&c->ep[CONV_CLIENT], a, sizeof(a)),
		 conv_addr_str(&c->ep[CONV_SERVER], b, sizeof(b)));
	return buf;
}

bool conv_refusal(const struct conv *c, enum conv_side side, char *buf, size_t len)
{
	const struct conv_dir *d = &c->dir[side];
	const char *who = side == CONV_CLIENT ? "client" : "server";
	char name[160];

	buf[0] = '\0';
	if (d->trunc_recno)
		snprintf(buf, len,
			 "%s: conversation %u (%s): record %llu: the %s's payload is cut by the snap length at stream byte %llu; its %s side cannot be played",
			 c->file ? c->file : "-", c->id, conv_name(c, name, sizeof(name)),
			 (unsigned long long)d->trunc_recno, who, (unsigned long long)d->trunc_off, who);
	else if (d->gap_off != UINT64_MAX)
		snprintf(buf, len,
			 "%s: conversation %u (%s): the capture lost the %s's bytes from stream byte %llu on; its %s side cannot be played",
			 c->file ? c->file : "-", c->id, conv_name(c, name, sizeof(name)), who,
			 (unsigned long long)d->gap_off, who);
	return buf[0] != '\0';
}
