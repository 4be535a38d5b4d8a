// SPDX-License-Identifier: BSD-2-Clause
/*
 * Software segmentation (TCP) and fragmentation (everything else over IP)
 * of a frame longer than the wire takes: the contract is
 * include/replay/segment.h.  A frame is first read into a plan -- where
 * its IP packet starts and ends, the headers every frame repeats, the
 * payload each carries -- and then cut by it; the rate's byte count comes
 * from the same plan.  Called by the run's lanes; pure, so fuzzed alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "replay/pkt.h"
#include "replay/segment.h"

#define ETH_BYTES 14u
#define IP4_MIN 20u
#define IP6_BYTES 40u
#define TCP_MIN 20u
#define UDP_BYTES 8u
#define FRAG6_BYTES 8u

#define IP4_DF 0x4000u
#define IP4_MF 0x2000u
#define IP4_OFF_MASK 0x1fffu

#define TCP_FIN 0x01u
#define TCP_PSH 0x08u
#define TCP_CWR 0x80u

enum cut { CUT_TCP, CUT_FRAG4, CUT_FRAG6 };

/* How one frame is cut: every offset is from the frame's start. */
struct plan {
	enum cut cut;
	uint32_t l3off;   /* the IP header: after the Ethernet header and its tags */
	uint32_t l3len;   /* the IP packet's bytes, as its length field or the frame says */
	uint32_t hdr;     /* bytes from l3off every frame repeats (IP, extensions, TCP header) */
	uint32_t l4off;   /* the TCP or UDP header; 0 when neither is at hand */
	uint32_t nhpos;   /* IPv6: the Next Header byte that becomes 44 */
	uint8_t proto;    /* the upper-layer protocol */
	uint32_t chunk;   /* payload bytes per frame (the last takes the rest) */
	uint32_t frag0;   /* IPv4: the packet's own fragment offset, bytes */
	bool mf;          /* IPv4: the packet's own MF (a fragment cut again keeps it on its last) */
	uint32_t n;       /* frames */
};

