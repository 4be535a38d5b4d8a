// SPDX-License-Identifier: BSD-2-Clause
/*
 * gentrace - write the small synthetic traces that replay's tests and benchmarks use.
 *
 * It writes classic pcap itself so that it builds anywhere with nothing but libc and so that
 * every byte is under our control: the malformed files in particular are things libpcap would
 * refuse to write. Output is deterministic: timestamps start at a fixed instant and nothing is
 * random, so the same command always writes the same bytes and golden files stay stable.
 *
 * Build: cc -std=gnu11 -Wall -Wextra -O2 -o gentrace scripts/gentrace.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NSEC_PER_SEC	1000000000ull
#define NSEC_PER_MSEC	1000000ull
#define NSEC_PER_USEC	1000ull
#define BASE_TS_NS	(1704067200ull * NSEC_PER_SEC) /* 2024-01-01T00:00:00Z */
#define FRAME_MAX	65535  /* largest frame we build, and the snaplen we write */
#define REC_MAX		262144 /* libpcap's MAXIMUM_SNAPLEN: a bigger record is corruption */
#define MAGIC_USEC	0xa1b2c3d4u
#define MAGIC_NSEC	0xa1b23c4du
#define ETH_HLEN	14
#define UDP_MIN_FRAME	50 /* Ethernet + IPv4 + UDP + the 8-byte sequence number */
#define EXIT_USAGE	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum { ETH_P_IP = 0x0800, ETH_P_ARP = 0x0806, ETH_P_8021Q = 0x8100, ETH_P_8021AD = 0x88a8,
       ETH_P_IPV6 = 0x86dd, ETH_P_LLDP = 0x88cc };

static void errmsg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void errmsg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gentrace: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_err(const char *what, const char *why)
{
	errmsg(what, "%s (see gentrace --help)", why);
	return EXIT_USAGE;
}

