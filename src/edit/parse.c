// SPDX-License-Identifier: BSD-2-Clause
/*
 * Parsers for the edit options' argument syntaxes, which are tcprewrite's and
 * tcpreplay's so that users' command lines carry over: MAC pairs, CIDR maps
 * with bracketed IPv6, port maps with lists and ranges, packet-number lists,
 * TTL deltas.  Each fills a plain struct: no allocation, nothing to free.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "edit_int.h"

/*
 * A decimal number in [0, max] from *@s, advancing it; -1 if there is none or
 * it is too big; -EDOM with @err set (the value's own words, no option name)
 * for a leading 0 that tcpreplay would read as octal, or past 2^64: read by
 * the options' one reader of numbers, opt_parse_u64().
 */
static int64_t number(const char **s, uint64_t max, char *err, size_t errlen)
{
	const char *p = *s;
	size_t n = strspn(p, "0123456789");
	char digits[32];
	uint64_t v;
	int rc;

	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, p, n);
	digits[n] = '\0';
	rc = opt_parse_u64(digits, OPT_NUM_DEC, 0, UINT64_MAX, &v, err, errlen);
	if (rc < 0)
		return -EDOM;
	if (v > max)
		return -1;
	*s = p + n;
	return (int64_t)v;
}

int edit_parse_pktlist(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_pktlist *l = field;
	const char *s = arg;

	l->n = 0;
	if (!strncasecmp(s, "P:", 2))
		s += 2;
	else if (s[0] && s[1] == ':')
		return opts_fail(err, errlen, "'%s': only packet-number lists (P:1-5,9,72-) are supported; use --filter for expressions",
			    arg);
	for (;;) {
		int64_t lo = number(&s, UINT64_MAX / 2, err, errlen), hi;

		if (lo == -EDOM)
			return -EINVAL; /* @err says why */
		if (lo < 0)
			return opts_fail(err, errlen, "'%s': expected a packet number at '%s'", arg, s);
		if (lo == 0)
			return opts_fail(err, errlen, "'%s': packet numbers count from 1, not 0", arg);
		hi = lo;
		if (*s == '-') {
			s++;
			if (!*s || *s == ',')
				hi = INT64_MAX; /* open range: to the end */
			else if ((hi = number(&s, UINT64_MAX / 2, err, errlen)) == -EDOM)
				return -EINVAL;
			else if (hi < 0)
				return opts_fail(err, errlen, "'%s': expected the packet number that ends the range at '%s'",
					    arg, s);
			else if (hi < lo)
				return opts_fail(err, errlen, "'%s': the range %lld-%lld goes from high to low", arg,
					    (long long)lo, (long long)hi);
		}
		if (l->n == EDIT_LIST_MAX)
			return opts_fail(err, errlen, "'%s': more than %d ranges", arg, EDIT_LIST_MAX);
		l->r[l->n].lo = (uint64_t)lo;
		l->r[l->n].hi = hi == INT64_MAX ? UINT64_MAX : (uint64_t)hi;
		l->n++;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return opts_fail(err, errlen, "'%s': unexpected '%c'", arg, s[-1]);
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One MAC, xx:xx:xx:xx:xx:xx (one or two hex digits each), ending at @end. */
static int mac(const char *s, const char *end, uint8_t out[6])
{
	for (int i = 0; i < 6; i++) {
		int v = hexval(*s), w;

		if (s >= end || v < 0)
			return -1;
		s++;
		if (s < end && (w = hexval(*s)) >= 0) {
			v = v * 16 + w;
			s++;
		}
		out[i] = (uint8_t)v;
		if (i < 5 && (s >= end || *s++ != ':'))
			return -1;
	}
	return s == end ? 0 : -1;
}

int edit_parse_macs(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_macs *m = field;
	const char *comma = strchr(arg, ',');
	const char *end = arg + strlen(arg);

	m->n = 0;
	if (mac(arg, comma ? comma : end, m->mac[0]) < 0)
		return opts_fail(err, errlen, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", arg);
	m->n = 1;
	if (comma) {
		if (mac(comma + 1, end, m->mac[1]) < 0)
			return opts_fail(err, errlen, "'%s': the second MAC address is not one", arg);
		m->n = 2;
	}
	return 0;
}

int edit_parse_subsmac(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_subsmac *m = field;
	const char *p = arg;

	/* OLD,NEW[,OLD,NEW...]; the option may be repeated: pairs append. */
	for (;;) {
		const char *c1 = strchr(p, ','), *c2, *end;

		if (!c1)
			return opts_fail(err, errlen, "'%s': give MAC pairs OLD,NEW[,OLD,NEW...]", arg);
		c2 = strchr(c1 + 1, ',');
		end = c2 ? c2 : c1 + 1 + strlen(c1 + 1);
		if (m->n >= EDIT_MAP_MAX)
			return opts_fail(err, errlen, "'%s': more than %d MAC pairs", arg, EDIT_MAP_MAX);
		if (mac(p, c1, m->e[m->n].from) < 0 || mac(c1 + 1, end, m->e[m->n].to) < 0)
			return opts_fail(err, errlen, "'%s': '%.*s' is not a MAC address pair (xx:xx:xx:xx:xx:xx)",
					 arg, (int)(end - p), p);
		m->n++;
		if (!c2)
			return 0;
		p = c2 + 1;
	}
}

/*
 * One netblock from *@s up to a ':' or ',': "a.b.c.d[/n]", or bracketed as
 * tcprewrite 4.6 takes it, "[v6addr[/n]]" or "[a.b.c.d[/n]]" (the length
 * inside the brackets).  0 on success; -1 if it is not one; -2 for a length
 * after the bracket ("[2001:db8::]/32"), which tcprewrite 4.6 accepts and
 * ignores (it ends the block at ']', so the map is of one host): a command
 * line meaning a /32 there would silently map nothing, so we refuse it.
 * -3 for a length with a leading 0 tcpreplay reads as octal (@err says so).
 */
static int cidr(const char **s, struct edit_cidr *c, char *err, size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *p = *s, *end;
	size_t n;
	char *slash;
	int64_t plen;

	memset(c, 0, sizeof(*c));
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end)
			return -1;
		n = (size_t)(end - p - 1);
		if (n >= sizeof(buf))
			return -1;
		memcpy(buf, p + 1, n);
		buf[n] = '\0';
		p = end + 1;
		if (*p == '/')
			return -2;
		c->family = strchr(buf, ':') ? 6 : 4;
		plen = c->family == 6 ? 128 : 32;
		slash = strchr(buf, '/');
		if (slash) {
			const char *q = slash + 1;

			*slash = '\0';
			if ((plen = number(&q, (uint64_t)plen, err, errlen)) == -EDOM)
				return -3;
			if (plen < 0 || *q)
				return -1;
		}
		if (inet_pton(c->family == 6 ? AF_INET6 : AF_INET, buf, c->addr) != 1)
			return -1;
	} else {
		end = p + strcspn(p, ":,/");
		n = (size_t)(end - p);
		if (n >= sizeof(buf))
			return -1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		p = end;
		c->family = 4;
		plen = 32;
		if (*p == '/') {
			p++;
			if ((plen = number(&p, 32, err, errlen)) == -EDOM)
				return -3;
			if (plen < 0)
				return -1;
		}
		if (inet_pton(AF_INET, buf, c->addr) != 1)
			return -1;
	}
	c->plen = (uint8_t)plen;
	*s = p;
	return 0;
}

/* A prefix length such as "/010": @err holds the number's reason; the map is named before it. */
static int prefix_octal(const char *arg, char *err, size_t errlen)
{
	char why[256];

	snprintf(why, sizeof(why), "%s", err);
	return opts_fail(err, errlen, "'%s': the prefix length %s", arg, why);
}

/* The hint for "[addr]/n": the same block with its length inside the brackets, as tcprewrite 4.6 reads it. */
static int cidr_len_outside(const char *arg, const char *at, char *err, size_t errlen)
{
	const char *close = strchr(at, ']'), *len = close + 2;
	size_t lenlen = strspn(len, "0123456789");

	return opts_fail(err, errlen,
			 "'%s': write the prefix length inside the brackets, %.*s/%.*s] (tcprewrite 4.6 ignores a length after ']' and maps one host)",
			 arg, (int)(close - at), at, (int)lenlen, len);
}

int edit_parse_cidrmap(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_cidrmap *m = field;
	const char *s = arg;

	m->n = 0;
	for (;;) {
		struct edit_cidr from, to;

		const char *at = s;
		int rc = cidr(&s, &from, err, errlen);

		if (rc == 0 && *s++ == ':') {
			at = s;
			rc = cidr(&s, &to, err, errlen);
		} else if (rc == 0) {
			rc = -1;
		}
		if (rc == -2)
			return cidr_len_outside(arg, at, err, errlen);
		if (rc == -3)
			return prefix_octal(arg, err, errlen);
		if (rc < 0)
			return opts_fail(err, errlen,
				    "'%s' is not a list of FROM:TO netblock pairs (10.0.0.0/8:192.168.0.0/16, [2001:db8::/32]:[fd00::/32])",
				    arg);
		if (from.family != to.family)
			return opts_fail(err, errlen, "'%s': a pair maps IPv4 to IPv4 or IPv6 to IPv6", arg);
		if (m->n == EDIT_MAP_MAX)
			return opts_fail(err, errlen, "'%s': more than %d pairs", arg, EDIT_MAP_MAX);
		m->e[m->n].from = from;
		m->e[m->n].to = to;
		m->n++;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return opts_fail(err, errlen, "'%s': pairs are separated by commas", arg);
	}
}

int edit_parse_pnat(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_pnat *p = field;
	int rc;

	if (p->n == 2)
		return opts_fail(err, errlen, "given more than twice (once for clients, once for servers)");
	rc = edit_parse_cidrmap(&p->map[p->n], arg, err, errlen);
	if (rc == 0)
		p->n++;
	return rc;
}

int edit_parse_portmap(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_portmap *m = field;
	const char *s = arg;
	unsigned pending = m->n; /* entries still waiting for their ":TO" */

	for (;;) {
		int64_t lo = number(&s, 65535, err, errlen), hi, to;

		if (lo == -EDOM)
			return -EINVAL; /* @err says why */
		if (lo < 0)
			return opts_fail(err, errlen, "'%s': expected a port (0-65535) at '%s'", arg, s);
		hi = lo;
		if (*s == '-') {
			s++;
			if ((hi = number(&s, 65535, err, errlen)) == -EDOM)
				return -EINVAL;
			if (hi < lo)
				return opts_fail(err, errlen, "'%s': a port range must go from low to high", arg);
		}
		if (m->n == EDIT_MAP_MAX)
			return opts_fail(err, errlen, "more than %d port mappings", EDIT_MAP_MAX);
		m->e[m->n].lo = (uint16_t)lo;
		m->e[m->n].hi = (uint16_t)hi;
		m->n++;
		if (*s == ':') {
			s++;
			if ((to = number(&s, 65535, err, errlen)) == -EDOM)
				return -EINVAL;
			if (to < 0)
				return opts_fail(err, errlen, "'%s': expected the new port after ':'", arg);
			for (unsigned i = pending; i < m->n; i++)
				m->e[i].to = (uint16_t)to;
			pending = m->n;
		}
		if (!*s)
			break;
		if (*s++ != ',')
			return opts_fail(err, errlen, "'%s': unexpected '%c'", arg, s[-1]);
	}
	if (pending != m->n)
		return opts_fail(err, errlen, "'%s': ports without a ':NEW' port to map them to", arg);
	return 0;
}

int edit_parse_ttl(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_ttl *t = field;
	const char *s = arg;
	int64_t v;

	t->mode = EDIT_TTL_SET;
	if (*s == '+' || *s == '-')
		t->mode = *s++ == '+' ? EDIT_TTL_ADD : EDIT_TTL_SUB;
	/* tcprewrite 4.6 reads --ttl with atoi(): 0x20 would be 0 there, so say so rather than differ. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return opts_fail(err, errlen, "'%s': tcprewrite 4.6 reads --ttl in decimal (0x20 as 0); write it in decimal",
				 arg);
	v = number(&s, 255, err, errlen);
	if (v == -EDOM)
		return opts_fail(err, errlen, "'%s': a leading 0 reads as octal elsewhere (tcprewrite 4.6 reads --ttl in decimal); write it without the 0",
				 arg);
	if (v < 0 || *s || (t->mode == EDIT_TTL_SET && v < 1))
		return opts_fail(err, errlen, "'%s' is not N, +N or -N with N in 1..255", arg);
	t->val = (uint8_t)v;
	return 0;
}

const struct opt_enum edit_vlan_choices[] = {
	{ "add", EDIT_VLAN_ADD },
	{ "del", EDIT_VLAN_DEL },
	{ NULL, 0 },
};

const struct opt_enum edit_vlan_proto_choices[] = {
	{ "802.1q", 0x8100 },
	{ "802.1ad", 0x88a8 },
	{ "802.1Q", 0x8100 },
	{ "802.1AD", 0x88a8 },
	{ NULL, 0 },
};

const struct opt_enum edit_fixlen_choices[] = {
	{ "pad", EDIT_FIXLEN_PAD },
	{ "trunc", EDIT_FIXLEN_TRUNC },
	{ "del", EDIT_FIXLEN_DEL },
	{ NULL, 0 },
};

/*
 * --dlt and its plugins' options, each with its own --dlt (tcprewrite 4.6
 * ignores them otherwise, or writes frames of the wrong length), and no
 * edit of an Ethernet header that --dlt raw, user or hdlc replaces.
 */
static int check_dlt(const struct edit_cfg *c, char *err, size_t errlen)
{
	const char *name = c->dlt == EDIT_DLT_RAW ? "raw" : c->dlt == EDIT_DLT_USER ? "user" : "hdlc";

	if (c->dlt != EDIT_DLT_USER && (c->user_dlink.n || c->user_dlt != EDIT_UNSET))
		return opts_fail(err, errlen, "--user-dlink and --user-dlt need --dlt user");
	if (c->dlt == EDIT_DLT_USER && !c->user_dlink.n)
		return opts_fail(err, errlen, "--dlt user needs --user-dlink: the bytes of the link-layer header "
				 "to write");
	if (c->user_dlt != EDIT_UNSET && edit_dlt_linktype(c->user_dlt) < 0)
		return opts_fail(err, errlen, "--user-dlt %" PRIu64 ": libpcap writes no file of that DLT (it takes "
				 "0-12, 15, 16, 19, 50, 51, 99 and 104-289)", c->user_dlt);
	if (c->dlt != EDIT_DLT_HDLC && (c->hdlc_address != EDIT_UNSET || c->hdlc_control != EDIT_UNSET))
		return opts_fail(err, errlen, "--hdlc-address and --hdlc-control need --dlt hdlc");
	if (c->dlt != EDIT_DLT_ENET &&
	    (c->dmac.n || c->smac.n || c->subsmac.n || c->vlan != EDIT_VLAN_NONE || c->mac_seed != EDIT_UNSET ||
	     c->skipl2broadcast))
		return opts_fail(err, errlen, "--dlt %s replaces the Ethernet header that --enet-dmac, --enet-smac, "
				 "--enet-subsmac, --enet-vlan, --enet-mac-seed and --skipl2broadcast edit", name);
	return 0;
}

/* The checks of tcpedit's own options: --enet-mac-seed*, --fuzz-*, and --seed beside them. */
static int check_tcpedit(const struct edit_cfg *c, char *err, size_t errlen)
{
	const char *why = NULL;

	if (c->mac_seed_keep && c->mac_seed == EDIT_UNSET)
		why = "--enet-mac-seed-keep-bytes needs --enet-mac-seed";
	else if (c->mac_seed != EDIT_UNSET && (c->dmac.n || c->smac.n || c->subsmac.n))
		why = "--enet-mac-seed excludes --enet-dmac, --enet-smac and --enet-subsmac (as in tcprewrite)";
	else if (c->fuzz_factor != EDIT_UNSET && c->fuzz_seed == EDIT_UNSET)
		why = "--fuzz-factor needs --fuzz-seed";
	else if (c->fuzz_seed != EDIT_UNSET && c->seed != EDIT_UNSET)
		why = "--seed excludes --fuzz-seed (as in tcprewrite)";
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

int edit_cfg_check(const struct edit_cfg *c, char *err, size_t errlen)
{
	if (c->filter) {
		/* Compile once for Ethernet now, so a bad expression is a usage error. */
		pcap_t *dead = pcap_open_dead(LINKTYPE_ETHERNET, (int)PKT_FRAME_MAX_BYTES);
		struct bpf_program prog;
		int rc;

		if (!dead)
			return opts_fail(err, errlen, "--filter: out of memory");
		rc = pcap_compile(dead, &prog, c->filter, 1, PCAP_NETMASK_UNKNOWN);
		if (rc < 0)
			opts_fail(err, errlen, "--filter '%s': %s", c->filter, pcap_geterr(dead));
		else
			pcap_freecode(&prog);
		pcap_close(dead);
		if (rc < 0)
			return -EINVAL;
	}
	if (c->pnat.n && (c->srcipmap.n || c->dstipmap.n))
		return opts_fail(err, errlen, "--pnat excludes --srcipmap and --dstipmap (as in tcprewrite)");
	if (c->endpoints.family && (c->pnat.n || c->srcipmap.n || c->dstipmap.n))
		return opts_fail(err, errlen, "-e/--endpoints excludes --pnat, --srcipmap and --dstipmap (tcprewrite 4.6 "
				 "drops the maps without a word)");
	if (c->vlan != EDIT_VLAN_ADD &&
	    (c->vlan_tag != EDIT_UNSET || c->vlan_pri != EDIT_UNSET || c->vlan_cfi != EDIT_UNSET))
		return opts_fail(err, errlen, "--enet-vlan-tag, -pri and -cfi need --enet-vlan add");
	if (c->vlan != EDIT_VLAN_ADD && c->vlan_proto != 0x8100)
		return opts_fail(err, errlen, "--enet-vlan-proto needs --enet-vlan add");
	if (c->vlan == EDIT_VLAN_ADD && c->vlan_tag == EDIT_UNSET)
		return opts_fail(err, errlen, "--enet-vlan add needs --enet-vlan-tag");
	if (c->pad_payload && c->fixhdrlen)
		return opts_fail(err, errlen, "--pad-payload and --fixhdrlen both set the length; give one");
	if (c->pad_payload && (c->fixlen == EDIT_FIXLEN_PAD || c->fixlen == EDIT_FIXLEN_TRUNC))
		return opts_fail(err, errlen, "--pad-payload and --fixlen pad/trunc both set the length; give one");
	/* --pad-payload already sends every frame at its wire length: --pktlen would change nothing. */
	if (c->pad_payload && c->pktlen)
		return opts_fail(err, errlen, "--pad-payload already sends each frame at its wire length (zeros past "
				 "the headers); --pktlen would change nothing: give one");
	if (check_dlt(c, err, errlen) < 0)
		return -EINVAL;
	return check_tcpedit(c, err, errlen);
}

bool edit_cfg_any(const struct edit_cfg *c)
{
	const struct edit_cfg d = EDIT_CFG_DEFAULTS;

	return c->filter || c->include.n || c->exclude.n || c->dmac.n || c->smac.n || c->subsmac.n ||
	       c->vlan != EDIT_VLAN_NONE || c->pnat.n || c->srcipmap.n || c->dstipmap.n ||
	       c->endpoints.family || c->portmap.n || c->seed != EDIT_UNSET || c->tcp_seq != EDIT_UNSET || c->ttl.mode != EDIT_TTL_NONE ||
	       c->tos != EDIT_UNSET || c->tclass != EDIT_UNSET || c->flowlabel != EDIT_UNSET || c->mtu_trunc || c->fixlen != EDIT_FIXLEN_NONE || c->fixhdrlen || c->efcs || c->fixcsum ||
	       c->pad_payload || c->pktlen || c->skipbroadcast != d.skipbroadcast || c->unique_ip ||
	       c->mac_seed != EDIT_UNSET || c->fuzz_seed != EDIT_UNSET || c->skip_soft ||
	       c->dlt != EDIT_DLT_ENET;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

#define H(x) (h = fnv(h, &(x), sizeof(x)))

static uint64_t hash_map(uint64_t h, const struct edit_cidrmap *m)
{
	H(m->n);
	for (unsigned i = 0; i < m->n; i++) {
		H(m->e[i].from.family), H(m->e[i].from.plen), H(m->e[i].from.addr);
		H(m->e[i].to.family), H(m->e[i].to.plen), H(m->e[i].to.addr);
	}
	return h;
}

uint64_t edit_cfg_hash(const struct edit_cfg *c)
{
	uint64_t h = 14695981039346656037ull;
	unsigned v;

	/* Field by field: struct padding holds no meaning and must not change the digest. */
	h = c->filter ? fnv(h, c->filter, strlen(c->filter) + 1) : fnv(h, "", 1);
	H(c->include.n);
	for (unsigned i = 0; i < c->include.n; i++)
		H(c->include.r[i].lo), H(c->include.r[i].hi);
	H(c->exclude.n);
	for (unsigned i = 0; i < c->exclude.n; i++)
		H(c->exclude.r[i].lo), H(c->exclude.r[i].hi);
	H(c->dmac.n), H(c->dmac.mac), H(c->smac.n), H(c->smac.mac);
	H(c->subsmac.n);
	for (unsigned i = 0; i < c->subsmac.n; i++)
		H(c->subsmac.e[i].from), H(c->subsmac.e[i].to);
	v = c->vlan, H(v);
	H(c->vlan_tag), H(c->vlan_pri), H(c->vlan_cfi), H(c->vlan_proto);
	H(c->pnat.n);
	for (unsigned i = 0; i < c->pnat.n; i++)
		h = hash_map(h, &c->pnat.map[i]);
	h = hash_map(h, &c->srcipmap);
	h = hash_map(h, &c->dstipmap);
	H(c->portmap.n);
	for (unsigned i = 0; i < c->portmap.n; i++)
		H(c->portmap.e[i].lo), H(c->portmap.e[i].hi), H(c->portmap.e[i].to);
	H(c->seed), H(c->skipbroadcast), H(c->tcp_seq);
	v = c->ttl.mode, H(v);
	H(c->ttl.val), H(c->tos), H(c->tclass), H(c->flowlabel), H(c->mtu), H(c->mtu_trunc);
	v = c->fixlen, H(v);
	H(c->fixcsum), H(c->pad_payload), H(c->fixhdrlen), H(c->efcs);
	H(c->mac_seed), H(c->mac_seed_keep), H(c->fuzz_seed), H(c->fuzz_factor), H(c->skip_soft);
	if (c->skipl2broadcast) /* only when given: sidecars made before it keep their digest */
		H(c->skipl2broadcast);
	if (c->pktlen) /* the same */
		H(c->pktlen);
	if (c->endpoints.family) /* the same */
		H(c->endpoints.family), H(c->endpoints.client), H(c->endpoints.server);
	/* --dlt and its options are left out: the link layer is replaced after all a sidecar holds. */
	return h;
}