/* The one's-complement sum of @n bytes at @p added to @sum (RFC 1071), not folded. */
static uint64_t sum16(const uint8_t *p, size_t n, uint64_t sum)
{
	for (; n > 1; p += 2, n -= 2)
		sum += get_be16(p);
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The pseudo-header's sum (RFC 793 for IPv4, RFC 8200 section 8.1 for IPv6) of IP header @ip. */
static uint64_t pseudo(const uint8_t *ip, bool v6, uint8_t proto, uint32_t l4len)
{
	if (v6)
		return sum16(ip + 8, 32, 0) + (l4len >> 16) + (l4len & 0xffff) + proto;
	return sum16(ip + 12, 8, 0) + l4len + proto;
}

/* The transport checksum of the @l4len bytes at @l4 under IP header @ip, its field at @l4 + @at. */
static void l4_csum(const uint8_t *ip, bool v6, uint8_t proto, uint8_t *l4, uint32_t l4len, unsigned at)
{
	uint16_t c;

	put_be16(l4 + at, 0);
	c = fold(sum16(l4, l4len, pseudo(ip, v6, proto, l4len)));
	/* UDP sends a computed 0 as 0xffff: 0 means "no checksum" (RFC 768). */
	if (proto == 17 && c == 0)
		c = 0xffff;
	put_be16(l4 + at, c);
}

static void ip4_csum(uint8_t *ip, uint32_t ihl)
{
	put_be16(ip + 10, 0);
	put_be16(ip + 10, fold(sum16(ip, ihl, 0)));
}

/* The IP packet's length: its field, unless 0 or past the frame (GRO, TSO): then the frame's. */
static uint32_t ip_len(uint32_t field, uint32_t hdr, uint32_t have)
{
	return field < hdr || field > have ? have : field;
}

/* Frames of at most @per payload bytes each for @payload bytes. */
static uint32_t frames(uint32_t payload, uint32_t per)
{
	return (payload + per - 1) / per;
}

static int plan_ip4(const uint8_t *f, uint32_t len, uint32_t mtu, struct plan *pl)
{
	const uint8_t *ip = f + pl->l3off;
	uint32_t ihl, fo;

	if (len - pl->l3off < IP4_MIN || ip[0] >> 4 != 4 || (ihl = (ip[0] & 15u) * 4u) < IP4_MIN ||
	    ihl > len - pl->l3off)
		return -EINVAL;
	pl->l3len = ip_len(get_be16(ip + 2), ihl, len - pl->l3off);
	if (pl->l3len <= mtu)
		return 0;
	pl->proto = ip[9];
	fo = get_be16(ip + 6);
	if (pl->proto == 6 && !(fo & (IP4_MF | IP4_OFF_MASK))) {
		uint32_t thl;

		pl->l4off = pl->l3off + ihl;
		if (pl->l3len - ihl < TCP_MIN || (thl = (f[pl->l4off + 12] >> 4) * 4u) < TCP_MIN ||
		    thl > pl->l3len - ihl)
			return -EINVAL;
		pl->cut = CUT_TCP;
		pl->hdr = ihl + thl;
		if (mtu <= pl->hdr)
			return -E2BIG;
		pl->chunk = mtu - pl->hdr;
	} else {
		if (fo & IP4_DF)
			return -EMSGSIZE;
		pl->cut = CUT_FRAG4;
		pl->hdr = ihl;
		pl->frag0 = (fo & IP4_OFF_MASK) * 8u;
		pl->mf = fo & IP4_MF;
		if (pl->proto == 17 && !pl->frag0 && !pl->mf && pl->l3len - ihl >= UDP_BYTES)
			pl->l4off = pl->l3off + ihl;
		if (mtu < ihl + 8)
			return -E2BIG;
		pl->chunk = (mtu - ihl) & ~7u;
		if (pl->frag0 + pl->l3len - ihl > 0xffffu)
			return -EINVAL; /* past the last offset a fragment can name */
	}
	pl->n = frames(pl->l3len - pl->hdr, pl->chunk);
	return 1;
}

/* The extension headers RFC 8200 section 4 lists, with their lengths. */
static bool ext6(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 60 || nh == 51 || nh == 135 || nh == 139 || nh == 140;
}

static int plan_ip6(const uint8_t *f, uint32_t len, uint32_t mtu, struct plan *pl)
{
	const uint8_t *ip = f + pl->l3off;
	uint32_t off = IP6_BYTES, unfrag = IP6_BYTES, pl_len;
	uint8_t nh;

	if (len - pl->l3off < IP6_BYTES || ip[0] >> 4 != 6)
		return -EINVAL;
	pl_len = get_be16(ip + 4);
	pl->l3len = pl_len ? ip_len(pl_len + IP6_BYTES, IP6_BYTES, len - pl->l3off) : len - pl->l3off;
	if (pl->l3len <= mtu)
		return 0;
	nh = ip[6];
	pl->nhpos = pl->l3off + 6;
	while (ext6(nh)) {
		uint32_t hl;

		if (pl->l3len - off < 8)
			return -EINVAL;
		hl = nh == 51 ? (ip[off + 1] + 2u) * 4u : (ip[off + 1] + 1u) * 8u;
		if (hl > pl->l3len - off)
			return -EINVAL;
		/* A Destination Options header before the Routing header stays with it (section 4.1). */
		if (nh == 0 || nh == 43) {
			unfrag = off + hl;
			pl->nhpos = pl->l3off + off;
		}
		nh = ip[off];
		off += hl;
	}
	if (nh == 44)
		return -ENOTSUP;
	pl->proto = nh;
	if (nh == 6) {
		uint32_t thl;

		pl->l4off = pl->l3off + off;
		if (pl->l3len - off < TCP_MIN || (thl = (f[pl->l4off + 12] >> 4) * 4u) < TCP_MIN ||
		    thl > pl->l3len - off)
			return -EINVAL;
		pl->cut = CUT_TCP;
		pl->hdr = off + thl;
		if (mtu <= pl->hdr)
			return -E2BIG;
		pl->chunk = mtu - pl->hdr;
	} else {
		pl->cut = CUT_FRAG6;
		pl->hdr = unfrag;
		if (nh == 17 && pl->l3len - off >= UDP_BYTES)
			pl->l4off = pl->l3off + off;
		if (mtu < unfrag + FRAG6_BYTES + 8)
			return -E2BIG;
		pl->chunk = (mtu - unfrag - FRAG6_BYTES) & ~7u;
		if (pl->l3len - unfrag > 0xffffu)
			return -EINVAL; /* past the last offset a fragment can name */
	}
	pl->n = frames(pl->l3len - pl->hdr, pl->chunk);
	return 1;
}

/* The plan for @f: 1 to cut, 0 when its IP packet fits @mtu, or -errno. */
static int plan(const uint8_t *f, uint32_t len, uint32_t mtu, struct plan *pl)
{
	uint16_t type;
	int tags = 0;

	*pl = (struct plan){ .l3off = ETH_BYTES };
	if (len < ETH_BYTES)
		return -EPROTONOSUPPORT;
	type = get_be16(f + 12);
	while ((type == 0x8100 || type == 0x88a8) && tags++ < 2) {
		if (len < pl->l3off + 4)
			return -EPROTONOSUPPORT;
		type = get_be16(f + pl->l3off + 2);
		pl->l3off += 4;
	}
	if (type != 0x0800 && type != 0x86dd)
		return -EPROTONOSUPPORT;
	if (len - pl->l3off <= mtu)
		return 0;
	if (mtu < SEGMENT_MTU_MIN)
		return -E2BIG;
	return type == 0x0800 ? plan_ip4(f, len, mtu, pl) : plan_ip6(f, len, mtu, pl);
}

/* Before cutting, a whole UDP datagram's length and checksum (unless IPv4's "none") are made right. */
static void udp_fix(const uint8_t *f, const struct plan *pl, uint8_t *work)
{
	const uint8_t *ip = f + pl->l3off;
	uint32_t l4len = pl->l3len - (pl->l4off - pl->l3off);
	bool v6 = pl->cut == CUT_FRAG6;
	uint64_t sum;
	uint16_t c;

	if (!v6 && !get_be16(f + pl->l4off + 6))
		return;
	/* The datagram is summed in place from @f; only the header is written, into @work. */
	memcpy(work, f + pl->l4off, UDP_BYTES);
	put_be16(work + 4, l4len);
	put_be16(work + 6, 0);
	sum = pseudo(ip, v6, 17, l4len) + sum16(work, UDP_BYTES, 0) +
	      sum16(f + pl->l4off + UDP_BYTES, l4len - UDP_BYTES, 0);
	c = fold(sum);
	put_be16(work + 6, c ? c : 0xffff);
}

/* TCP segment @i of @pl into @o (the frame's bytes), its payload from @f. */
static uint32_t cut_tcp(const uint8_t *f, const struct plan *pl, uint32_t i, uint8_t *o)
{
	uint32_t ihl = pl->l4off - pl->l3off, thl = pl->hdr - ihl;
	uint32_t at = i * pl->chunk, n = pl->l3len - pl->hdr - at;
	bool v6 = f[pl->l3off] >> 4 == 6;
	uint8_t *ip = o + pl->l3off, *th = o + pl->l4off;

	if (n > pl->chunk)
		n = pl->chunk;
	memcpy(o, f, pl->l3off + pl->hdr);
	memcpy(o + pl->l3off + pl->hdr, f + pl->l3off + pl->hdr + at, n);
	put_be32(th + 4, get_be32(th + 4) + at);
	if (i + 1 < pl->n)
		th[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (i)
		th[13] &= (uint8_t)~TCP_CWR;
	if (v6) {
		put_be16(ip + 4, pl->hdr + n - IP6_BYTES);
	} else {
		put_be16(ip + 2, pl->hdr + n);
		put_be16(ip + 4, get_be16(ip + 4) + i);
		ip4_csum(ip, ihl);
	}
	l4_csum(ip, v6, 6, th, thl + n, 16);
	return pl->l3off + pl->hdr + n;
}

/* Options not to be copied into later fragments become NOPs, keeping the header's length (RFC 791). */
static void ip4_later_options(uint8_t *ip, uint32_t ihl)
{
	for (uint32_t k = IP4_MIN; k < ihl;) {
		uint32_t ol;

		if (ip[k] == 0)
			break;
		if (ip[k] == 1) {
			k++;
			continue;
		}
		ol = k + 1 < ihl ? ip[k + 1] : 1;
		if (ol < 2 || ol > ihl - k)
			ol = ihl - k;
		if (!(ip[k] & 0x80))
			memset(ip + k, 1, ol);
		k += ol;
	}
}

/* IPv4 fragment @i of @pl into @o, the datagram's bytes from @f (its UDP header from @udp). */
static uint32_t cut_frag4(const uint8_t *f, const struct plan *pl, uint32_t i, const uint8_t *udp,
			  uint8_t *o)
{
	uint32_t at = i * pl->chunk, n = pl->l3len - pl->hdr - at, fo;
	uint8_t *ip = o + pl->l3off;

	if (n > pl->chunk)
		n = pl->chunk;
	memcpy(o, f, pl->l3off + pl->hdr);
	memcpy(ip + pl->hdr, f + pl->l3off + pl->hdr + at, n);
	if (udp && !at)
		memcpy(ip + pl->hdr, udp, UDP_BYTES);
	if (i)
		ip4_later_options(ip, pl->hdr);
	fo = (get_be16(ip + 6) & IP4_DF) | ((pl->frag0 + at) / 8u);
	if (i + 1 < pl->n || pl->mf)
		fo |= IP4_MF;
	put_be16(ip + 6, fo);
	put_be16(ip + 2, pl->hdr + n);
	ip4_csum(ip, pl->hdr);
	return pl->l3off + pl->hdr + n;
}

/* IPv6 fragment @i of @pl into @o, with Fragment header identification @id. */
static uint32_t cut_frag6(const uint8_t *f, const struct plan *pl, uint32_t i, const uint8_t *udp,
			  uint32_t id, uint8_t *o)
{
	uint32_t at = i * pl->chunk, n = pl->l3len - pl->hdr - at;
	uint8_t *ip = o + pl->l3off, *fh = ip + pl->hdr;

	if (n > pl->chunk)
		n = pl->chunk;
	memcpy(o, f, pl->l3off + pl->hdr);
	fh[0] = f[pl->nhpos];
	fh[1] = 0;
	put_be16(fh + 2, at | (i + 1 < pl->n ? 1u : 0u));
	put_be32(fh + 4, id);
	memcpy(fh + FRAG6_BYTES, f + pl->l3off + pl->hdr + at, n);
	if (udp && !at)
		memcpy(fh + FRAG6_BYTES + (pl->l4off - pl->l3off - pl->hdr), udp, UDP_BYTES);
	o[pl->nhpos] = 44;
	put_be16(ip + 4, pl->hdr - IP6_BYTES + FRAG6_BYTES + n);
	return pl->l3off + pl->hdr + FRAG6_BYTES + n;
}

/* Bytes of frame @i of @pl: Ethernet, the repeated headers, a Fragment header, its payload. */
static uint32_t frame_bytes(const struct plan *pl, uint32_t i)
{
	uint32_t n = pl->l3len - pl->hdr - i * pl->chunk;

	return pl->l3off + pl->hdr + (pl->cut == CUT_FRAG6 ? FRAG6_BYTES : 0) +
	       (n > pl->chunk ? pl->chunk : n);
}

int segment_frame(const uint8_t *f, uint32_t len, uint32_t mtu, struct segment_out *out)
{
	uint8_t udp[UDP_BYTES];
	const uint8_t *u = NULL;
	struct plan pl;
	size_t used = 0;
	int rc = plan(f, len, mtu, &pl);

	if (rc <= 0)
		return rc;
	if (pl.n > out->max || pl.n > SEGMENT_FRAMES_MAX)
		return -ENOSPC;
	for (uint32_t i = 0; i < pl.n; i++)
		used += frame_bytes(&pl, i);
	if (used > out->cap)
		return -ENOSPC;
	/* The UDP header must fit the first fragment whole for its length and checksum to be set. */
	if (pl.cut != CUT_TCP && pl.l4off && pl.l4off + UDP_BYTES <= pl.l3off + pl.hdr + pl.chunk) {
		udp_fix(f, &pl, udp);
		u = udp;
	}
	used = 0;
	for (uint32_t i = 0; i < pl.n; i++) {
		uint8_t *o = out->buf + used;

		if (pl.cut == CUT_TCP)
			out->len[i] = cut_tcp(f, &pl, i, o);
		else if (pl.cut == CUT_FRAG4)
			out->len[i] = cut_frag4(f, &pl, i, u, o);
		else
			out->len[i] = cut_frag6(f, &pl, i, u, out->frag_id, o);
		used += out->len[i];
	}
	if (pl.cut == CUT_FRAG6)
		out->frag_id++;
	return (int)pl.n;
}

uint64_t segment_wire_bytes(const uint8_t *f, uint32_t len, uint32_t mtu)
{
	struct plan pl;
	uint64_t n = 0;

	if (plan(f, len, mtu, &pl) <= 0 || pl.n > SEGMENT_FRAMES_MAX)
		return len;
	for (uint32_t i = 0; i < pl.n; i++)
		n += frame_bytes(&pl, i);
	return n;
}

int segment_vnet(const uint8_t *f, uint32_t len, uint32_t mtu, struct virtio_net_hdr *h, uint32_t *wire)
{
	struct plan pl;
	bool v6;
	int rc;

	*h = (struct virtio_net_hdr){ 0 };
	*wire = len;
	rc = plan(f, len, mtu, &pl);
	if (rc <= 0)
		return rc;
	if (pl.cut != CUT_TCP || pl.l3off != ETH_BYTES)
		return -ENOPROTOOPT;
	if (pl.n > SEGMENT_FRAMES_MAX)
		return -ENOSPC; /* as segment_frame(): the soft path's bound holds for both */
	v6 = f[pl.l3off] >> 4 == 6;
	/* A GRO frame past what the length field can name (BIG TCP) is cut here. */
	if (pl.l3len - (v6 ? IP6_BYTES : 0) > 0xffffu)
		return -ENOPROTOOPT;
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->gso_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
	if (f[pl.l4off + 13] & TCP_CWR)
		h->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	h->hdr_len = (uint16_t)(pl.l3off + pl.hdr);
	h->gso_size = (uint16_t)pl.chunk;
	h->csum_start = (uint16_t)pl.l4off;
	h->csum_offset = 16;
	*wire = pl.l3off + pl.l3len;
	return (int)pl.n;
}

void segment_vnet_fix(uint8_t *f, uint32_t wire, const struct virtio_net_hdr *h)
{
	uint8_t *ip = f + ETH_BYTES, *th = f + h->csum_start;
	uint32_t l3len = wire - ETH_BYTES, l4len = wire - h->csum_start;
	bool v6 = ip[0] >> 4 == 6;
	uint64_t s;

	if (v6) {
		put_be16(ip + 4, l3len - IP6_BYTES);
	} else {
		put_be16(ip + 2, l3len);
		ip4_csum(ip, h->csum_start - ETH_BYTES);
	}
	/* CHECKSUM_PARTIAL's convention: the folded pseudo-header sum, not complemented. */
	s = pseudo(ip, v6, 6, l4len);
	put_be16(th + 16, (uint16_t)~fold(s));
}

const char *segment_strerror(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT:
		return "not IPv4 or IPv6: only IP packets are segmented or fragmented";
	case -EMSGSIZE:
		return "IPv4 DF (don't fragment) set on a packet that is not TCP: not fragmented";
	case -ENOTSUP:
		return "an IPv6 fragment is not fragmented again (RFC 8200 section 4.5)";
	case -E2BIG:
		return "its headers alone do not fit the MTU";
	case -EINVAL:
		return "its IP or TCP header is malformed";
	case -ENOSPC:
		return "it would take more frames than segmentation makes of one";
	default:
		return "it cannot be segmented";
	}
}