/* Network headers are big-endian; pcap fields are in whichever order the file uses. */
static void put_n(uint8_t *p, uint32_t v, int n, bool be)
{
	for (int i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_n(const uint8_t *p, int n, bool be)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint32_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

static void put16(uint8_t *p, uint32_t v)
{
	put_n(p, v, 2, true);
}

static void put32(uint8_t *p, uint32_t v)
{
	put_n(p, v, 4, true);
}

/* ---- pcap writer ---------------------------------------------------------------------- */

struct pcap_hdr {
	uint16_t major, minor;
	int32_t thiszone;  /* seconds east of UTC; 0 in practice */
	uint32_t sigfigs;
	uint32_t snaplen;  /* bytes */
	uint32_t linktype; /* LINKTYPE_*, FCS bits in the top nibble */
};

static const struct pcap_hdr default_hdr = {2, 4, 0, 0, FRAME_MAX, 1 /* Ethernet */};

struct pcap_w {
	FILE *f;
	bool be;   /* fields big-endian */
	bool nsec; /* ns magic: the fraction field holds ns instead of us */
};

static int w_raw(struct pcap_w *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return errno ? -errno : -EIO;
	return 0;
}

/* Flushing is where a full disk shows up, so close reports it rather than dropping it. */
static int w_close(struct pcap_w *w)
{
	int err = w->f && fclose(w->f) ? -errno : 0;

	w->f = NULL;
	return err;
}

static int w_filehdr(struct pcap_w *w, const struct pcap_hdr *h)
{
	uint8_t b[24];

	put_n(b, w->nsec ? MAGIC_NSEC : MAGIC_USEC, 4, w->be);
	put_n(b + 4, h->major, 2, w->be);
	put_n(b + 6, h->minor, 2, w->be);
	put_n(b + 8, (uint32_t)h->thiszone, 4, w->be);
	put_n(b + 12, h->sigfigs, 4, w->be);
	put_n(b + 16, h->snaplen, 4, w->be);
	put_n(b + 20, h->linktype, 4, w->be);
	return w_raw(w, b, sizeof(b));
}

/* ns to us truncates, as libpcap does when it reads a ns file at us precision. */
static int w_packet(struct pcap_w *w, uint64_t ts_ns, const uint8_t *p, uint32_t caplen,
		    uint32_t wirelen)
{
	uint64_t frac_ns = ts_ns % NSEC_PER_SEC;
	uint8_t b[16];
	int err;

	put_n(b, (uint32_t)(ts_ns / NSEC_PER_SEC), 4, w->be);
	put_n(b + 4, (uint32_t)(w->nsec ? frac_ns : frac_ns / NSEC_PER_USEC), 4, w->be);
	put_n(b + 8, caplen, 4, w->be);
	put_n(b + 12, wirelen, 4, w->be);
	err = w_raw(w, b, sizeof(b));
	return err ? err : w_raw(w, p, caplen);
}

/* ---- frame builder --------------------------------------------------------------------- */

struct host {
	uint8_t mac[6];
	uint8_t ip4[4];
	uint8_t ip6[16];
};

struct l2 {
	unsigned ntags;	  /* 0, 1 or 2 */
	uint16_t tpid[2]; /* outer first */
	uint16_t tci[2];  /* PCP << 13 | DEI << 12 | VID */
};

#define TAG1(pcp, dei, vid) {1, {ETH_P_8021Q}, {(pcp) << 13 | (dei) << 12 | (vid)}}
#define TAG2(tpid, pcp, vid, pcp2, vid2) \
	{2, {(tpid), ETH_P_8021Q}, {(pcp) << 13 | (vid), (pcp2) << 13 | (vid2)}}

/* One flat description of an IP frame; zero fields take the usual defaults. */
struct spec {
	const struct l2 *l2; /* NULL: untagged */
	const struct host *src, *dst;
	uint8_t af;	      /* 4 or 6 */
	uint8_t proto;	      /* transport: TCP, UDP, ICMP or ICMPv6 */
	uint8_t ttl;	      /* 0: 64 */
	uint8_t tos;	      /* DSCP << 2 | ECN; traffic class for IPv6 */
	uint16_t ipid;
	const uint8_t *ipopt; /* IPv4 options, padded to a multiple of 4 bytes */
	size_t ipopt_len;
	uint8_t ext_nh;	    /* IPv6: type of the first extension header */
	const uint8_t *ext; /* IPv6 extension chain; the last one's next header is proto */
	size_t ext_len;
	uint16_t sport, dport;
	uint32_t seq, ack; /* TCP */
	uint8_t flags;	   /* TCP */
	uint16_t win;	   /* TCP; 0: 64240 */
	const uint8_t *tcpopt;
	size_t tcpopt_len;
	uint8_t type, code;  /* ICMP, ICMPv6 */
	uint32_t rest;	     /* ICMP: the word after the checksum (id and sequence, flags) */
	const void *payload; /* NULL: payload_len zero bytes */
	size_t payload_len;
};

struct frame {
	uint8_t b[FRAME_MAX];
	size_t len; /* bytes */
	size_t l3;  /* offset of the IP header */
	size_t l4;  /* offset of the transport header */
};

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (; n > 1; p += 2, n -= 2)
		sum += get_n(p, 2, true);
	return n ? sum + ((uint32_t)p[0] << 8) : sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void ip4_csum(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, csum_fold(csum_add(0, ip, (size_t)(ip[0] & 0xf) * 4)));
}

/* Ethernet header and VLAN tags; returns the offset of what follows the type. */
static size_t put_l2(uint8_t *b, const uint8_t *dmac, const uint8_t *smac, const struct l2 *l2,
		     uint16_t type)
{
	size_t n = 12;

	memcpy(b, dmac, 6);
	memcpy(b + 6, smac, 6);
	for (unsigned i = 0; l2 && i < l2->ntags; i++, n += 4) {
		put16(b + n, l2->tpid[i]);
		put16(b + n + 2, l2->tci[i]);
	}
	put16(b + n, type);
	return n + 2;
}

/*
 * Fill in IP lengths and all checksums. The transport checksum covers the whole datagram, so
 * this runs before fragment_split(). The IPv6 pseudo-header takes the header's destination:
 * it is the final one because our routing headers have Segments Left 0 (RFC 8200 8.1).
 */
static void finish(struct frame *fr, uint8_t af, uint8_t proto)
{
	uint8_t *ip = fr->b + fr->l3, *l4 = fr->b + fr->l4, ph[4];
	size_t l4_len = fr->len - fr->l4;
	int ck = proto == IPPROTO_TCP ? 16 : proto == IPPROTO_UDP ? 6 : 2;
	uint32_t sum;

	if (af == 4) {
		put16(ip + 2, (uint32_t)(fr->len - fr->l3));
		ip4_csum(ip);
		sum = csum_add(0, ip + 12, 8);
	} else {
		put16(ip + 4, (uint32_t)(fr->len - fr->l3 - 40));
		sum = csum_add(0, ip + 8, 32);
	}
	put32(ph, (uint32_t)l4_len);
	sum = csum_add(sum, ph, 4) + proto;
	if (proto == IPPROTO_UDP)
		put16(l4 + 4, (uint32_t)l4_len);
	if (proto == IPPROTO_ICMP)
		sum = 0; /* ICMPv4 alone has no pseudo-header */
	put16(l4 + ck, 0);
	sum = csum_fold(csum_add(sum, l4, l4_len));
	/* RFC 768: a computed zero goes out as all ones, since zero means "no checksum" */
	put16(l4 + ck, proto == IPPROTO_UDP && sum == 0 ? 0xffff : sum);
}

static int build(struct frame *fr, const struct spec *s)
{
	size_t l2_len = ETH_HLEN + (s->l2 ? 4 * s->l2->ntags : 0);
	size_t l3_len = s->af == 4 ? 20 + s->ipopt_len : 40 + s->ext_len;
	size_t l4_len = s->proto == IPPROTO_TCP ? 20 + s->tcpopt_len : 8;
	uint8_t *ip, *l4;

	if (l2_len + l3_len + l4_len + s->payload_len > FRAME_MAX)
		return -EMSGSIZE;
	memset(fr->b, 0, l2_len + l3_len + l4_len);
	fr->l3 = put_l2(fr->b, s->dst->mac, s->src->mac, s->l2, s->af == 4 ? ETH_P_IP : ETH_P_IPV6);
	fr->l4 = fr->l3 + l3_len;
	fr->len = fr->l4 + l4_len + s->payload_len;
	ip = fr->b + fr->l3;
	l4 = fr->b + fr->l4;
	if (s->af == 4) {
		ip[0] = 0x40 | (uint8_t)(l3_len / 4);
		ip[1] = s->tos;
		put16(ip + 4, s->ipid);
		put16(ip + 6, 0x4000); /* DF, as Linux sets on all but fragments */
		ip[8] = s->ttl ? s->ttl : 64;
		ip[9] = s->proto;
		memcpy(ip + 12, s->src->ip4, 4);
		memcpy(ip + 16, s->dst->ip4, 4);
		if (s->ipopt_len) /* memcpy from NULL is undefined even for 0 bytes */
			memcpy(ip + 20, s->ipopt, s->ipopt_len);
	} else {
		put32(ip, 6u << 28 | (uint32_t)s->tos << 20);
		ip[6] = s->ext_len ? s->ext_nh : s->proto;
		ip[7] = s->ttl ? s->ttl : 64;
		memcpy(ip + 8, s->src->ip6, 16);
		memcpy(ip + 24, s->dst->ip6, 16);
		if (s->ext_len)
			memcpy(ip + 40, s->ext, s->ext_len);
	}
	if (s->proto == IPPROTO_TCP || s->proto == IPPROTO_UDP) {
		put16(l4, s->sport);
		put16(l4 + 2, s->dport);
	} else {
		l4[0] = s->type;
		l4[1] = s->code;
		put32(l4 + 4, s->rest);
	}
	if (s->proto == IPPROTO_TCP) {
		put32(l4 + 4, s->seq);
		put32(l4 + 8, s->ack);
		l4[12] = (uint8_t)(l4_len / 4) << 4;
		l4[13] = s->flags;
		put16(l4 + 14, s->win ? s->win : 64240);
		if (s->tcpopt_len)
			memcpy(l4 + 20, s->tcpopt, s->tcpopt_len);
	}
	if (s->payload)
		memcpy(l4 + l4_len, s->payload, s->payload_len);
	else
		memset(l4 + l4_len, 0, s->payload_len);
	finish(fr, s->af, s->proto);
	return 0;
}

/*
 * Split a finished datagram in two, the first fragment carrying @at bytes (a multiple of 8)
 * of the fragmentable part. IPv4 trades DF for MF; IPv6 gains a Fragment header right after
 * the fixed header, so @full must have no extension headers.
 */
static void fragment_split(const struct frame *full, size_t at, uint32_t id, struct frame out[2])
{
	bool v4 = full->b[full->l3] >> 4 == 4;
	size_t hdr = full->l4 + (v4 ? 0 : 8), rest = full->len - full->l4;

	for (int i = 0; i < 2; i++) {
		struct frame *f = &out[i];
		size_t off = i ? at : 0, n = i ? rest - at : at;
		uint8_t *ip = f->b + full->l3;

		memcpy(f->b, full->b, full->l4);
		memcpy(f->b + hdr, full->b + full->l4 + off, n);
		f->l3 = full->l3;
		f->l4 = hdr;
		f->len = hdr + n;
		if (v4) {
			put16(ip + 2, (uint32_t)(f->len - f->l3));
			put16(ip + 4, id);
			put16(ip + 6, (uint32_t)((i ? 0 : 0x2000) | off / 8));
			ip4_csum(ip);
		} else {
			ip[40] = ip[6];
			ip[41] = 0;
			put16(ip + 42, (uint32_t)(off | (i ? 0 : 1))); /* offset << 3 | M */
			put32(ip + 44, id);
			ip[6] = IPPROTO_FRAGMENT;
			put16(ip + 4, (uint32_t)(f->len - f->l3 - 40));
		}
	}
}

static void build_arp(struct frame *fr, const struct l2 *l2, bool reply, const struct host *s,
		      const struct host *t)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, zero[6];
	uint8_t *a;

	fr->l3 = put_l2(fr->b, reply ? t->mac : bcast, s->mac, l2, ETH_P_ARP);
	a = fr->b + fr->l3;
	put32(a, 1u << 16 | ETH_P_IP); /* Ethernet, IPv4 */
	put32(a + 4, 6u << 24 | 4u << 16 | (reply ? 2 : 1));
	memcpy(a + 8, s->mac, 6);
	memcpy(a + 14, s->ip4, 4);
	memcpy(a + 18, reply ? t->mac : zero, 6);
	memcpy(a + 24, t->ip4, 4);
	fr->len = fr->l3 + 28;
}

