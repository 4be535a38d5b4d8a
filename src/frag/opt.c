// SPDX-License-Identifier: BSD-2-Clause
/*
 * fragroute's option modules (replay/frag.h, frag_int.h): ip_opt adds an
 * IPv4 option, tcp_opt a TCP option, ip6_opt an IPv6 extension header to
 * every packet of the queue it fits.  IPv4 and TCP options go after the
 * header's own, NOPs before them up to a 4-byte boundary, as libdnet's
 * ip_add_option() puts them (fragroute's); the checksums are made right
 * after, as fragroute's ip_checksum() does, but for ip6_opt, which
 * fragroute leaves as they were.  Each frame is built anew at the arena's
 * end: frames dup made share their bytes.
 */
#include <errno.h>
#include <string.h>

#include "replay/pkt.h"

#include "frag_int.h"

#define IPOPT_NOP 1u
#define IPOPT_LSRR 0x83u /* RFC 791: copied, class 0, number 3 */
#define IPOPT_SSRR 0x89u /* copied, class 0, number 9 */
#define TCPOPT_MSS 2u
#define TCPOPT_WSCALE 3u
#define IP6_ROUTING 43u
#define IP_TOT_MAX 65535u

/* The option's bytes for ip_opt or tcp_opt @r into @o (at least 44 bytes); their number. */
static uint32_t opt_bytes(const struct frag_rule *r, uint8_t *o)
{
	switch (r->kind) {
	case FRAG_OPT_LSRR:
	case FRAG_OPT_SSRR:
		o[0] = r->kind == FRAG_OPT_LSRR ? IPOPT_LSRR : IPOPT_SSRR;
		o[1] = (uint8_t)(3 + r->len);
		o[2] = (uint8_t)r->n;
		memcpy(o + 3, r->data, r->len);
		return 3u + r->len;
	case FRAG_OPT_MSS:
		o[0] = TCPOPT_MSS;
		o[1] = 4;
		put_be16(o + 2, r->n);
		return 4;
	case FRAG_OPT_WSCALE:
		/* RFC 7323 section 2.2's 3 bytes: fragroute writes a length of 4, which stacks ignore. */
		o[0] = TCPOPT_WSCALE;
		o[1] = 3;
		o[2] = (uint8_t)r->n;
		return 3;
	default:
		memcpy(o, r->data, r->len);
		return r->len;
	}
}

/*
 * Frame @f with @n bytes from @ins put in at byte @pos (from the frame's
 * start), @pad NOPs before them, into the next queue; the new frame, or
 * NULL when the arena or the queue is full.
 */
static struct frame *with_bytes(struct work *w, const struct frame *f, uint32_t end, uint32_t pos,
				const uint8_t *ins, uint32_t n, uint32_t pad)
{
	struct frame *o = frag_add(w, &w->b, end + pad + n);
	uint8_t *p;

	if (!o)
		return NULL;
	p = frag_at(w, o);
	memcpy(p, frag_at(w, f), pos);
	memset(p + pos, IPOPT_NOP, pad);
	memcpy(p + pos + pad, ins, n);
	memcpy(p + pos + pad + n, frag_at(w, f) + pos, end - pos);
	return o;
}

/* ip_opt: an IPv4 option after the header's own, where the header has room (60 bytes). */
static int ip_opt(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	uint32_t n, pad, tot;
	struct frame *o;
	uint8_t opt[48], *ip;
	struct ipv v;

	if (!frag_ip_view(w, f, &v) || v.v6)
		return frag_keep(w, &w->b, f);
	n = opt_bytes(r, opt);
	pad = (4 - n % 4) % 4;
	tot = v.end - w->l3off;
	if (v.hl + pad + n > IP4_HL_MAX || tot + pad + n > IP_TOT_MAX)
		return frag_keep(w, &w->b, f);
	o = with_bytes(w, f, v.end, w->l3off + v.hl, opt, n, pad);
	if (!o)
		return -ENOSPC;
	ip = frag_at(w, o) + w->l3off;
	ip[0] = (uint8_t)(0x40 | (v.hl + pad + n) / 4);
	put_be16(ip + 2, tot + pad + n);
	v.hl += pad + n;
	v.end += pad + n;
	frag_csum(w, o, &v);
	return 0;
}

