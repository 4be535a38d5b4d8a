// SPDX-License-Identifier: BSD-2-Clause
/*
 * Direction classifier for two-interface replay (see replay/split.h).  The
 * tcpprep-named modes reproduce what tcpprep 4.6 writes into its cache,
 * checked packet by packet against its cache files on every bundled trace
 * (tests/split/); where tcpprep's behaviour comes from a bug rather than a
 * rule, the comment says so and the behaviour is kept, because lab setups
 * depend on the split they already have.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_int.h"
#include "replay/split.h"

#define SPLIT_HOSTS_MAX (1u << 18) /* open addressing, power of two */
#define SPLIT_NETS_MAX 64u         /* cidr: networks */
#define SPLIT_MACS_MAX 64u         /* mac: addresses */
/* tcpprep's --ratio default: an address is a server when it answered at least twice as
 * often as it asked. */
#define SPLIT_RATIO 2.0

enum role { ROLE_UNKNOWN, ROLE_CLIENT, ROLE_SERVER };

struct host {
	uint8_t used;          /* 0 = empty slot */
	uint8_t server;        /* first: first seen as a destination */
	uint8_t len;           /* 4 or 16 */
	uint8_t role;          /* tree modes: enum role after split_learn_done() */
	uint32_t client_cnt;   /* tree modes: packets that made it look like a client */
	uint32_t server_cnt;   /* ... like a server */
	uint8_t addr[16];
};

struct net {
	uint8_t len;           /* 4 or 16 */
	uint8_t prefix;        /* bits */
	uint8_t addr[16];
};

struct split {
	enum split_mode mode;
	struct host *hosts;    /* first and tree modes */
	unsigned nhosts;
	struct net nets[SPLIT_NETS_MAX];
	unsigned nnets;
	uint8_t macs[SPLIT_MACS_MAX][6];
	unsigned nmacs;
	bool learned;          /* split_learn_done() ran */
	char err[256];
};

static const char *const mode_names[SPLIT_MODE_MAX] = {
	[SPLIT_FIRST] = "first", [SPLIT_CLIENT] = "client", [SPLIT_SERVER] = "server",
	[SPLIT_BRIDGE] = "bridge", [SPLIT_ROUTER] = "router", [SPLIT_CIDR] = "cidr",
	[SPLIT_PORT] = "port",   [SPLIT_MAC] = "mac",
};

const char *split_mode_name(enum split_mode m)
{
	return m < SPLIT_MODE_MAX ? mode_names[m] : "?";
}

enum split_mode split_mode(const struct split *s)
{
	return s->mode;
}

const char *split_strerror(const struct split *s)
{
	return s ? s->err : "out of memory";
}

bool split_needs_pass(const struct split *s)
{
	return s->mode == SPLIT_CLIENT || s->mode == SPLIT_SERVER || s->mode == SPLIT_BRIDGE ||
	       s->mode == SPLIT_ROUTER;
}

/* One "NET[/len]" of a cidr list. */
static int parse_net(const char *tok, struct net *n, char *err, size_t errlen)
{
	char buf[64], *slash;

	if (strlen(tok) >= sizeof(buf))
		return opts_fail(err, errlen, "--split cidr: '%s' is not a network", tok);
	strcpy(buf, tok);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, n->addr) == 1)
		n->len = 4;
	else if (inet_pton(AF_INET6, buf, n->addr) == 1)
		n->len = 16;
	else
		return opts_fail(err, errlen, "--split cidr: '%s' is not an IPv4 or IPv6 address", buf);
	n->prefix = (uint8_t)(n->len * 8);
	if (slash) {
		uint64_t bits;
		char why[256];

		/* Decimal only, as every number of the options: "/010" would be 8 to tcpreplay. */
		if (!slash[1] || opt_parse_u64(slash + 1, OPT_NUM_DEC, 0, n->len * 8u, &bits, why, sizeof(why)) < 0)
			return opts_fail(err, errlen, "--split cidr: '%s': the prefix length must be 0 to %u%s", tok,
					 n->len * 8u,
					 slash[1] == '0' && slash[2] ? ", in decimal without a leading 0" : "");
		n->prefix = (uint8_t)bits;
	}
	return 0;
}