/* The benchmark frame; usage() states the layout receivers rely on. */
static int build_bench(struct frame *fr, uint64_t seq, uint32_t flow, size_t size_bytes)
{
	static const struct host dst = {.mac = {0x02, 0, 0, 0, 0, 0x02}, .ip4 = {198, 19, 0, 1}};
	struct host src = {.mac = {0x02, 0, 0, 0, 0, 0x01}};
	size_t plen = size_bytes - ETH_HLEN - 20 - 8;
	struct spec s = {.af = 4, .proto = IPPROTO_UDP, .src = &src, .dst = &dst,
			 .ipid = (uint16_t)seq, .sport = (uint16_t)(1024 + flow), .dport = 9,
			 .payload_len = plen};
	uint8_t *p;
	int err;

	put32(src.ip4, (198u << 24 | 18u << 16) + 1 + flow); /* 198.18.0.0/15, RFC 2544 */
	err = build(fr, &s);
	if (err)
		return err;
	p = fr->b + fr->l4 + 8;
	put32(p, (uint32_t)(seq >> 32));
	put32(p + 4, (uint32_t)seq);
	if (plen >= 12)
		put32(p + 8, flow);
	for (size_t i = 12; i < plen; i++)
		p[i] = (uint8_t)(i - 12);
	finish(fr, 4, IPPROTO_UDP);
	return 0;
}

/* ---- generators ----------------------------------------------------------------------- */

struct opts {
	const char *out;
	const char *args[2]; /* positional arguments after the subcommand */
	int nargs;
	int nsec, be; /* -1: not given */
	uint64_t count, size_bytes, gap_ns, flows;
	bool gap_set;
};

struct gen {
	struct pcap_w w;
	const struct opts *o;
	uint64_t ts_ns;		 /* timestamp of the next frame */
	const uint64_t *gaps_ns; /* gap after each frame, cycled */
	size_t ngaps, gi;
	int err;	       /* first error; later emits do nothing, so callers need not check */
	uint8_t pattern[2048]; /* payload for the big datagrams */
	struct frame fr, frag[2];
};

static void emit_frame(struct gen *g, const struct frame *fr, uint32_t caplen)
{
	if (g->err)
		return;
	g->err = w_packet(&g->w, g->ts_ns, fr->b, caplen, (uint32_t)fr->len);
	g->ts_ns += g->gaps_ns[g->gi++ % g->ngaps];
}

static void emit(struct gen *g, const struct spec *s)
{
	int err = build(&g->fr, s);

	g->err = g->err ? g->err : err;
	emit_frame(g, &g->fr, (uint32_t)g->fr.len);
}

static void emit_fragmented(struct gen *g, const struct spec *s, size_t at, uint32_t id)
{
	int err = build(&g->fr, s);

	g->err = g->err ? g->err : err;
	if (g->err)
		return; /* g->fr may be stale: splitting it could run past its end */
	fragment_split(&g->fr, at, id, g->frag);
	emit_frame(g, &g->frag[0], (uint32_t)g->frag[0].len);
	emit_frame(g, &g->frag[1], (uint32_t)g->frag[1].len);
}

static void emit_arp(struct gen *g, const struct l2 *l2, const struct host *a,
		     const struct host *b)
{
	build_arp(&g->fr, l2, false, a, b);
	emit_frame(g, &g->fr, (uint32_t)g->fr.len);
	build_arp(&g->fr, l2, true, b, a);
	emit_frame(g, &g->fr, (uint32_t)g->fr.len);
}

/* A request and its answer: swapped addresses and ports, an echo request becomes a reply. */
static void emit_pair(struct gen *g, const struct spec *req, const void *resp, size_t resp_len)
{
	struct spec r = *req;

	emit(g, req);
	r.src = req->dst, r.dst = req->src;
	r.sport = req->dport, r.dport = req->sport;
	if (req->proto == IPPROTO_ICMP || req->proto == IPPROTO_ICMPV6)
		r.type = req->proto == IPPROTO_ICMP ? 0 : 129;
	r.payload = resp, r.payload_len = resp_len;
	emit(g, &r);
}

static void emit_seg(struct gen *g, struct spec *s, uint32_t seq, uint32_t ack, uint8_t flags,
		     const char *data)
{
	s->seq = seq, s->ack = ack, s->flags = flags;
	s->payload = data, s->payload_len = data ? strlen(data) : 0;
	emit(g, s);
}

/* Handshake, one request, one response, a FIN each way and the last ACK: 8 frames. */
static void emit_tcp(struct gen *g, const struct l2 *l2, uint8_t af, const struct host *c,
		     const struct host *s, uint16_t cport, const char *req, const char *resp)
{
	/* MSS, SACK permitted, timestamps, NOP, window scale 7: what Linux puts on a SYN */
	uint8_t copt[20] = {2, 4, 0, 0, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7}, sopt[20];
	uint32_t c0 = 0x10000000u + cport, s0 = 0x20000000u + cport;
	uint32_t q = (uint32_t)strlen(req), r = (uint32_t)strlen(resp);
	struct spec cs = {.l2 = l2, .af = af, .proto = IPPROTO_TCP, .src = c, .dst = s,
			  .sport = cport, .dport = 80, .tcpopt = copt, .tcpopt_len = sizeof(copt)};
	struct spec sc = cs;

	put16(copt + 2, af == 4 ? 1460 : 1440);
	memcpy(sopt, copt, sizeof(sopt));
	put32(sopt + 8, 2);  /* TSval */
	put32(sopt + 12, 1); /* TSecr: the client's TSval */
	sc.src = s, sc.dst = c, sc.sport = 80, sc.dport = cport, sc.tcpopt = sopt, sc.win = 65160;
	emit_seg(g, &cs, c0, 0, TH_SYN, NULL);
	emit_seg(g, &sc, s0, c0 + 1, TH_SYN | TH_ACK, NULL);
	/* past the handshake: no options, and windows as Linux sends them, scaled by 128 */
	cs.tcpopt_len = sc.tcpopt_len = 0;
	cs.win = 502, sc.win = 509;
	emit_seg(g, &cs, c0 + 1, s0 + 1, TH_ACK, NULL);
	emit_seg(g, &cs, c0 + 1, s0 + 1, TH_PUSH | TH_ACK, req);
	emit_seg(g, &sc, s0 + 1, c0 + 1 + q, TH_PUSH | TH_ACK, resp);
	emit_seg(g, &cs, c0 + 1 + q, s0 + 1 + r, TH_FIN | TH_ACK, NULL);
	emit_seg(g, &sc, s0 + 1 + r, c0 + 2 + q, TH_FIN | TH_ACK, NULL);
	emit_seg(g, &cs, c0 + 2 + q, s0 + 2 + r, TH_ACK, NULL);
}

/* Documentation addresses (RFC 5737, RFC 3849) and locally administered MACs. */
static const struct host host_a = {
	{0x02, 0, 0, 0, 0, 0x0a}, {192, 0, 2, 10}, {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a}};
static const struct host host_b = {
	{0x02, 0, 0, 0, 0, 0x0b}, {192, 0, 2, 11}, {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0b}};

static const char http_req[] = "GET /index.html HTTP/1.1\r\nHost: www.example.com\r\n"
			       "User-Agent: gentrace\r\nAccept: */*\r\n\r\n";
