// SPDX-License-Identifier: BSD-2-Clause
/*
 * Flows: what a frame belongs to, for --per-flow and for the kernel filter
 * made from the reference.
 *
 * A flow is the 5-tuple of an IP packet, or the MAC pair and EtherType of
 * anything else.  Each reference packet's flow is found once, when the
 * reference is loaded (ref.c); a received frame's flow is that of the
 * reference packet it matched, so the capture loop does no more work, and
 * a foreign frame belongs to no flow.
 *
 * Per flow, reordering is RFC 4737's over the flow's own packets: a frame
 * is reordered when a later packet of the same flow arrived first (frames
 * of other flows overtaking it do not count, as they do not for a TCP
 * receiver).  The inter-arrival error is the received gap minus the
 * intended gap between the flow's consecutive in-order frames.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/layers.h"
#include "rx.h"

enum {
	ETHERTYPE_IP = 0x0800,
	ETHERTYPE_IPV6 = 0x86dd,
	PROTO_TCP = 6,
	PROTO_UDP = 17,
	PROTO_SCTP = 132,
};

static bool has_ports(uint8_t proto)
{
	return proto == PROTO_TCP || proto == PROTO_UDP || proto == PROTO_SCTP;
}

/*
 * The tags looked through: of the outer ones pkt_layers() walked, up to two
 * 802.1Q or 802.1ad tags (a 0x9100 tag is taken for the EtherType).  The
 * EtherType field after them is at 12 + 4 * the count.
 */
static unsigned rx_tags(const uint8_t *d, const struct pkt_layers *l)
{
	unsigned n = 0;

	while (n < 2 && n < l->outer && get_be16(d + 12 + 4 * n) != 0x9100)
		n++;
	return n;
}

void rx_flow_parse(const uint8_t *d, uint32_t caplen, struct rx_flow_key *k)
{
	struct pkt_layers l;
	uint32_t off, l4 = 0;
	uint16_t type;
	unsigned tags;

	memset(k, 0, sizeof(*k));
	k->kind = RX_FLOW_ETH;
	if (caplen < ETH_HDR_BYTES) {
		memcpy(k->dst, d, caplen < 6 ? caplen : 6);
		if (caplen > 6)
			memcpy(k->src, d + 6, caplen - 6);
		return;
	}
	memcpy(k->dst, d, 6);
	memcpy(k->src, d + 6, 6);
	pkt_layers(d, caplen, &l);
	tags = rx_tags(d, &l);
	if (tags)
		k->vlan = (uint16_t)((get_be16(d + 14) & 0x0fff) + 1);
	off = 12 + 4 * tags;
	type = get_be16(d + off);
	k->ethertype = type < 0x600 ? 0 : type; /* 802.3: a length, not a flow's attribute */
	off += 2;
	/* IP right after the tags is where pkt_layers() found it. */
	if (type == ETHERTYPE_IP && l.ipver == 4) {
		k->kind = RX_FLOW_IP4;
		memset(k->dst, 0, 6);
		memset(k->src, 0, 6);
		k->proto = l.l4proto;
		memcpy(k->src, d + off + 12, 4);
		memcpy(k->dst, d + off + 16, 4);
		if (!(l.flags & PKT_L_NONFIRST) && l.l4off)
			l4 = l.l4off;
	} else if (type == ETHERTYPE_IPV6 && l.ipver == 6) {
		/* The fixed header's next header: no extension header is walked for a flow. */
		k->kind = RX_FLOW_IP6;
		k->proto = d[off + 6];
		memcpy(k->src, d + off + 8, 16);
		memcpy(k->dst, d + off + 24, 16);
		l4 = off + 40;
	}
	if (l4 && has_ports(k->proto) && l4 + 4 <= caplen) {
		k->sport = get_be16(d + l4);
		k->dport = get_be16(d + l4 + 2);
		k->ports = 1;
	}
}

static const char *proto_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case PROTO_TCP: return "tcp";
	case PROTO_UDP: return "udp";
	case PROTO_SCTP: return "sctp";
	case 1: return "icmp";
	case 58: return "icmp6";
	}
	snprintf(buf, len, "proto %u", p);
	return buf;
}

static void mac_str(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* An address (and port) as tcpdump writes it: 10.0.0.1:53, [2001:db8::1]:53. */
static void addr_str(const struct rx_flow_key *k, const uint8_t *a, uint16_t port, char *buf,
		     size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	bool v6 = k->kind == RX_FLOW_IP6;

	inet_ntop(v6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip));
	if (!k->ports)
		snprintf(buf, len, "%s", ip);
	else
		snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", ip, port);
}