static int parse_mac(const char *tok, uint8_t *mac, char *err, size_t errlen)
{
	unsigned v[6];
	char tail;

	if (sscanf(tok, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return opts_fail(err, errlen, "--split mac: '%s' is not a MAC address (aa:bb:cc:dd:ee:ff)",
			    tok);
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

/* Split @list at commas and hand each token to the cidr or mac parser. */
static int parse_list(struct split *s, const char *what, const char *list, char *err,
		      size_t errlen)
{
	const char *p = list;

	if (!*list)
		return opts_fail(err, errlen, "--split %s: needs a list after '%s:'", what, what);
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char tok[128];
		int rc;

		if (!n || n >= sizeof(tok))
			return opts_fail(err, errlen, "--split %s: empty or overlong item in '%s'", what, list);
		memcpy(tok, p, n);
		tok[n] = '\0';
		if (s->mode == SPLIT_CIDR) {
			if (s->nnets == SPLIT_NETS_MAX)
				return opts_fail(err, errlen, "--split cidr: more than %u networks", SPLIT_NETS_MAX);
			rc = parse_net(tok, &s->nets[s->nnets++], err, errlen);
		} else {
			if (s->nmacs == SPLIT_MACS_MAX)
				return opts_fail(err, errlen, "--split mac: more than %u addresses", SPLIT_MACS_MAX);
			rc = parse_mac(tok, s->macs[s->nmacs++], err, errlen);
		}
		if (rc < 0)
			return rc;
		p += n;
		if (*p == ',' && !*++p)
			return opts_fail(err, errlen, "--split %s: '%s' ends with a comma", what, list);
	}
	return 0;
}

int split_open(struct split **sp, const char *mode, char *err, size_t errlen)
{
	struct split *s;
	int rc = -EINVAL;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		opts_fail(err, errlen, "out of memory for --split");
		return -ENOMEM;
	}
	if (!strncmp(mode, "cidr:", 5)) {
		s->mode = SPLIT_CIDR;
		rc = parse_list(s, "cidr", mode + 5, err, errlen);
	} else if (!strncmp(mode, "mac:", 4)) {
		s->mode = SPLIT_MAC;
		rc = parse_list(s, "mac", mode + 4, err, errlen);
	} else {
		for (int m = 0; m < SPLIT_MODE_MAX; m++) {
			if (m != SPLIT_CIDR && m != SPLIT_MAC && !strcmp(mode, mode_names[m])) {
				s->mode = (enum split_mode)m;
				rc = 0;
			}
		}
		if (rc < 0)
			opts_fail(err, errlen,
			     "--split: unknown mode '%s' (first, client, server, bridge, router, "
			     "cidr:NET[,NET...], port, mac:MAC[,MAC...])", mode);
	}
	if (rc == 0 && (s->mode == SPLIT_FIRST || split_needs_pass(s))) {
		s->hosts = calloc(SPLIT_HOSTS_MAX, sizeof(*s->hosts));
		if (!s->hosts) {
			opts_fail(err, errlen, "out of memory for --split's address table");
			rc = -ENOMEM;
		}
	}
	if (rc < 0) {
		split_close(s);
		return rc;
	}
	*sp = s;
	return 0;
}

void split_close(struct split *s)
{
	if (!s)
		return;
	free(s->hosts);
	free(s);
}

static uint32_t host_hash(const uint8_t *a, unsigned len)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (unsigned i = 0; i < len; i++)
		h = (h ^ a[i]) * 16777619u;
	return h;
}

/* The entry for @a, created (with @server) if new; NULL when the table is full. */
static struct host *host_get(struct split *s, const uint8_t *a, unsigned len, bool server)
{
	uint32_t i = host_hash(a, len) & (SPLIT_HOSTS_MAX - 1);

	for (;;) {
		struct host *h = &s->hosts[i];

		if (!h->used) {
			/* Keep a quarter free so probes stay short. */
			if (s->nhosts >= SPLIT_HOSTS_MAX / 4 * 3)
				return NULL;
			h->used = 1;
			h->server = server;
			h->len = (uint8_t)len;
			memcpy(h->addr, a, len);
			s->nhosts++;
			return h;
		}
		if (h->len == len && !memcmp(h->addr, a, len))
			return h;
		i = (i + 1) & (SPLIT_HOSTS_MAX - 1);
	}
}

int split_first_layers(struct split *s, const uint8_t *d, const struct layers *l)
{
	const uint8_t *ip;
	unsigned alen;
	struct host *src;

	/* Frames that are not IP go the server's way, as tcpprep sends them by default. */
	if (!(l->flags & L_IP) || !s->hosts)
		return SPLIT_INTF2;
	alen = l->ipver == 4 ? 4 : 16;
	ip = d + l->l3off + (l->ipver == 4 ? 12 : 8);
	/* An address first seen as a source is a client, first seen as a destination a server. */
	src = host_get(s, ip, alen, false);
	host_get(s, ip + alen, alen, true);
	return src && !src->server ? SPLIT_INTF1 : SPLIT_INTF2;
}

/*
 * The tree key of a source address.  tcpprep compares two IPv6 tree nodes by
 * comparing the first with itself (tree_comp() in its tree.c), so every IPv6
 * address is the same node: one key for all of them.
 */