static const char http_resp[] = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
				"Content-Length: 43\r\n\r\n"
				"<html><body>replay test page</body></html>\n";
/* DNS: example.com A? and the answer 192.0.2.1, TTL 3600 */
static const uint8_t dns_q[] = {0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'e', 'x', 'a',
				'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
static const uint8_t dns_r[] = {0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 7, 'e', 'x',
				'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1, 0xc0,
				0x0c, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 192, 0, 2, 1};
static const char ping_data[] = "abcdefghijklmnopqrstuvwabcdefghi"; /* as Windows ping */
#define PING_LEN	(sizeof(ping_data) - 1)

/* udp: the benchmark stream; see usage(). */
static void gen_udp(struct gen *g)
{
	for (uint64_t i = 0; !g->err && i < g->o->count; i++) {
		g->err = build_bench(&g->fr, i, (uint32_t)(i % g->o->flows), g->o->size_bytes);
		emit_frame(g, &g->fr, (uint32_t)g->fr.len);
	}
}

/* Swap n bytes at a and b. */
static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/*
 * pingpong: the benchmark stream as request and reply: even frames go client ->
 * server as in udp, odd ones are the reply (MACs, addresses and ports swapped;
 * the sums do not change), flow f = (seq / 2) % F.  For two-interface replay.
 */
static void gen_pingpong(struct gen *g)
{
	for (uint64_t i = 0; !g->err && i < g->o->count; i++) {
		g->err = build_bench(&g->fr, i, (uint32_t)(i / 2 % g->o->flows), g->o->size_bytes);
		if (!g->err && (i & 1)) {
			swap_bytes(g->fr.b, g->fr.b + 6, 6);
			swap_bytes(g->fr.b + g->fr.l3 + 12, g->fr.b + g->fr.l3 + 16, 4);
			swap_bytes(g->fr.b + g->fr.l4, g->fr.b + g->fr.l4 + 2, 2);
		}
		emit_frame(g, &g->fr, (uint32_t)g->fr.len);
	}
}

/* vlan: TCP, UDP, ICMP, ARP and IPv6 under 802.1Q, 802.1ad and double 802.1Q: 40 frames. */
static void gen_vlan(struct gen *g)
{
	static const struct l2 v10 = TAG1(0, 0, 10), v20 = TAG1(5, 0, 20), v30 = TAG1(7, 1, 30);
	static const struct l2 v100 = TAG1(3, 0, 100), v200 = TAG1(1, 0, 200);
	static const struct l2 prio = TAG1(6, 0, 0); /* VID 0: priority tag only (802.1p) */
	static const struct l2 v4094 = TAG1(0, 0, 4094);
	static const struct l2 qinq10 = TAG2(ETH_P_8021AD, 2, 1000, 0, 10);
	static const struct l2 qinq20 = TAG2(ETH_P_8021AD, 2, 1000, 4, 20);
	static const struct l2 dbl = TAG2(ETH_P_8021Q, 0, 300, 0, 30); /* pre-802.1ad stacking */
	struct spec udp = {.af = 4, .proto = IPPROTO_UDP, .src = &host_a, .dst = &host_b,
			   .sport = 40000, .dport = 53, .payload = dns_q, .payload_len = sizeof(dns_q)};
	struct spec icmp = {.af = 4, .proto = IPPROTO_ICMP, .src = &host_a, .dst = &host_b,
			    .type = 8, .rest = 0x00010001, .payload = ping_data,
			    .payload_len = PING_LEN};
	struct spec udp6 = udp;

	udp6.af = 6;
	emit_tcp(g, &v10, 4, &host_a, &host_b, 40001, http_req, http_resp);
	udp.l2 = &v20;
	emit_pair(g, &udp, dns_r, sizeof(dns_r));
	icmp.l2 = &v30;
	emit_pair(g, &icmp, ping_data, PING_LEN);
	emit_arp(g, &v100, &host_a, &host_b);
	udp6.l2 = &v200;
	emit_pair(g, &udp6, dns_r, sizeof(dns_r));
	icmp.l2 = &prio, icmp.rest = 0x00010002;
	emit_pair(g, &icmp, ping_data, PING_LEN);
	udp.l2 = &v4094, udp.sport = 40002;
	emit(g, &udp);
	/* 2008 bytes of UDP: 1480 in the first fragment, 528 in the second */
	udp.l2 = &v20, udp.sport = 40003, udp.dport = 9, udp.payload = g->pattern;
	udp.payload_len = 2000;
	emit_fragmented(g, &udp, 1480, 0x4242);

	emit_tcp(g, &qinq10, 4, &host_a, &host_b, 40004, http_req, http_resp);
	udp.l2 = &qinq20, udp.sport = 40005, udp.dport = 53, udp.payload = dns_q;
	udp.payload_len = sizeof(dns_q);
	emit_pair(g, &udp, dns_r, sizeof(dns_r));
	icmp.l2 = &qinq20, icmp.rest = 0x00010003;
	emit_pair(g, &icmp, ping_data, PING_LEN);
	emit_arp(g, &qinq20, &host_a, &host_b);
	udp6.l2 = &qinq20, udp6.sport = 40006;
	emit_pair(g, &udp6, dns_r, sizeof(dns_r));
	udp.l2 = &dbl, udp.sport = 40007;
	emit_pair(g, &udp, dns_r, sizeof(dns_r));
	icmp.af = 6, icmp.proto = IPPROTO_ICMPV6, icmp.type = 128;
	emit(g, &icmp);
}

/* Frames with no IP: LLDP (IEEE 802.1AB) and an 802.3 length-typed frame (an STP BPDU). */
static void emit_non_ip(struct gen *g)
{
	static const uint8_t lldp_mac[6] = {0x01, 0x80, 0xc2, 0, 0, 0x0e};
	static const uint8_t stp_mac[6] = {0x01, 0x80, 0xc2, 0, 0, 0};
	static const uint8_t lldp[] = {
		0x02, 0x07, 4, 0x02, 0, 0, 0, 0, 0x0a,		    /* chassis ID: MAC */
		0x04, 0x05, 5, 'e', 't', 'h', '0',		    /* port ID: ifname */
		0x06, 0x02, 0, 120,				    /* TTL 120 s */
		0x0a, 0x08, 'g', 'e', 'n', 't', 'r', 'a', 'c', 'e', /* system name */
		0x00, 0x00,					    /* end */
	};
	static const uint8_t bpdu[] = {
		0x42, 0x42, 0x03,		 /* LLC: STP SAPs, UI */
		0, 0, 0, 0, 0,			 /* protocol, version, config BPDU, flags */
		0x80, 0, 2, 0, 0, 0, 0, 0x0a,	 /* root: priority 32768, host_a */
		0, 0, 0, 0,			 /* root path cost */
		0x80, 0, 2, 0, 0, 0, 0, 0x0a,	 /* bridge */
		0x80, 0x01,			 /* port */
		0, 0, 0x14, 0, 0x02, 0, 0x0f, 0, /* ages and timers, 1/256 s */
	};
	struct frame *fr = &g->fr;
	size_t n = put_l2(fr->b, lldp_mac, host_a.mac, NULL, ETH_P_LLDP);

	memcpy(fr->b + n, lldp, sizeof(lldp));
	fr->len = n + sizeof(lldp);
	emit_frame(g, fr, (uint32_t)fr->len);
	/* a type below 0x600 is a length (IEEE 802.3 3.2.6); pad to the 60-byte minimum */
	n = put_l2(fr->b, stp_mac, host_a.mac, NULL, sizeof(bpdu));
	memcpy(fr->b + n, bpdu, sizeof(bpdu));
	memset(fr->b + n + sizeof(bpdu), 0, 60 - n - sizeof(bpdu));
	fr->len = 60;
	emit_frame(g, fr, (uint32_t)fr->len);
}

static void emit_ipv6_mixed(struct gen *g)
{
	/* Router Alert (RFC 2711), as MLD needs, then PadN to 8 bytes */
	static const uint8_t hbh_mld[] = {IPPROTO_ICMPV6, 0, 5, 2, 0, 0, 1, 0};
	/* hop-by-hop, routing (SRH, RFC 8754, Segments Left 0), destination options, UDP */
	static const uint8_t chain[] = {
		IPPROTO_ROUTING, 0, 5, 2, 0, 0, 1, 0,
		IPPROTO_DSTOPTS, 2, 4, 0, 0, 0, 0, 0,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b,
		IPPROTO_UDP, 0, 1, 4, 0, 0, 0, 0,
	};
	/* host_a's link-local address; host_b's solicited-node group; all MLDv2 routers */
	static const struct host a_ll = {
		{0x02, 0, 0, 0, 0, 0x0a}, {0}, {0xfe, 0x80, [11] = 0xff, 0xfe, 0, 0, 0x0a}};
	static const struct host b_sn = {
		{0x33, 0x33, 0xff, 0, 0, 0x0b}, {0}, {0xff, 0x02, [11] = 1, 0xff, 0, 0, 0x0b}};
	static const struct host mld_routers = {
		{0x33, 0x33, 0, 0, 0, 0x16}, {0}, {0xff, 0x02, [15] = 0x16}};
	/* NS and NA for host_b with link-layer address options; an MLDv2 record joining b_sn */
	static const uint8_t ns[24] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0b, 1, 1, 2, [23] = 0x0a};
	static const uint8_t na[24] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0b, 2, 1, 2, [23] = 0x0b};
	static const uint8_t mld[20] = {4 /* CHANGE_TO_EXCLUDE */, [4] = 0xff, 0x02,
					[15] = 1, 0xff, 0, 0, 0x0b};
	struct spec s = {.af = 6, .proto = IPPROTO_ICMPV6, .src = &host_a, .dst = &b_sn,
			 .ttl = 255, .type = 135, .payload = ns, .payload_len = sizeof(ns)};

	emit(g, &s);
	s.src = &host_b, s.dst = &host_a, s.type = 136, s.rest = 0x60000000; /* S, O */
	s.payload = na;
	emit(g, &s);
	s = (struct spec){.af = 6, .proto = IPPROTO_ICMPV6, .src = &host_a, .dst = &host_b,
			  .type = 128, .rest = 0x00070001, .payload = ping_data,
			  .payload_len = PING_LEN};
	emit_pair(g, &s, ping_data, PING_LEN);
	s = (struct spec){.af = 6, .proto = IPPROTO_ICMPV6, .src = &a_ll, .dst = &mld_routers,
			  .ttl = 1, .type = 143, .rest = 1, .ext_nh = IPPROTO_HOPOPTS,
			  .ext = hbh_mld, .ext_len = sizeof(hbh_mld), .payload = mld,
			  .payload_len = sizeof(mld)};
	emit(g, &s);
	s = (struct spec){.af = 6, .proto = IPPROTO_UDP, .src = &host_a, .dst = &host_b,
			  .sport = 40010, .dport = 53, .ext_nh = IPPROTO_HOPOPTS, .ext = chain,
			  .ext_len = sizeof(chain), .payload = dns_q, .payload_len = sizeof(dns_q)};
	emit(g, &s);
	/* 1232 bytes: what fits in the IPv6 minimum MTU of 1280 */
	s.ext_len = 0, s.sport = 40011, s.dport = 9, s.payload = g->pattern, s.payload_len = 1600;
	emit_fragmented(g, &s, 1232, 0xcafe0001);
	emit_tcp(g, NULL, 6, &host_a, &host_b, 40012, http_req, http_resp);
}