const char *rx_flow_str(const struct rx_flow_key *k, char *buf, size_t len)
{
	char a[64], b[64], p[16], v[16] = "";

	if (k->vlan)
		snprintf(v, sizeof(v), "vlan %u ", k->vlan - 1);
	if (k->kind == RX_FLOW_ETH) {
		mac_str(k->src, a, sizeof(a));
		mac_str(k->dst, b, sizeof(b));
		if (k->ethertype)
			snprintf(buf, len, "%s%s > %s 0x%04x", v, a, b, k->ethertype);
		else
			snprintf(buf, len, "%s%s > %s 802.3", v, a, b);
		return buf;
	}
	addr_str(k, k->src, k->sport, a, sizeof(a));
	addr_str(k, k->dst, k->dport, b, sizeof(b));
	snprintf(buf, len, "%s%s %s > %s", v, proto_name(k->proto, p, sizeof(p)), a, b);
	return buf;
}

bool rx_seq_of(const uint8_t *d, uint32_t caplen, uint64_t *seq)
{
	struct pkt_layers l;
	uint32_t off, l4 = 0;
	const uint8_t *pl;
	uint16_t type;

	if (caplen < ETH_HDR_BYTES)
		return false;
	pkt_layers(d, caplen, &l);
	off = 12 + 4 * rx_tags(d, &l);
	type = get_be16(d + off);
	off += 2;
	/*
	 * UDP, not a later fragment; over IPv6 after up to four extension
	 * headers (hop-by-hop, routing, destination options, a first
	 * fragment's header), not behind AH.
	 */
	if (type == ETHERTYPE_IP && l.ipver == 4 && l.l4proto == PROTO_UDP && !(l.flags & PKT_L_NONFIRST))
		l4 = l.l4off;
	else if (type == ETHERTYPE_IPV6 && l.ipver == 6 && l.l4proto == PROTO_UDP &&
		 !(l.flags & (PKT_L_NONFIRST | PKT_L_AH)) && l.next <= 4)
		l4 = l.l4off;
	if (!l4 || (uint64_t)l4 + 8 + 8 > caplen)
		return false;
	pl = d + l4 + 8;
	/*
	 * Linux pktgen's header (net/core/pktgen.c, struct pktgen_hdr): a
	 * 32-bit magic, then the 32-bit sequence number, then the send time
	 * (seconds and microseconds, 32 bits each), all big-endian.
	 */
	if (get_be32(pl) == RX_PKTGEN_MAGIC) {
		*seq = get_be32(pl + 4);
		return true;
	}
	*seq = 0;
	for (int i = 0; i < 8; i++)
		*seq = *seq << 8 | pl[i];
	/*
	 * gentrace's signature (other UDP seldom agrees): over IPv4 the IP ID
	 * is the number's low 16 bits, over IPv6 the flow label its low 20.
	 */
	if (type == ETHERTYPE_IP)
		return get_be16(d + off + 4) == (uint16_t)*seq;
	return (get_be32(d + off) & 0xfffff) == (*seq & 0xfffff);
}

/* ---- the table ---- */

/* FNV-1a over the key's bytes (every byte is set: rx_flow_parse() zeroes the key first). */
static uint64_t key_hash(const struct rx_flow_key *k)
{
	const uint8_t *b = (const uint8_t *)k;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ h >> 29;
}

static int rehash(struct rx_flowtab *t, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t s = key_hash(&t->key[i]) & (nslots - 1);

		while (slot[s])
			s = (s + 1) & (nslots - 1);
		slot[s] = (uint32_t)(i + 1);
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return 0;
}

int64_t rx_flowtab_add(struct rx_flowtab *t, const struct rx_flow_key *k)
{
	size_t s;

	if (!t->nslots && rehash(t, 64) < 0)
		return -ENOMEM;
	for (s = key_hash(k) & (t->nslots - 1); t->slot[s]; s = (s + 1) & (t->nslots - 1))
		if (!memcmp(&t->key[t->slot[s] - 1], k, sizeof(*k)))
			return t->slot[s] - 1;
	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct rx_flow_key *key = realloc(t->key, cap * sizeof(*key));

		if (!key)
			return -ENOMEM;
		t->key = key;
		t->cap = cap;
	}
	t->key[t->n] = *k;
	t->slot[s] = (uint32_t)(t->n + 1);
	t->n++;
	if (2 * t->n >= t->nslots && rehash(t, 2 * t->nslots) < 0) {
		t->n--; /* not added after all: the table stays consistent */
		t->slot[s] = 0;
		return -ENOMEM;
	}
	return (int64_t)(t->n - 1);
}

