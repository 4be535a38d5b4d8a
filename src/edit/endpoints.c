// SPDX-License-Identifier: BSD-2-Clause
/*
 * -e/--endpoints CLIENT:SERVER (tcprewrite's -e IP1:IP2): every packet
 * becomes a packet between two hosts.  A client-to-server packet gets source
 * CLIENT and destination SERVER, a server-to-client one the reverse; the
 * direction is the one the pair forms of --enet-dmac and --pnat use (the -c
 * cache, --split MODE, a --dualfile side, or the first mode).
 *
 * As tcprewrite 4.6 does it (its -e is --pnat with two maps from 0.0.0.0/0,
 * or [::/0], to the two addresses): IPv4 endpoints rewrite IPv4 packets and
 * the IPv4 addresses of ARP, IPv6 endpoints ([A]:[B]) IPv6 packets only;
 * with --skipbroadcast a multicast or broadcast address is kept; every
 * fragment is rewritten, checksums follow per RFC 1624 (IPv4 header, and
 * TCP/UDP/ICMPv6 through the pseudo-header).  ARP: endpoints_apply().
 */
#include <arpa/inet.h>
#include <string.h>

#include "edit_int.h"

static bool endpoints_wanted(const struct edit_cfg *cfg)
{
	return cfg->endpoints.family != 0;
}

int edit_parse_endpoints(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_endpoints *ep = field;
	char a[INET6_ADDRSTRLEN + 1], b[INET6_ADDRSTRLEN + 1];
	const char *mid, *end;
	size_t na, nb;
	int af;

	memset(ep, 0, sizeof(*ep));
	if (arg[0] == '[') {
		/* "[A]:[B]" */
		mid = strstr(arg, "]:[");
		end = arg + strlen(arg);
		if (!mid || end - arg < 7 || end[-1] != ']')
			return opts_fail(err, errlen, "'%s' is not CLIENT:SERVER (IPv4 a.b.c.d:e.f.g.h, IPv6 [A]:[B])",
					 arg);
		na = (size_t)(mid - arg - 1);
		nb = (size_t)(end - 1 - (mid + 3));
		if (na >= sizeof(a) || nb >= sizeof(b))
			return opts_fail(err, errlen, "'%s': an address is too long", arg);
		memcpy(a, arg + 1, na);
		a[na] = '\0';
		memcpy(b, mid + 3, nb);
		b[nb] = '\0';
		af = AF_INET6;
	} else {
		mid = strchr(arg, ':');
		if (!mid || strchr(mid + 1, ':'))
			return opts_fail(err, errlen, "'%s' is not CLIENT:SERVER (IPv4 a.b.c.d:e.f.g.h, IPv6 [A]:[B])",
					 arg);
		na = (size_t)(mid - arg);
		nb = strlen(mid + 1);
		if (na >= sizeof(a) || nb >= sizeof(b))
			return opts_fail(err, errlen, "'%s': an address is too long", arg);
		memcpy(a, arg, na);
		a[na] = '\0';
		memcpy(b, mid + 1, nb);
		b[nb] = '\0';
		af = AF_INET;
	}
	/* tcprewrite 4.6 takes "[v4]:[v4]" and silently rewrites nothing: refused, with the spelling that works. */
	if (af == AF_INET6 && inet_pton(AF_INET, a, ep->client) == 1 && inet_pton(AF_INET, b, ep->server) == 1) {
		memset(ep, 0, sizeof(*ep));
		return opts_fail(err, errlen,
				 "'%s': IPv4 endpoints take no brackets: %s:%s (tcprewrite 4.6 accepts '%s' and rewrites nothing)",
				 arg, a, b, arg);
	}
	if (inet_pton(af, a, ep->client) != 1)
		return opts_fail(err, errlen, "'%s': '%s' is not an %s address (one host, no /len)", arg, a,
				 af == AF_INET ? "IPv4" : "IPv6");
	if (inet_pton(af, b, ep->server) != 1)
		return opts_fail(err, errlen, "'%s': '%s' is not an %s address (one host, no /len)", arg, b,
				 af == AF_INET ? "IPv4" : "IPv6");
	ep->family = af == AF_INET ? 4 : 6;
	return 0;
}

/* Write @to over the address at @off unless --skipbroadcast keeps it; @arp: no checksum. */
static void put_addr(const struct edit_cfg *cfg, struct edit_ctx *c, uint32_t off, const uint8_t *to,
		     unsigned n, bool arp)
{
	const uint8_t *a = c->p->data + off;

	if (cfg->skipbroadcast && (n == 4 ? edit_v4_special(a) : edit_v6_multicast(a)))
		return;
	if (!memcmp(a, to, n))
		return;
	if (arp)
		memcpy(edit_wr(c) + off, to, n);
	else
		edit_addr(c, off, to, n);
}

/*
 * ARP follows its direction like any packet: in a request the sender takes
 * the destination side's address and the target the source side's; in a
 * reply the other way round.  tcpprep places every ARP frame on the server
 * side, so with its caches a request reads "who-has SERVER tell CLIENT" and
 * a reply "SERVER is-at".
 */
static int endpoints_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	const struct edit_endpoints *ep = &cfg->endpoints;
	const struct layers *l = edit_layers(c);
	const uint8_t *d = c->p->data, *src, *dst;
	unsigned n = ep->family == 4 ? 4 : 16;

	if (edit_direction(c) == DIR_C2S)
		src = ep->client, dst = ep->server;
	else
		src = ep->server, dst = ep->client;
	if (l->flags & L_IP) {
		uint32_t at = l->l3off + (l->ipver == 4 ? 12u : 8u);

		if (l->ipver != ep->family)
			return EDIT_KEEP;
		put_addr(cfg, c, at, src, n, false);
		put_addr(cfg, c, at + n, dst, n, false);
		return EDIT_KEEP;
	}
	/* ARP for IPv4 over Ethernet, request or reply: sender at +14, target at +24. */
	if (ep->family == 4 && l->ethertype == 0x0806 && c->p->caplen >= l->l3off + 28u &&
	    d[l->l3off + 2] == 0x08 && d[l->l3off + 3] == 0x00 && d[l->l3off + 4] == 6 &&
	    d[l->l3off + 5] == 4 && d[l->l3off + 6] == 0 &&
	    (d[l->l3off + 7] == 1 || d[l->l3off + 7] == 2)) {
		bool request = d[l->l3off + 7] == 1;

		put_addr(cfg, c, l->l3off + 14u, request ? dst : src, 4, true);
		put_addr(cfg, c, l->l3off + 24u, request ? src : dst, 4, true);
	}
	return EDIT_KEEP;
}

const struct edit_ops edit_endpoints_ops = {
	.name = "endpoints",
	.wanted = endpoints_wanted,
	.apply = endpoints_apply,
};

/*
 * With --fuzz-seed, -e runs after the fuzzer, as tcpedit 4.6 does it: its -e
 * is two --pnat maps, and its address rewrites (rewrite_ip) come after its
 * fuzzing and second header pass.  So a fuzzed frame is rewritten as fuzzed:
 * an ARP frame whose types the fuzzer zeroed keeps its addresses, an IPv4
 * header the fuzzer cut short is left alone.  The direction is still the
 * packet's as read (the chain fixes it before the fuzzer).
 */
static bool endpoints_late_wanted(const struct edit_cfg *cfg)
{
	return cfg->fuzz_seed != EDIT_UNSET && endpoints_wanted(cfg);
}

const struct edit_ops edit_endpoints_late_ops = {
	.name = "endpoints",
	.wanted = endpoints_late_wanted,
	.apply = endpoints_apply,
};