/* mixed: everything else, untagged: 40 frames over about 3 s with irregular gaps. */
static void gen_mixed(struct gen *g)
{
	/* Record Route with room for two hops, one recorded; EOL pads to 12 bytes */
	static const uint8_t rr[12] = {7, 11, 8, 192, 0, 2, 10};
	static const uint8_t ra[4] = {148, 4, 0, 0}; /* Router Alert, RFC 2113 */
	static const struct host closed = {{0x02, 0, 0, 0, 0, 0x0b}, {192, 0, 2, 11}, {0}};
	struct spec s = {.af = 4, .proto = IPPROTO_UDP, .src = &host_a, .dst = &host_b,
			 .sport = 40020, .dport = 53, .payload = dns_q, .payload_len = sizeof(dns_q)};
	struct frame *fr = &g->fr;
	uint8_t quote[128];
	size_t quote_len;

	emit_arp(g, NULL, &host_a, &host_b);
	emit_tcp(g, NULL, 4, &host_a, &host_b, 40021, http_req, http_resp);
	emit_pair(g, &s, dns_r, sizeof(dns_r));
	/*
	 * UDP to a closed port, and the port unreachable quoting it. Linux quotes the whole
	 * datagram (up to 576 bytes in all, RFC 1812 4.3.2.3), so the inner checksum verifies.
	 */
	s.dst = &closed, s.sport = 40022, s.dport = 33434;
	emit(g, &s);
	quote_len = fr->len - fr->l3 < sizeof(quote) ? fr->len - fr->l3 : sizeof(quote);
	memcpy(quote, fr->b + fr->l3, quote_len);
	s = (struct spec){.af = 4, .proto = IPPROTO_ICMP, .src = &host_b, .dst = &host_a,
			  .type = 3, .code = 3, .tos = 0xc0, .payload = quote,
			  .payload_len = quote_len};
	emit(g, &s);
	s = (struct spec){.af = 4, .proto = IPPROTO_ICMP, .src = &host_a, .dst = &host_b,
			  .type = 8, .rest = 0x00050001, .payload = ping_data,
			  .payload_len = PING_LEN};
	emit_pair(g, &s, ping_data, PING_LEN);
	s.rest = 0x00050002, s.ipopt = rr, s.ipopt_len = sizeof(rr);
	emit_pair(g, &s, ping_data, PING_LEN);
	/* DSCP EF with ECT(0), Router Alert, TTL 1 */
	s = (struct spec){.af = 4, .proto = IPPROTO_UDP, .src = &host_a, .dst = &host_b,
			  .tos = 46 << 2 | 2, .ttl = 1, .ipopt = ra, .ipopt_len = sizeof(ra),
			  .sport = 40023, .dport = 5004, .payload = ping_data,
			  .payload_len = PING_LEN};
	emit(g, &s);
	s = (struct spec){.af = 4, .proto = IPPROTO_UDP, .src = &host_a, .dst = &host_b,
			  .sport = 40024, .dport = 9, .payload = g->pattern, .payload_len = 1960};
	emit_fragmented(g, &s, 1480, 0x0101);
	emit_ipv6_mixed(g);
	emit_non_ip(g);
	/* a 1000-byte segment captured with snaplen 96, as tcpdump -s 96 records it */
	s = (struct spec){.af = 4, .proto = IPPROTO_TCP, .src = &host_b, .dst = &host_a,
			  .sport = 80, .dport = 40025, .seq = 1, .ack = 1, .flags = TH_ACK,
			  .payload = g->pattern, .payload_len = 1000 - ETH_HLEN - 20 - 20};
	g->err = g->err ? g->err : build(fr, &s);
	emit_frame(g, fr, 96);
}