void rx_flowtab_free(struct rx_flowtab *t)
{
	free(t->key);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- per flow ---- */

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int worse(const void *pa, const void *pb)
{
	const struct rx_flow_result *a = pa, *b = pb;

	if (a->lost != b->lost)
		return a->lost > b->lost ? -1 : 1;
	if (a->abs_err.p99 != b->abs_err.p99)
		return a->abs_err.p99 > b->abs_err.p99 ? -1 : 1;
	if (a->reordered + a->dup != b->reordered + b->dup)
		return a->reordered + a->dup > b->reordered + b->dup ? -1 : 1;
	return a->flow < b->flow ? -1 : a->flow > b->flow;
}

/*
 * Values per flow, bucketed: start[f] .. start[f + 1] in v.  One pass to
 * count (done by the caller into start[f + 1]), prefix sums here, a second
 * pass to fill through fill[].
 */
static void prefix(size_t *start, size_t nflows)
{
	for (size_t f = 0; f < nflows; f++)
		start[f + 1] += start[f];
}

int rx_flows_analyse(struct rx_result *res, const struct rx_recs *recs, const struct rx_ref *ref)
{
	size_t nf = ref->flows.n, n = recs->n, m = n ? n : 1;
	struct rx_flow_result *fr = calloc(nf ? nf : 1, sizeof(*fr));
	size_t *next = calloc(nf ? nf : 1, sizeof(*next));  /* next expected position in the flow, + 1 */
	size_t *prev = malloc((nf ? nf : 1) * sizeof(*prev)); /* last in-order frame of the flow */
	size_t *es = calloc(nf + 1, sizeof(*es)), *ls = calloc(nf + 1, sizeof(*ls));
	size_t *ef = malloc((nf ? nf : 1) * sizeof(*ef)), *lf = malloc((nf ? nf : 1) * sizeof(*lf));
	int64_t *ev = malloc(m * sizeof(*ev)), *av = malloc(m * sizeof(*av));
	int64_t *lv = malloc(m * sizeof(*lv)), *kerr = malloc(m * sizeof(*kerr));
	bool *has_err = calloc(m, sizeof(*has_err));
	int rc = -ENOMEM;

	if (!fr || !next || !prev || !es || !ls || !ef || !lf || !ev || !av || !lv || !kerr ||
	    !has_err)
		goto out;
	for (size_t f = 0; f < nf; f++) {
		fr[f].flow = (uint32_t)f;
		prev[f] = RX_NONE;
	}
	for (size_t i = 0; i < ref->n; i++) {
		fr[ref->flow[i]].packets++;
		fr[ref->flow[i]].bytes += ref->len[i];
	}
	/* First pass: kinds within the flow, and which frames have an error value. */
	for (size_t k = 0; k < n; k++) {
		size_t p = res->pos[k], f;

		if (p == RX_NONE)
			continue;
		f = ref->flow[p];
		fr[f].received++;
		if (res->send_ns && res->send_ns[k] >= 0)
			ls[f + 1]++;
		if (res->kind[k] == RX_K_DUP) {
			fr[f].dup++;
			continue;
		}
		if (p + 1 <= next[f]) {
			fr[f].reordered++;
			continue;
		}
		next[f] = p + 1;
		if (prev[f] != RX_NONE) {
			size_t pa = res->pos[prev[f]];

			kerr[k] = rx_tdiff(rx_recs_at(recs, k)->ts_ns, rx_recs_at(recs, prev[f])->ts_ns) -
				  rx_tdiff(ref->ts_ns[p], ref->ts_ns[pa]);
			has_err[k] = true;
			es[f + 1]++;
		}
		prev[f] = k;
	}
	prefix(es, nf);
	prefix(ls, nf);
	memcpy(ef, es, nf * sizeof(*ef));
	memcpy(lf, ls, nf * sizeof(*lf));
	for (size_t k = 0; k < n; k++) {
		size_t p = res->pos[k], f;

		if (p == RX_NONE)
			continue;
		f = ref->flow[p];
		if (has_err[k]) {
			ev[ef[f]] = kerr[k];
			av[ef[f]++] = abs64(kerr[k]);
		}
		if (res->send_ns && res->send_ns[k] >= 0)
			lv[lf[f]++] = rx_time(rx_recs_at(recs, k)->ts_ns) - res->send_ns[k];
	}
	for (size_t f = 0; f < nf; f++) {
		rx_dist_of(&fr[f].err, ev + es[f], es[f + 1] - es[f]);
		rx_dist_of(&fr[f].abs_err, av + es[f], es[f + 1] - es[f]);
		rx_dist_of(&fr[f].latency, lv + ls[f], ls[f + 1] - ls[f]);
	}
	/* Lost: the reference packets no frame took (rx_analyse() counted them over the whole). */
	{
		bool *got = calloc(ref->n ? ref->n : 1, sizeof(*got));

		if (!got)
			goto out;
		for (size_t k = 0; k < n; k++)
			if (res->pos[k] != RX_NONE)
				got[res->pos[k]] = true;
		for (size_t i = 0; i < ref->n; i++)
			if (!got[i]) {
				fr[ref->flow[i]].lost++;
				fr[ref->flow[i]].bytes_lost += ref->len[i];
			}
		free(got);
	}
	qsort(fr, nf, sizeof(*fr), worse);
	free(res->flows);
	res->flows = fr;
	res->nflows = nf;
	res->flow_keys = ref->flows.key;
	fr = NULL;
	rc = 0;
out:
	free(fr);
	free(next);
	free(prev);
	free(es);
	free(ls);
	free(ef);
	free(lf);
	free(ev);
	free(av);
	free(lv);
	free(kerr);
	free(has_err);
	return rc;
}

/* ---- the kernel filter from the reference ---- */

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap ? 2 * b->cap : 256) + (size_t)n;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