static struct host *tree_node(struct split *s, const uint8_t *d, const struct layers *l)
{
	static const uint8_t v6_all[16];

	if (l->ipver == 4)
		return host_get(s, d + l->l3off + 12, 4, false);
	return host_get(s, v6_all, 16, false);
}

/*
 * What one packet says about its source, as tcpprep's packet2tree() reads it
 * (first pass of -a): a bare SYN asks, a SYN+ACK answers; DNS by the header
 * flags; an ICMP port unreachable answers.  tcpprep reads some fields without
 * converting their byte order; on the little-endian hosts it runs on that
 * means: the "ftp-data" exception is source port 5120 (0x1400), not 20; a
 * packet to port 53 is an answer when the RA bit is set, not QR; a packet
 * from port 53 is an answer unless its flags are exactly 0x0080.  The IPv6
 * L4 protocol is the fixed header's next header (no extension walk).
 * Returns -1 where tcpprep aborts (header not captured).
 */
static int packet_role(const uint8_t *d, uint32_t caplen, const struct layers *l)
{
	uint32_t hl, off;
	uint8_t proto;

	if (l->ipver == 4) {
		hl = (uint32_t)(d[l->l3off] & 0x0f) * 4;
		proto = d[l->l3off + 9];
	} else {
		hl = 40;
		proto = d[l->l3off + 6];
	}
	off = l->l3off + hl;
	switch (proto) {
	case 6: /* TCP: 20 bytes */
		if (caplen < off + 20)
			return -1;
		if (get_be16(d + off) == 0x1400)
			return ROLE_UNKNOWN;
		if (d[off + 13] == 0x02)
			return ROLE_CLIENT;
		if (d[off + 13] == 0x12)
			return ROLE_SERVER;
		return ROLE_UNKNOWN;
	case 17: /* UDP: 8 bytes, DNS 12 more */
		if (caplen < off + 8)
			return -1;
		if (get_be16(d + off + 2) == 53) {
			if (caplen < off + 20)
				return -1;
			return d[off + 11] & 0x80 ? ROLE_SERVER : ROLE_CLIENT;
		}
		if (get_be16(d + off) == 53) {
			if (caplen < off + 20)
				return -1;
			return d[off + 10] == 0x00 && d[off + 11] == 0x80 ? ROLE_CLIENT : ROLE_SERVER;
		}
		return ROLE_UNKNOWN;
	case 1: /* ICMP: tcpprep's header struct is 8 bytes */
		if (l->ipver != 4)
			return ROLE_UNKNOWN;
		if (caplen < off + 8)
			return -1;
		return d[off] == 3 && d[off + 1] == 3 ? ROLE_SERVER : ROLE_UNKNOWN;
	default:
		return ROLE_UNKNOWN;
	}
}

int split_learn(struct split *s, const struct pkt *p)
{
	struct layers l;
	struct host *h;
	int role;

	if (!split_needs_pass(s) || p->linktype != LINKTYPE_ETHERNET)
		return 0;
	layers_parse(p->data, p->caplen, &l);
	if (!(l.flags & L_IP))
		return 0;
	role = packet_role(p->data, p->caplen, &l);
	if (role < 0)
		return opts_fail(s->err, sizeof(s->err),
			    "record %llu: captured length %u too short for its headers (tcpprep refuses this trace too)",
			    (unsigned long long)p->recno, p->caplen);
	h = tree_node(s, p->data, &l);
	if (!h)
		return opts_fail(s->err, sizeof(s->err), "record %llu: more than %u addresses",
			    (unsigned long long)p->recno, SPLIT_HOSTS_MAX / 4 * 3);
	if (role == ROLE_CLIENT)
		h->client_cnt++;
	else if (role == ROLE_SERVER)
		h->server_cnt++;
	return 0;
}

/* tcpprep orders IPv4 tree nodes by s_addr read as a host integer: on little-endian
 * hosts the last octet is the most significant. */
static bool v4_before(const uint8_t *a, const uint8_t *b)
{
	for (int i = 3; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i];
	return false;
}

/*
 * tcpprep -a router builds its server networks in process_tree() and gives up
 * with "unable to build a valid list of servers" when it finds a client inside
 * them.  An empty network list counts as containing every address there
 * (check_ip_cidr() returns 1 for no data) and the list starts empty and never
 * grows for the same reason, so the outcome reduces to: it gives up exactly
 * when the first node of its tree -- the lowest IPv4 address in the order
 * above, else the one IPv6 node -- is a client.  When it does not give up, the
 * cache is that of -a client.
 */