/* ---- command line --------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gentrace COMMAND [ARGS]\n"
		"Write deterministic classic pcap (Ethernet) traces for replay's tests.\n"
		"Timestamps start at 2024-01-01T00:00:00Z; the same command writes the same bytes.\n"
		"\n"
		"  udp -o OUT [--count N] [--size BYTES] [--gap-us US | --gap-ns NS] [--flows F]\n"
		"      N (default 1000) UDP/IPv4 frames of exactly BYTES (default 64, %d..%d),\n"
		"      the gap apart (default 1000 us), 02:00:00:00:00:01 -> 02:00:00:00:00:02,\n"
		"      (198.18.0.1 + f):(1024 + f) -> 198.19.0.1:9, flow f = seq %% F (default 1).\n"
		"      Payload: 64-bit big-endian sequence number from 0, then the 32-bit flow\n"
		"      number if it fits, then bytes counting up from 0. IP ID = seq %% 65536.\n"
		"  pingpong -o OUT [same options as udp]\n"
		"      the udp stream as request and reply: odd frames swap MACs, addresses and\n"
		"      ports (server -> client), flow f = (seq / 2) %% F; for two-interface runs.\n"
		"  vlan -o OUT      40 frames: 802.1Q, 802.1ad QinQ, double 802.1Q, priority tag;\n"
		"                   TCP, UDP, ICMP, ARP, IPv6 inside; an IPv4 fragment pair\n"
		"  mixed -o OUT     40 frames: TCP/UDP/ICMP/ARP/IPv6/ICMPv6, IPv4 options, IPv6\n"
		"                   extension headers and fragments, LLDP, 802.3/LLC, one frame\n"
		"                   captured at 96 of 1000 bytes; irregular gaps over ~3 s\n"
		"  convert IN OUT [--nsec|--usec] [--be|--le]\n"
		"      re-encode a classic pcap (any of the four magics), every record kept as it\n"
		"      is; unset choices keep the input's. ns -> us truncates to the microsecond.\n"
		"  malformed KIND -o OUT    write one broken file; 'malformed list' names the kinds\n"
		"\n"
		"udp, pingpong, vlan and mixed also take --nsec (magic 0xa1b23c4d) and --be (big-endian);\n"
		"the default is microseconds, little-endian, as tcpdump writes.\n"
		"Exit status: 0 done, 1 error, 2 usage error.\n",
		UDP_MIN_FRAME, FRAME_MAX);
}

enum { OPT_OUT = 256, OPT_NSEC, OPT_USEC, OPT_BE, OPT_LE, OPT_COUNT, OPT_SIZE, OPT_GAP_US,
       OPT_GAP_NS, OPT_FLOWS, OPT_HELP };
#define ALLOW(opt)	(1u << ((opt) - OPT_OUT))
#define ALLOW_FORMAT	(ALLOW(OPT_OUT) | ALLOW(OPT_NSEC) | ALLOW(OPT_BE))
#define ALLOW_UDP	(ALLOW_FORMAT | ALLOW(OPT_COUNT) | ALLOW(OPT_SIZE) | ALLOW(OPT_GAP_US) | \
			 ALLOW(OPT_GAP_NS) | ALLOW(OPT_FLOWS))
#define ALLOW_CONVERT	(ALLOW(OPT_NSEC) | ALLOW(OPT_USEC) | ALLOW(OPT_BE) | ALLOW(OPT_LE))

static const struct option long_opts[] = {
	{"output", required_argument, NULL, OPT_OUT}, {"nsec", no_argument, NULL, OPT_NSEC},
	{"usec", no_argument, NULL, OPT_USEC},	      {"be", no_argument, NULL, OPT_BE},
	{"le", no_argument, NULL, OPT_LE},	      {"count", required_argument, NULL, OPT_COUNT},
	{"size", required_argument, NULL, OPT_SIZE},  {"gap-us", required_argument, NULL, OPT_GAP_US},
	{"gap-ns", required_argument, NULL, OPT_GAP_NS},
	{"flows", required_argument, NULL, OPT_FLOWS},
	{"help", no_argument, NULL, OPT_HELP},	      {NULL, 0, NULL, 0},
};

/* Each command names the options it takes, so a misplaced one is an error, not ignored. */
static int parse_opts(int argc, char **argv, unsigned allowed, struct opts *o)
{
	const char *cmd = argv[0];
	unsigned long long v = 0;
	char *end;
	int c, i;

	*o = (struct opts){.nsec = -1, .be = -1, .count = 1000, .size_bytes = 64,
			   .gap_ns = NSEC_PER_MSEC, .flows = 1};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", long_opts, NULL)) != -1) {
		c = c == 'o' ? OPT_OUT : c == 'h' ? OPT_HELP : c;
		if (c == OPT_HELP) {
			usage(stdout);
			exit(0);
		}
		if (c == '?')
			return usage_err(cmd, "unknown option, or an option without its argument");
		if (!(allowed & ALLOW(c))) {
			for (i = 0; long_opts[i].val != c; i++)
				;
			errmsg(cmd, "--%s does not apply to this command", long_opts[i].name);
			return EXIT_USAGE;
		}
		if (c >= OPT_COUNT && c <= OPT_FLOWS) {
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno)
				return usage_err(cmd, "option needs a decimal number");
		}
		if (c == OPT_OUT)
			o->out = optarg;
		else if (c == OPT_NSEC || c == OPT_USEC)
			o->nsec = c == OPT_NSEC;
		else if (c == OPT_BE || c == OPT_LE)
			o->be = c == OPT_BE;
		else if (c == OPT_COUNT)
			o->count = v;
		else if (c == OPT_SIZE && (v < UDP_MIN_FRAME || v > FRAME_MAX))
			return usage_err(cmd, "--size out of range");
		else if (c == OPT_SIZE)
			o->size_bytes = v;
		else if (c == OPT_FLOWS && (v < 1 || v > 65535))
			return usage_err(cmd, "--flows must be 1..65535");
		else if (c == OPT_FLOWS)
			o->flows = v;
		else if (o->gap_set) /* what is left: --gap-us and --gap-ns */
			return usage_err(cmd, "give only one of --gap-us and --gap-ns");
		else if (v > UINT32_MAX * NSEC_PER_SEC / (c == OPT_GAP_US ? NSEC_PER_USEC : 1))
			return usage_err(cmd, "gap too large");
		else
			o->gap_ns = c == OPT_GAP_US ? v * NSEC_PER_USEC : v, o->gap_set = true;
	}
	for (; optind < argc; optind++) {
		if (o->nargs == 2)
			return usage_err(cmd, "too many arguments");
		o->args[o->nargs++] = argv[optind];
	}
	return 0;
}

static int open_out(struct pcap_w *w, const char *path, bool be, bool nsec)
{
	w->be = be;
	w->nsec = nsec;
	w->f = fopen(path, "wb");
	if (!w->f)
		errmsg(path, "%s", strerror(errno));
	return w->f ? 0 : -EIO;
}