/*
 * tcp_opt: a TCP option after the segment's own, where its header has
 * room (60 bytes); TCP right after the IP header (IPv4, or IPv6 with no
 * extension header), not a fragment.
 */
static int tcp_opt(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	uint32_t n, pad, thl, l4len;
	uint8_t opt[48], *ip, *th;
	struct frame *o;
	struct ipv v;

	if (!frag_ip_view(w, f, &v) || v.proto != 6 || v.frag)
		return frag_keep(w, &w->b, f);
	l4len = v.end - w->l3off - v.hl;
	th = frag_at(w, f) + w->l3off + v.hl;
	if (l4len < TCP_MIN)
		return frag_keep(w, &w->b, f);
	thl = (th[12] >> 4) * 4u;
	n = opt_bytes(r, opt);
	pad = (4 - n % 4) % 4;
	if (thl < TCP_MIN || thl > l4len || thl + pad + n > TCP_HL_MAX ||
	    v.end - w->l3off + pad + n > IP_TOT_MAX + (v.v6 ? IP6_BYTES : 0))
		return frag_keep(w, &w->b, f);
	o = with_bytes(w, f, v.end, w->l3off + v.hl + thl, opt, n, pad);
	if (!o)
		return -ENOSPC;
	ip = frag_at(w, o) + w->l3off;
	th = ip + v.hl;
	th[12] = (uint8_t)(((thl + pad + n) / 4) << 4 | (th[12] & 15u));
	v.end += pad + n;
	put_be16(ip + (v.v6 ? 4 : 2), v.end - w->l3off - (v.v6 ? IP6_BYTES : 0));
	frag_csum(w, o, &v);
	return 0;
}

/*
 * ip6_opt: an extension header right after the IPv6 header, its Next
 * Header the packet's: a Routing header of type 0 with the rule's
 * addresses and Segments Left their number, or the rule's raw bytes with
 * their protocol in the IPv6 header.  The checksums stay as they were, as
 * fragroute leaves them.
 */
static int ip6_opt(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	uint8_t ext[FRAG_DATA_MAX + 8], *ip;
	uint32_t n, plen;
	struct frame *o;
	struct ipv v;

	if (!frag_ip_view(w, f, &v) || !v.v6)
		return frag_keep(w, &w->b, f);
	ip = frag_at(w, f) + w->l3off;
	memset(ext, 0, 8);
	ext[0] = ip[6];
	if (r->kind == FRAG_OPT_ROUTE) {
		n = 8 + r->len;
		ext[1] = (uint8_t)(r->len / 8);
		ext[3] = (uint8_t)r->n; /* Segments Left; type 0 and the reserved bytes stay 0 */
		memcpy(ext + 8, r->data, r->len);
	} else {
		n = 2 + r->len;
		ext[1] = (uint8_t)(n / 8 - 1);
		memcpy(ext + 2, r->data, r->len);
	}
	plen = v.end - w->l3off - IP6_BYTES;
	if (plen + n > IP_TOT_MAX)
		return frag_keep(w, &w->b, f);
	o = with_bytes(w, f, v.end, w->l3off + IP6_BYTES, ext, n, 0);
	if (!o)
		return -ENOSPC;
	ip = frag_at(w, o) + w->l3off;
	ip[6] = r->kind == FRAG_OPT_ROUTE ? IP6_ROUTING : (uint8_t)r->n;
	put_be16(ip + 4, plen + n);
	return 0;
}

int frag_opt(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	switch (r->mod) {
	case FRAG_IP_OPT:
		return ip_opt(w, r, f);
	case FRAG_TCP_OPT:
		return tcp_opt(w, r, f);
	default:
		return ip6_opt(w, r, f);
	}
}
