// SPDX-License-Identifier: BSD-2-Clause
/*
 * fragroute's modules over one frame (include/replay/frag.h): the frame
 * starts a queue, each rule in turn changes the queue (cuts a frame into
 * several, duplicates, drops or reorders them, rewrites a header), and
 * what is left is sent in order.  The frames live back to back in the
 * caller's buffer, the queue is a list of where each starts; a rule that
 * makes frames appends them.  Every random choice comes from the caller's
 * state, so a seed repeats a run.  The modules' semantics are fragroute's
 * (Dug Song, fragroute 1.2, as tcprewrite 4.6 carries it); where they
 * differ, replay(1) FRAGROUTE says how.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "replay/pkt.h"

#include "frag_int.h"

/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014). */
uint64_t frag_rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t frag_sum16(const uint8_t *p, size_t n, uint64_t sum)
{
	for (; n > 1; p += 2, n -= 2)
		sum += get_be16(p);
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

uint16_t frag_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint8_t *frag_at(struct work *w, const struct frame *f)
{
	return w->buf + f->off;
}

/* The IP packet in frame @f, or false when its header is malformed. */
bool frag_ip_view(struct work *w, const struct frame *f, struct ipv *v)
{
	const uint8_t *ip = frag_at(w, f) + w->l3off;
	uint32_t have = f->len - w->l3off, tot;

	if (f->len < w->l3off + IP4_MIN)
		return false;
	v->v6 = ip[0] >> 4 == 6;
	if (v->v6) {
		if (have < IP6_BYTES)
			return false;
		v->hl = IP6_BYTES;
		tot = get_be16(ip + 4) + IP6_BYTES;
		v->proto = ip[6];
		v->frag = v->proto == 44;
	} else {
		if (ip[0] >> 4 != 4 || (v->hl = (ip[0] & 15u) * 4u) < IP4_MIN || v->hl > have)
			return false;
		tot = get_be16(ip + 2);
		v->proto = ip[9];
		v->frag = get_be16(ip + 6) & (IP4_MF | IP4_OFFMASK);
	}
	/* A length of 0 or past the frame (TSO, GRO) gives way to the frame's. */
	v->end = w->l3off + (tot < v->hl || tot > have ? have : tot);
	return true;
}

void frag_ip4_csum(uint8_t *ip, uint32_t hl)
{
	put_be16(ip + 10, 0);
	put_be16(ip + 10, frag_fold(frag_sum16(ip, hl, 0)));
}

/*
 * The checksums of the packet in @f made right: IPv4's header, and the
 * TCP, UDP or ICMP(v6) checksum of a packet that is not a fragment, as
 * fragroute computes them before its first rule.
 */
void frag_csum(struct work *w, const struct frame *f, const struct ipv *v)
{
	uint8_t *ip = frag_at(w, f) + w->l3off, *l4 = ip + v->hl;
	uint32_t l4len = v->end - w->l3off - v->hl;
	uint64_t ph;
	unsigned pos;

	if (!v->v6)
		frag_ip4_csum(ip, v->hl);
	if (v->frag)
		return;
	if (v->proto == 6 && l4len >= TCP_MIN)
		pos = 16;
	else if (v->proto == 17 && l4len >= 8)
		pos = 6;
	else if ((v->proto == 1 && !v->v6) || (v->proto == 58 && v->v6 && l4len >= 4))
		pos = 2;
	else
		return;
	if (pos == 2 && !v->v6 && l4len < 4)
		return;
	if (v->proto == 1)
		ph = 0;
	else if (v->v6)
		ph = frag_sum16(ip + 8, 32, 0) + (l4len >> 16) + (l4len & 0xffff) + v->proto;
	else
		ph = frag_sum16(ip + 12, 8, 0) + l4len + v->proto;
	put_be16(l4 + pos, 0);
	put_be16(l4 + pos, frag_fold(frag_sum16(l4, l4len, ph)));
	if (v->proto == 17 && !get_be16(l4 + pos))
		put_be16(l4 + pos, 0xffff);
}

/* Room for a frame of @len bytes at the arena's end; NULL when it is full. */
struct frame *frag_add(struct work *w, struct queue *q, uint32_t len)
{
	struct frame *f;

	if (q->n == FRAG_FRAMES_MAX || len > w->cap - w->used)
		return NULL;
	f = &q->f[q->n++];
	f->off = (uint32_t)w->used;
	f->len = len;
	w->used += len;
	return f;
}

/* Frame @f appended to @q as it is (a rule that leaves it alone). */
int frag_keep(struct work *w, struct queue *q, const struct frame *f)
{
	(void)w;
	if (q->n == FRAG_FRAMES_MAX)
		return -ENOSPC;
	q->f[q->n++] = *f;
	return 0;
}

/* The smallest first fragment: the transport header whole, so filters see it. */
static uint32_t frag_first(const uint8_t *l4, uint32_t l4len, uint8_t proto, uint32_t size)
{
	uint32_t min = 0, n;

	if (proto == 1 || proto == 58 || proto == 17)
		min = 8;
	else if (proto == 6 && l4len >= TCP_MIN)
		min = (l4[12] >> 4) * 4u;
	n = size > min ? size : min;
	return (n + 7) & ~7u;
}

/*
 * One fragment of @v (in @f) into the next queue: @n1 bytes from @s1 then
 * @n2 from @s2, at payload byte offset @fo, @mf its More Fragments.
 */
static int put_frag(struct work *w, const struct frame *f, const struct ipv *v, const uint8_t *s1,
		    uint32_t n1, const uint8_t *s2, uint32_t n2, uint32_t fo, bool mf,
		    uint32_t ident)
{
	uint32_t hdr = w->l3off + v->hl + (v->v6 ? FRAG6_BYTES : 0), n = n1 + n2;
	struct frame *o = frag_add(w, &w->b, hdr + n);
	uint8_t *p, *ip;

	if (!o)
		return -ENOSPC;
	p = frag_at(w, o);
	ip = p + w->l3off;
	memcpy(p, frag_at(w, f), w->l3off + v->hl);
	memcpy(p + hdr, s1, n1);
	if (n2)
		memcpy(p + hdr + n1, s2, n2);
	if (v->v6) {
		uint8_t *fh = ip + IP6_BYTES;

		fh[0] = v->proto;
		fh[1] = 0;
		put_be16(fh + 2, fo | (mf ? 1u : 0u));
		put_be32(fh + 4, ident);
		ip[6] = 44;
		put_be16(ip + 4, FRAG6_BYTES + n);
	} else {
		/* fragroute writes the offset whole: DF is cleared, as a fragment's must be. */
		put_be16(ip + 6, fo / 8u | (mf ? IP4_MF : 0u));
		put_be16(ip + 2, v->hl + n);
		frag_ip4_csum(ip, v->hl);
	}
	return 0;
}

/*
 * ip_frag: each IP packet's payload cut into fragments of the rule's size
 * (the first holding the transport header whole, so that filters see it).
 * With an overlap, a piece at an odd multiple of 8 bytes with two more
 * after it goes twice: the next piece's place first, random bytes (new) or
 * the true ones (old), then a fragment over both, true bytes then random
 * (old) or true (new): a host that favours the old or the new bytes
 * reassembles the true datagram, one that favours the other does not.
 */
static int ip_frag(struct work *w, const struct frag_rule *r, const struct frame *f, uint8_t *junk,
		   uint32_t ident)
{
	uint32_t fl, p, pay;
	const uint8_t *src;
	struct ipv v;
	int rc = 0;

	/* A fragment is not cut again: its offsets are its datagram's. */
	if (!frag_ip_view(w, f, &v) || v.frag)
		return frag_keep(w, &w->b, f);
	src = frag_at(w, f) + w->l3off + v.hl;
	pay = v.end - w->l3off - v.hl;
	fl = frag_first(src, pay, v.proto, r->n);
	if (pay < fl)
		return frag_keep(w, &w->b, f);
	for (p = 0; p < pay && !rc;) {
		if (r->kind != FRAG_OVERLAP_NONE && (p / 8) % 2 && p + 2 * fl < pay) {
			bool old = r->kind == FRAG_OVERLAP_OLD;

			for (uint32_t i = 0; i < fl; i++)
				junk[i] = (uint8_t)frag_rnd(w->rng);
			rc = put_frag(w, f, &v, old ? src + p + fl : junk, fl, NULL, 0, p + fl, true,
				      ident);
			if (!rc)
				rc = put_frag(w, f, &v, src + p, fl, old ? junk : src + p + fl, fl, p,
					      true, ident);
			p += 2 * fl;
		} else {
			rc = put_frag(w, f, &v, src + p, fl, NULL, 0, p, p + fl < pay, ident);
			p += fl;
		}
		fl = pay - p > r->n ? r->n : pay - p;
	}
	return rc;
}

/* One TCP segment of @f into the next queue: @n1 bytes from @s1, @n2 from @s2, sequence @seq. */
static int put_seg(struct work *w, const struct frame *f, const struct ipv *v, uint32_t thl,
		   const uint8_t *s1, uint32_t n1, const uint8_t *s2, uint32_t n2, uint32_t seq)
{
	uint32_t hdr = w->l3off + v->hl + thl, n = n1 + n2;
	struct frame *o = frag_add(w, &w->b, hdr + n);
	uint8_t *p, *ip;

	if (!o)
		return -ENOSPC;
	p = frag_at(w, o);
	ip = p + w->l3off;
	memcpy(p, frag_at(w, f), hdr);
	memcpy(p + hdr, s1, n1);
	if (n2)
		memcpy(p + hdr + n1, s2, n2);
	put_be32(ip + v->hl + 4, seq);
	if (v->v6) {
		put_be16(ip + 4, thl + n);
	} else {
		put_be16(ip + 2, v->hl + thl + n);
		/* fragroute gives each segment a random IP ID. */
		put_be16(ip + 4, (uint32_t)frag_rnd(w->rng));
	}
	frag_csum(w, o, &(struct ipv){ .v6 = v->v6, .hl = v->hl, .end = hdr + n, .proto = 6 });
	return 0;
}

/*
 * tcp_seg: the payload of each TCP packet with ACK set cut into segments
 * of the rule's size, every header copied (flags too); with an overlap,
 * each segment that has two more after it goes first as random bytes
 * (new) or the next segment's (old) one size ahead, then over both.
 */
static int tcp_seg(struct work *w, const struct frag_rule *r, const struct frame *f, uint8_t *junk)
{
	uint32_t thl, pay, p, len, seq;
	const uint8_t *src, *th;
	struct ipv v;
	int rc = 0;

	if (!frag_ip_view(w, f, &v) || v.proto != 6 || v.frag || v.end - w->l3off - v.hl < TCP_MIN)
		return frag_keep(w, &w->b, f);
	th = frag_at(w, f) + w->l3off + v.hl;
	thl = (th[12] >> 4) * 4u;
	if (thl < TCP_MIN || thl > v.end - w->l3off - v.hl || !(th[13] & TCP_ACK))
		return frag_keep(w, &w->b, f);
	pay = v.end - w->l3off - v.hl - thl;
	if (pay <= r->n)
		return frag_keep(w, &w->b, f);
	src = th + thl;
	seq = get_be32(th + 4);
	for (p = 0; p < pay && !rc; p += len) {
		len = pay - p < r->n ? pay - p : r->n;
		if (r->kind != FRAG_OVERLAP_NONE && p + 2 * len < pay) {
			bool old = r->kind == FRAG_OVERLAP_OLD;

			for (uint32_t i = 0; i < len; i++)
				junk[i] = (uint8_t)frag_rnd(w->rng);
			rc = put_seg(w, f, &v, thl, old ? src + p + len : junk, len, NULL, 0,
				     seq + len);
			if (!rc)
				rc = put_seg(w, f, &v, thl, src + p, len, old ? junk : src + p + len, len,
					     seq);
			p += len;
			seq += len;
		} else {
			rc = put_seg(w, f, &v, thl, src + p, len, NULL, 0, seq);
		}
		seq += len;
	}
	return rc;
}

/* ip_ttl, ip_tos, ip6_qos: a header field of each packet set in place. */
static void set_field(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	uint8_t *ip = frag_at(w, f) + w->l3off;
	struct ipv v;

	if (!frag_ip_view(w, f, &v))
		return;
	if (r->mod == FRAG_IP_TTL) {
		if (v.v6)
			ip[7] = (uint8_t)r->n;
		else
			ip[8] = (uint8_t)r->n;
	} else if (r->mod == FRAG_IP_TOS) {
		if (v.v6)
			return;
		ip[1] = (uint8_t)r->n;
	} else if (v.v6 && (r->n || r->n2)) {
		/* ip6_qos: a class and label of 0 and 0 leave the packet alone, as fragroute's. */
		put_be32(ip, 6u << 28 | r->n << 20 | r->n2);
	}
	if (!v.v6)
		frag_ip4_csum(ip, v.hl);
}

/* Which frame of @q a delay, drop or dup rule picks. */
static unsigned pick(struct work *w, const struct queue *q, uint8_t which)
{
	if (which == FRAG_FIRST)
		return 0;
	if (which == FRAG_LAST)
		return q->n - 1;
	return (unsigned)(frag_rnd(w->rng) % q->n);
}

/* drop and dup: whether the rule acts on this queue, at its probability (fragroute's test). */
static bool chance(struct work *w, uint32_t pct)
{
	return pct >= 100 || frag_rnd(w->rng) % 100 <= pct;
}

/* One rule over the queue: each frame into the next queue, or the queue reordered. */
static int rule(struct work *w, const struct frag_rule *r, uint8_t *junk, uint32_t ident)
{
	struct queue *q = &w->a;
	unsigned i, k;
	int rc = 0;

	switch (r->mod) {
	case FRAG_IP_FRAG:
	case FRAG_TCP_SEG:
		w->b.n = 0;
		for (i = 0; i < q->n && !rc; i++)
			rc = r->mod == FRAG_IP_FRAG ? ip_frag(w, r, &q->f[i], junk, ident)
						    : tcp_seg(w, r, &q->f[i], junk);
		w->a = w->b;
		return rc;
	case FRAG_IP_OPT:
	case FRAG_TCP_OPT:
	case FRAG_IP6_OPT:
	case FRAG_IP_CHAFF:
	case FRAG_TCP_CHAFF:
		/* Each frame built anew: a dup's two entries share their bytes. */
		w->b.n = 0;
		for (i = 0; i < q->n && !rc; i++)
			rc = r->mod == FRAG_IP_CHAFF || r->mod == FRAG_TCP_CHAFF ? frag_chaff(w, r, &q->f[i])
										 : frag_opt(w, r, &q->f[i]);
		w->a = w->b;
		return rc;
	case FRAG_IP_TTL:
	case FRAG_IP_TOS:
	case FRAG_IP6_QOS:
		for (i = 0; i < q->n; i++)
			set_field(w, r, &q->f[i]);
		return 0;
	case FRAG_ORDER:
		for (i = 0; r->kind == FRAG_ORDER_REVERSE && i < q->n / 2; i++) {
			struct frame t = q->f[i];

			q->f[i] = q->f[q->n - 1 - i];
			q->f[q->n - 1 - i] = t;
		}
		/* Fisher-Yates (Knuth, TAOCP vol. 2, 3.4.2, algorithm P). */
		for (i = q->n; r->kind == FRAG_ORDER_RANDOM && i > 1; i--) {
			struct frame t;

			k = (unsigned)(frag_rnd(w->rng) % i);
			t = q->f[i - 1];
			q->f[i - 1] = q->f[k];
			q->f[k] = t;
		}
		return 0;
	case FRAG_DROP:
		if (!q->n || !chance(w, r->n))
			return 0;
		k = pick(w, q, r->kind);
		memmove(&q->f[k], &q->f[k + 1], (q->n - k - 1) * sizeof(q->f[0]));
		q->n--;
		return 0;
	case FRAG_DUP:
		if (!q->n || !chance(w, r->n))
			return 0;
		if (q->n == FRAG_FRAMES_MAX)
			return -ENOSPC;
		k = pick(w, q, r->kind);
		memmove(&q->f[k + 1], &q->f[k], (q->n - k) * sizeof(q->f[0]));
		q->n++;
		return 0;
	case FRAG_DELAY:
		/* tcprewrite writes each frame with its packet's time: a delay moves none. */
		if (q->n && r->kind == FRAG_RANDOM)
			(void)frag_rnd(w->rng);
		return 0;
	default:
		return -ENOTSUP;
	}
}

int frag_rules_applied(const struct frag_rules *rules, char *err, size_t errlen)
{
	for (unsigned i = 0; i < rules->n; i++) {
		const struct frag_rule *r = &rules->r[i];
		const char *why = NULL;

		switch (r->mod) {
		case FRAG_ECHO:
		case FRAG_PRINT:
			why = "it prints for each packet, and the send path never prints";
			break;
		default:
			break;
		}
		if (why) {
			snprintf(err, errlen, "line %u: %s: %s", r->line, frag_mod_name(r->mod),
				 why);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* The IP header's place in Ethernet frame @f: after up to two VLAN tags; 0 when not IP. */
static uint32_t l3_at(const uint8_t *f, uint32_t len)
{
	uint32_t off = ETH_BYTES;
	uint16_t type;
	int tags = 0;

	if (len < ETH_BYTES)
		return 0;
	type = get_be16(f + 12);
	while ((type == 0x8100 || type == 0x88a8) && tags++ < 2) {
		if (len < off + 4)
			return 0;
		type = get_be16(f + off + 2);
		off += 4;
	}
	return type == 0x0800 || type == 0x86dd ? off : 0;
}

int frag_apply(const struct frag_rules *rules, const uint8_t *f, uint32_t len, uint64_t *rng,
	       struct frag_out *out)
{
	static _Thread_local uint8_t junk[65536];
	static _Thread_local struct work w;
	uint32_t ident;
	struct frame *first;
	struct ipv v;
	int rc = 0;

	w.buf = out->buf;
	w.cap = out->cap;
	w.used = 0;
	w.rng = rng;
	w.a.n = w.b.n = 0;
	out->n = 0;
	if (!(w.l3off = l3_at(f, len)))
		return -EPROTONOSUPPORT;
	if (!(first = frag_add(&w, &w.a, len)))
		return -ENOSPC;
	memcpy(frag_at(&w, first), f, len);
	if (!frag_ip_view(&w, first, &v))
		return -EINVAL;
	/* Bytes after the IP packet (Ethernet padding) are not fragroute's: they go. */
	first->len = v.end;
	w.used = v.end;
	frag_csum(&w, first, &v);
	/* One IPv6 Fragment header identification per packet, as fragroute's. */
	ident = (uint32_t)frag_rnd(rng);
	for (unsigned i = 0; i < rules->n && !rc; i++)
		rc = rule(&w, &rules->r[i], junk, ident);
	if (rc)
		return rc;
	for (unsigned i = 0; i < w.a.n; i++) {
		out->off[i] = w.a.f[i].off;
		out->len[i] = w.a.f[i].len;
	}
	out->n = w.a.n;
	return (int)out->n;
}