/* Report a failure and remove the half-written file, unless it is a device (/dev/full). */
static int fail_out(const char *path, int err)
{
	struct stat st;

	if (err)
		errmsg(path, "%s", strerror(-err));
	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
	return 1;
}

static const uint64_t vlan_gaps_ns[] = {10 * NSEC_PER_MSEC};
/* irregular but fixed: equal stamps, microseconds, and pauses of a quarter second */
static const uint64_t mixed_gaps_ns[] = {0, 37000, 1200000, 250000000, 3000, 90000000,
					 240000000, 12000000};

static const struct generator {
	const char *name;
	void (*run)(struct gen *g);
	unsigned allowed;	 /* ALLOW() bits */
	const uint64_t *gaps_ns; /* NULL: --gap-us/--gap-ns */
	size_t ngaps;
} generators[] = {
	{"udp", gen_udp, ALLOW_UDP, NULL, 1},
	{"pingpong", gen_pingpong, ALLOW_UDP, NULL, 1},
	{"vlan", gen_vlan, ALLOW_FORMAT, vlan_gaps_ns, ARRAY_SIZE(vlan_gaps_ns)},
	{"mixed", gen_mixed, ALLOW_FORMAT, mixed_gaps_ns, ARRAY_SIZE(mixed_gaps_ns)},
};

static int cmd_generate(const struct generator *gn, int argc, char **argv)
{
	struct opts o;
	struct gen *g;
	int err, rc = parse_opts(argc, argv, gn->allowed, &o);

	if (rc)
		return rc;
	if (!o.out || o.nargs)
		return usage_err(gn->name, "needs -o OUT and no other arguments");
	/* a us file cannot hold a sub-microsecond gap exactly, and exactness is the point */
	if (o.nsec != 1 && o.gap_ns % NSEC_PER_USEC)
		return usage_err(gn->name, "--gap-ns not a whole microsecond needs --nsec");
	if (o.count && o.gap_ns > (UINT32_MAX * NSEC_PER_SEC - BASE_TS_NS) / o.count)
		return usage_err(gn->name, "--count times the gap overflows pcap's 32-bit seconds");
	g = calloc(1, sizeof(*g));
	if (!g) {
		errmsg(o.out, "%s", strerror(ENOMEM));
		return 1;
	}
	rc = 1;
	if (open_out(&g->w, o.out, o.be == 1, o.nsec == 1))
		goto out;
	g->o = &o;
	g->ts_ns = BASE_TS_NS;
	g->gaps_ns = gn->gaps_ns ? gn->gaps_ns : &o.gap_ns;
	g->ngaps = gn->ngaps;
	for (size_t i = 0; i < sizeof(g->pattern); i++)
		g->pattern[i] = (uint8_t)(i * 7);
	g->err = w_filehdr(&g->w, &default_hdr);
	gn->run(g);
	err = w_close(&g->w);
	err = g->err ? g->err : err;
	rc = err ? fail_out(o.out, err) : 0;
out:
	free(g);
	return rc;
}

/* ---- convert -------------------------------------------------------------------------- */

/*
 * Copy every record to @w in its encoding. Fields are carried over as they are, caplen
 * above snaplen or wirelen included, so a converted odd file is odd the same way. A record
 * no reader could take (caplen > 256 KiB) or a file that ends early stops the copy, with
 * @why saying where.
 */
static int convert(FILE *in, struct pcap_w *w, int nsec, int be, char *why, size_t why_len)
{
	uint8_t h[24] = {0}, r[16] = {0}, *buf = malloc(REC_MAX);
	size_t got = fread(h, 1, sizeof(h), in);
	bool in_be = get_n(h, 4, true) == MAGIC_USEC || get_n(h, 4, true) == MAGIC_NSEC;
	bool in_nsec = get_n(h, 4, in_be) == MAGIC_NSEC;
	struct pcap_hdr ph = {(uint16_t)get_n(h + 4, 2, in_be), (uint16_t)get_n(h + 6, 2, in_be),
			      (int32_t)get_n(h + 8, 4, in_be), get_n(h + 12, 4, in_be),
			      get_n(h + 16, 4, in_be), get_n(h + 20, 4, in_be)};
	uint64_t recno = 1, off = 24;
	int err = 0;

	if (got < sizeof(h))
		snprintf(why, why_len, "file header is %zu bytes, not 24", got);
	else if (!in_nsec && get_n(h, 4, in_be) != MAGIC_USEC)
		snprintf(why, why_len, "magic 0x%08" PRIx32 " is not classic pcap", get_n(h, 4, 1));
	w->nsec = nsec < 0 ? in_nsec : nsec;
	w->be = be < 0 ? in_be : be;
	err = !buf ? -ENOMEM : why[0] ? -EINVAL : w_filehdr(w, &ph);
	for (; !err && (got = fread(r, 1, sizeof(r), in)) > 0; recno++) {
		uint32_t caplen = get_n(r + 8, 4, in_be), frac = get_n(r + 4, 4, in_be);
		uint64_t ts_ns = get_n(r, 4, in_be) * NSEC_PER_SEC;

		if (got < sizeof(r))
			snprintf(why, why_len, "record %" PRIu64 " at offset 0x%" PRIx64
				 ": header cut short at %zu of 16 bytes", recno, off, got);
		else if (caplen > REC_MAX)
			snprintf(why, why_len, "record %" PRIu64 " at offset 0x%" PRIx64
				 ": caplen %" PRIu32 " > %d", recno, off, caplen, REC_MAX);
		else if ((got = fread(buf, 1, caplen, in)) < caplen)
			snprintf(why, why_len, "record %" PRIu64 " at offset 0x%" PRIx64
				 ": data cut short at %zu of %" PRIu32 " bytes", recno, off, got,
				 caplen);
		ts_ns += frac * (in_nsec ? 1 : NSEC_PER_USEC);
		err = why[0] ? -EINVAL : w_packet(w, ts_ns, buf, caplen, get_n(r + 12, 4, in_be));
		off += 16 + caplen;
	}
	free(buf);
	return !err && ferror(in) ? -EIO : err;
}

static int cmd_convert(int argc, char **argv)
{
	struct pcap_w w = {0};
	char why[160] = "";
	struct stat si, so;
	struct opts o;
	FILE *in;
	int err, rc = parse_opts(argc, argv, ALLOW_CONVERT, &o);

	if (rc)
		return rc;
	if (o.nargs != 2)
		return usage_err("convert", "usage: convert IN OUT [--nsec|--usec] [--be|--le]");
	/* opening OUT for writing would empty IN before it is read */
	if (!stat(o.args[0], &si) && !stat(o.args[1], &so) && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino)
		return usage_err(o.args[1], "is the input file");
	in = fopen(o.args[0], "rb");
	if (!in) {
		errmsg(o.args[0], "%s", strerror(errno));
		return 1;
	}
	rc = 1;
	if (open_out(&w, o.args[1], false, false))
		goto out;
	err = convert(in, &w, o.nsec, o.be, why, sizeof(why));
	rc = w_close(&w);
	err = err ? err : rc;
	/* a format problem is the input's: name it, not the output */
	if (err && why[0])
		errmsg(o.args[0], "%s", why);
	rc = err ? fail_out(o.args[1], why[0] ? 0 : err) : 0;
out:
	fclose(in);
	return rc;
}