static int router_check(struct split *s)
{
	const struct host *first = NULL, *v6 = NULL;

	for (uint32_t i = 0; i < SPLIT_HOSTS_MAX; i++) {
		const struct host *h = &s->hosts[i];

		if (!h->used)
			continue;
		if (h->len == 16)
			v6 = h;
		else if (!first || v4_before(h->addr, first->addr))
			first = h;
	}
	if (!first)
		first = v6;
	if (first && first->role == ROLE_CLIENT)
		return opts_fail(s->err, sizeof(s->err),
			    "tcpprep finds no server network that keeps the clients out "
			    "(it refuses this trace: unable to build a valid list of servers); use client or server");
	return 0;
}

int split_learn_done(struct split *s)
{
	if (!split_needs_pass(s))
		return 0;
	/* tcpprep's tree_calculate(): a server answers at least SPLIT_RATIO times as often as it asks. */
	for (uint32_t i = 0; i < SPLIT_HOSTS_MAX; i++) {
		struct host *h = &s->hosts[i];

		if (!h->used)
			continue;
		if (h->server_cnt || h->client_cnt)
			h->role = (double)h->server_cnt >= (double)h->client_cnt * SPLIT_RATIO ?
					  ROLE_SERVER : ROLE_CLIENT;
		else
			h->role = ROLE_UNKNOWN;
	}
	s->learned = true;
	if (s->mode == SPLIT_ROUTER)
		return router_check(s);
	return 0;
}

static bool in_net(const struct net *n, const uint8_t *a, unsigned len)
{
	unsigned full = n->prefix / 8, rest = n->prefix % 8;

	if (n->len != len || memcmp(n->addr, a, full))
		return false;
	if (rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));

		return (n->addr[full] & m) == (a[full] & m);
	}
	return true;
}

/* tcpprep -p: is the packet going to a TCP/UDP port below 1024? */
static int port_side(const uint8_t *d, uint32_t caplen, const struct layers *l)
{
	uint32_t off;
	uint8_t proto;

	if (l->ipver == 4) {
		/* tcpprep reads the "ports" of a non-first fragment from its payload. */
		off = l->l3off + (uint32_t)(d[l->l3off] & 0x0f) * 4;
		proto = d[l->l3off + 9];
	} else {
		/* tcpprep does not look past an IPv6 fragment header, first fragment or not. */
		if (l->flags & L_FRAG)
			return SPLIT_INTF2;
		off = l->l4off;
		proto = l->l4proto;
		if (!off)
			return SPLIT_INTF2;
	}
	if (proto != 6 && proto != 17)
		return SPLIT_INTF2;
	if (caplen < off + 4)
		return SPLIT_INTF2;
	return get_be16(d + off + 2) < 1024 ? SPLIT_INTF1 : SPLIT_INTF2;
}

int split_classify(struct split *s, const struct pkt *p)
{
	struct layers l;
	struct host *h;
	unsigned alen;

	/* A frame the reader could not convert to Ethernet: no addresses to read. */
	if (p->linktype != LINKTYPE_ETHERNET)
		return SPLIT_INTF2;
	if (s->mode == SPLIT_MAC) {
		if (p->caplen < 14)
			return SPLIT_INTF2;
		for (unsigned i = 0; i < s->nmacs; i++)
			if (!memcmp(p->data + 6, s->macs[i], 6))
				return SPLIT_INTF1;
		return SPLIT_INTF2;
	}
	layers_parse(p->data, p->caplen, &l);
	if (s->mode == SPLIT_FIRST)
		return split_first_layers(s, p->data, &l);
	/* Every mode below sends what is not IP out the secondary (tcpprep without -N). */
	if (!(l.flags & L_IP))
		return SPLIT_INTF2;
	alen = l.ipver == 4 ? 4 : 16;
	switch (s->mode) {
	case SPLIT_CIDR: {
		const uint8_t *src = p->data + l.l3off + (l.ipver == 4 ? 12 : 8);

		for (unsigned i = 0; i < s->nnets; i++)
			if (in_net(&s->nets[i], src, alen))
				return SPLIT_INTF1;
		return SPLIT_INTF2;
	}
	case SPLIT_PORT:
		return port_side(p->data, p->caplen, &l);
	default:
		break;
	}
	/* The -a modes: the role learned in pass one; a role never seen goes by the mode. */
	h = s->learned ? tree_node(s, p->data, &l) : NULL;
	if (h && h->role == ROLE_CLIENT)
		return SPLIT_INTF1;
	if (h && h->role == ROLE_SERVER)
		return SPLIT_INTF2;
	/* tcpprep's router mode passes its non-IP default, which makes an unknown a client. */
	return s->mode == SPLIT_CLIENT || s->mode == SPLIT_ROUTER ? SPLIT_INTF1 : SPLIT_INTF2;
}