static void ip_term(struct sbuf *b, const struct rx_flow_key *k, bool ports)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], p[16];
	bool v6 = k->kind == RX_FLOW_IP6;
	const char *ip = v6 ? "ip6" : "ip";

	inet_ntop(v6 ? AF_INET6 : AF_INET, k->src, s, sizeof(s));
	inet_ntop(v6 ? AF_INET6 : AF_INET, k->dst, d, sizeof(d));
	if (ports && k->ports) {
		const char *pn = proto_name(k->proto, p, sizeof(p));

		sb_printf(b, "(%s src %s and %s dst %s and %s src port %u and %s dst port %u)", ip, s,
			  ip, d, pn, k->sport, pn, k->dport);
	} else {
		sb_printf(b, "(%s src %s and %s dst %s and %s proto %u)", ip, s, ip, d, ip, k->proto);
	}
}

static void eth_term(struct sbuf *b, const struct rx_flow_key *k)
{
	char s[24], d[24];

	mac_str(k->src, s, sizeof(s));
	mac_str(k->dst, d, sizeof(d));
	if (k->ethertype)
		sb_printf(b, "(ether src %s and ether dst %s and ether proto 0x%04x)", s, d,
			  k->ethertype);
	else /* 802.3: the type field is a length */
		sb_printf(b, "(ether src %s and ether dst %s and ether[12:2] < 0x600)", s, d);
}

/* The flows with ports left out: @coarse gets one key per (kind, proto, addresses, EtherType). */
static int coarsen(const struct rx_flowtab *t, struct rx_flowtab *coarse)
{
	for (size_t i = 0; i < t->n; i++) {
		struct rx_flow_key k = t->key[i];

		k.sport = k.dport = 0;
		k.ports = 0;
		if (rx_flowtab_add(coarse, &k) < 0)
			return -ENOMEM;
		if (coarse->n > RX_AUTOFILTER_FLOWS)
			return 0;
	}
	return 0;
}

char *rx_filter_for_ref(const struct rx_ref *ref, const char **why)
{
	const struct rx_flowtab *t = &ref->flows, *use = t;
	struct rx_flowtab coarse = { 0 };
	struct sbuf b = { 0 };
	bool ports = true;

	*why = "the reference is empty";
	if (!t->n)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		if (t->key[i].vlan) {
			*why = "the reference has VLAN-tagged frames";
			return NULL;
		}
	}
	if (t->n > RX_AUTOFILTER_FLOWS) {
		if (coarsen(t, &coarse) < 0 || coarse.n > RX_AUTOFILTER_FLOWS) {
			*why = "the reference has too many flows and address pairs";
			rx_flowtab_free(&coarse);
			return NULL;
		}
		use = &coarse;
		ports = false;
	}
	for (size_t i = 0; i < use->n; i++) {
		if (i)
			sb_printf(&b, " or ");
		if (use->key[i].kind == RX_FLOW_ETH)
			eth_term(&b, &use->key[i]);
		else
			ip_term(&b, &use->key[i], ports);
	}
	rx_flowtab_free(&coarse);
	if (b.oom) {
		free(b.s);
		*why = "out of memory";
		return NULL;
	}
	*why = ports ? "the reference's flows" : "the reference's address pairs and protocols";
	return b.s;
}