/* ---- malformed ------------------------------------------------------------------------ */

static int write_pcapng(struct pcap_w *w)
{
	/* SHB (version 1.0, section length unknown) and IDB (Ethernet, snaplen 65535), LE */
	static const uint8_t shb_idb[] = {
		0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
		1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0, 0, 20, 0, 0, 0,
	};
	/* no if_tsresol, so EPB timestamps are in microseconds */
	uint64_t ts_us = BASE_TS_NS / NSEC_PER_USEC;
	uint32_t epb[] = {6, 32 + 100, 0, (uint32_t)(ts_us >> 32), (uint32_t)ts_us, 100, 100};
	uint8_t e[sizeof(epb)];
	struct frame *fr = malloc(sizeof(*fr));
	int err = fr ? build_bench(fr, 0, 0, 100) : -ENOMEM;

	for (size_t i = 0; i < ARRAY_SIZE(epb); i++)
		put_n(e + 4 * i, epb[i], 4, false);
	err = err ? err : w_raw(w, shb_idb, sizeof(shb_idb));
	err = err ? err : w_raw(w, e, sizeof(e));
	err = err ? err : w_raw(w, fr->b, 100); /* a multiple of 4: no padding */
	err = err ? err : w_raw(w, e + 4, 4);	 /* trailing block length */
	free(fr);
	return err;
}

/*
 * Most kinds are a header and records of a valid UDP frame with one field wrong, or the
 * file cut short; the others are fixed bytes or write their own.
 */
static const struct bad_kind {
	const char *name, *desc;
	const char *raw;		/* fixed content (NUL-terminated), or NULL */
	int (*write)(struct pcap_w *w); /* own writer, or NULL */
	uint16_t major;			/* 0: no file header */
	uint32_t snaplen;		/* 0: FRAME_MAX */
	uint32_t nrec, frame_bytes;	/* records, each a valid frame of this size... */
	uint32_t caplen, wirelen;	/* ...under this header: missing data is zeros */
	uint32_t cut;			/* 0, or keep only this many bytes of the file */
} bad_kinds[] = {
	{"empty", "0 bytes", "", NULL, 0, 0, 0, 0, 0, 0, 0},
	{"short-header", "the first 10 bytes of a valid file header",
	 NULL, NULL, 2, 0, 0, 0, 0, 0, 10},
	{"bad-magic", "24 bytes of junk",
	 "\x8b\x3f\x1e\x77junk, not a trace!!!", NULL, 0, 0, 0, 0, 0, 0, 0},
	{"bad-version", "version 3.4 header, then one good record",
	 NULL, NULL, 3, 0, 1, 100, 100, 100, 0},
	{"absurd-caplen", "a record with caplen 300000 (> 262144), and 300000 bytes after it",
	 NULL, NULL, 2, 0, 1, 1514, 300000, 300000, 0},
	{"caplen-over-snaplen", "snaplen 64, one 100-byte record (a warning, not an error)",
	 NULL, NULL, 2, 64, 1, 100, 100, 100, 0},
	{"caplen-over-wirelen", "one record, caplen 80 > wirelen 60 (a warning, not an error)",
	 NULL, NULL, 2, 0, 1, 80, 80, 60, 0},
	{"truncated-record", "a good record, then one whose data stops at 40 of 100 bytes",
	 NULL, NULL, 2, 0, 2, 100, 100, 100, 24 + 116 + 16 + 40},
	{"truncated-rechdr", "a good record, then 7 bytes of a record header",
	 NULL, NULL, 2, 0, 2, 100, 100, 100, 24 + 116 + 7},
	{"jumbo", "one valid 9000-byte Ethernet/IPv4/UDP frame",
	 NULL, NULL, 2, 0, 1, 9000, 9000, 9000, 0},
	{"runt", "one 10-byte record, shorter than an Ethernet header",
	 NULL, NULL, 2, 0, 1, 100, 10, 10, 0},
	{"pcapng", "a minimal valid pcapng: SHB, IDB, one EPB",
	 NULL, write_pcapng, 0, 0, 0, 0, 0, 0, 0},
	{"not-trace", "a text file",
	 "This is not a packet trace.\nIt is a text file.\n", NULL, 0, 0, 0, 0, 0, 0, 0},
};

static int write_bad(struct pcap_w *w, const struct bad_kind *k)
{
	struct pcap_hdr h = default_hdr;
	struct frame *fr;
	uint8_t *data;
	int err = 0;

	if (k->raw || k->write)
		return k->write ? k->write(w) : w_raw(w, k->raw, strlen(k->raw));
	fr = calloc(1, sizeof(*fr) + k->caplen);
	if (!fr)
		return -ENOMEM;
	data = (uint8_t *)(fr + 1);
	h.major = k->major;
	h.snaplen = k->snaplen ? k->snaplen : h.snaplen;
	err = w_filehdr(w, &h);
	for (uint32_t i = 0; !err && i < k->nrec; i++) {
		err = build_bench(fr, i, 0, k->frame_bytes);
		memcpy(data, fr->b, fr->len < k->caplen ? fr->len : k->caplen);
		err = err ? err : w_packet(w, BASE_TS_NS + i * NSEC_PER_MSEC, data, k->caplen,
					   k->wirelen);
	}
	free(fr);
	return err;
}

static int cmd_malformed(int argc, char **argv)
{
	struct pcap_w w = {0}, mem = {0};
	const struct bad_kind *k = NULL;
	char *buf = NULL;
	size_t len = 0;
	struct opts o;
	int err, rc = parse_opts(argc, argv, ALLOW(OPT_OUT), &o);
	bool list = !rc && o.nargs == 1 && !strcmp(o.args[0], "list");

	for (size_t i = 0; !rc && o.nargs == 1 && i < ARRAY_SIZE(bad_kinds); i++) {
		if (list)
			printf("%-20s %s\n", bad_kinds[i].name, bad_kinds[i].desc);
		else if (!strcmp(o.args[0], bad_kinds[i].name))
			k = &bad_kinds[i];
	}
	if (rc || list)
		return rc;
	if (o.nargs != 1 || !o.out)
		return usage_err("malformed", "usage: malformed KIND -o OUT, or malformed list");
	if (!k)
		return usage_err(o.args[0], "unknown kind; 'gentrace malformed list' names them");
	/* built in memory, so that a cut can fall anywhere, even inside the file header */
	mem.f = open_memstream(&buf, &len);
	err = mem.f ? write_bad(&mem, k) : -errno;
	rc = w_close(&mem);
	err = err ? err : rc;
	rc = 1;
	if (err) {
		errmsg(k->name, "%s", strerror(-err));
		goto out;
	}
	if (open_out(&w, o.out, false, false))
		goto out;
	err = w_raw(&w, buf, k->cut && k->cut < len ? k->cut : len);
	rc = w_close(&w);
	err = err ? err : rc;
	rc = err ? fail_out(o.out, err) : 0;
out:
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_err("usage", "missing command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(generators); i++)
		if (!strcmp(argv[1], generators[i].name))
			return cmd_generate(&generators[i], argc - 1, argv + 1);
	if (!strcmp(argv[1], "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(argv[1], "malformed"))
		return cmd_malformed(argc - 1, argv + 1);
	return usage_err(argv[1], "unknown command");
}
