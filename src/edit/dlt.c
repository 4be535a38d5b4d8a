// SPDX-License-Identifier: BSD-2-Clause
/*
 * --dlt raw|user|hdlc: each frame leaves with another link layer than
 * Ethernet, as tcprewrite 4.6's output plugins write it.  The link-layer
 * header tcpedit 4.6 replaces is the Ethernet header with the VLAN tags,
 * MPLS label stack and pseudowire headers behind it (pkt_layers()' l3off);
 * the packet behind it stays as the edits left it.  raw: nothing in front
 * of the IP packet (DLT_RAW); hdlc: Cisco HDLC's address, control and the
 * packet's EtherType (DLT_C_HDLC); user: the bytes of --user-dlink, the
 * file's link type --user-dlt's.  Lengths, captured and on the wire, change
 * by the difference between the two headers.
 *
 * The chain runs this after every other edit and the checksums
 * (edit_chain_apply()): tcpedit converts right after --efcs, but no later
 * edit's bytes depend on the link-layer header, so the bytes are the same.
 * A frame without the form asked for -- shorter than an Ethernet header, an
 * 802.3 frame (no EtherType), a header the capture cut, or not IP for raw
 * -- is dropped and counted filtered.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edit_int.h"
#include "replay/layers.h"
#include "replay/optparse.h"

#define HDLC_ADDR_UNICAST 0x0f /* Cisco HDLC: 0x0f unicast, 0x8f broadcast; control 0 */
#define ETHERTYPE_IPV4	  0x0800
#define ETHERTYPE_IPV6	  0x86dd

const struct opt_enum edit_dlt_choices[] = {
    {"enet", EDIT_DLT_ENET},
    {"raw", EDIT_DLT_RAW},
    {"user", EDIT_DLT_USER},
    {"hdlc", EDIT_DLT_HDLC},
    {NULL, 0},
};

/*
 * libpcap's dlt_to_linktype(), as on Linux: DLT values 0-10 and 104-289
 * are their own link types; these few are not, and any other is written to
 * no file ("link-layer type N isn't supported in savefiles").
 */
static const struct {
	uint16_t dlt, linktype;
} dlt_map[] = {
    {11, 100}, /* DLT_ATM_RFC1483 */
    {12, 101}, /* DLT_RAW */
    {15, 102}, /* DLT_SLIP_BSDOS */
    {16, 103}, /* DLT_PPP_BSDOS */
    {19, 106}, /* DLT_ATM_CLIP */
    {50, 50},  /* DLT_PPP_SERIAL */
    {51, 51},  /* DLT_PPP_ETHER */
    {99, 99},  /* DLT_SYMANTEC_FIREWALL */
};

int edit_dlt_linktype(uint64_t dlt)
{
	if (dlt <= 10 || (dlt >= 104 && dlt <= 289))
		return (int)dlt;
	for (size_t i = 0; i < sizeof(dlt_map) / sizeof(dlt_map[0]); i++)
		if (dlt_map[i].dlt == dlt)
			return dlt_map[i].linktype;
	return -1;
}

unsigned edit_cfg_linktype(const struct edit_cfg *cfg)
{
	switch (cfg->dlt) {
	case EDIT_DLT_RAW:
		return LINKTYPE_RAW;
	case EDIT_DLT_HDLC:
		return LINKTYPE_C_HDLC;
	case EDIT_DLT_USER:
		/* Without --user-dlt, tcprewrite keeps the input's link type: Ethernet, as replay
		 * reads it. */
		if (cfg->user_dlt != EDIT_UNSET && edit_dlt_linktype(cfg->user_dlt) >= 0)
			return (unsigned)edit_dlt_linktype(cfg->user_dlt);
		return LINKTYPE_ETHERNET;
	default:
		return LINKTYPE_ETHERNET;
	}
}

/*
 * --user-dlink: bytes in hexadecimal, separated by commas ("0x0f,0,8,00"),
 * as tcprewrite's read_hexstring() takes them; the second time, the
 * client->server header, of the same length.
 */
int edit_parse_dlink(void *field, const char *arg, char *err, size_t errlen)
{
	struct edit_dlink *d = field;
	uint8_t b[EDIT_DLINK_MAX];
	unsigned n = 0;
	const char *s = arg;

	if (d->n == 2)
		return opts_fail(
		    err, errlen,
		    "given twice already (a server->client and a client->server header)");
	for (;;) {
		char *end;
		unsigned long v;

		if (!isxdigit((unsigned char)s[0]))
			return opts_fail(err, errlen,
					 "'%s': expected bytes in hexadecimal separated by commas "
					 "(0f,00,08,00)",
					 arg);
		errno = 0;
		v = strtoul(s, &end, 16);
		if (errno || v > 0xff)
			return opts_fail(err, errlen, "'%.*s' is not a byte (00 to ff)",
					 (int)(end - s), s);
		if (n == EDIT_DLINK_MAX)
			return opts_fail(
			    err, errlen,
			    "more than %d bytes: a longer header does not fit in front "
			    "of the frame",
			    EDIT_DLINK_MAX);
		b[n++] = (uint8_t)v;
		if (!*end)
			break;
		if (*end != ',')
			return opts_fail(err, errlen, "'%s': expected a comma after '%.*s'", arg,
					 (int)(end - s), s);
		s = end + 1;
	}
	if (d->n && n != d->len)
		return opts_fail(err, errlen, "the two headers must have as many bytes: %u and %u",
				 (unsigned)d->len, n);
	d->len = (uint8_t)n;
	memcpy(d->b[d->n++], b, n);
	if (d->n == 1) /* once: the same header both ways */
		memcpy(d->b[1], b, n);
	return 0;
}

static bool dlt_wanted(const struct edit_cfg *cfg)
{
	return cfg->dlt != EDIT_DLT_ENET;
}

static int dlt_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	struct pkt *p = c->p;
	struct pkt_layers u;
	const uint8_t *hdr;
	uint8_t hdlc[4];
	uint32_t l2, n;
	uint8_t *d;

	pkt_layers(p->data, p->caplen, &u);
	if (u.l2 != PKT_L2_DONE || u.ethertype < 0x0600)
		return EDIT_DROP;
	l2 = u.l3off;
	switch (cfg->dlt) {
	case EDIT_DLT_RAW:
		if (u.ethertype != ETHERTYPE_IPV4 && u.ethertype != ETHERTYPE_IPV6)
			return EDIT_DROP;
		/* Nothing to write: the view starts at the IP header, wherever the bytes are. */
		p->data += l2;
		p->caplen -= l2;
		p->wirelen = p->wirelen > l2 ? p->wirelen - l2 : 0;
		if (c->zero_from != UINT32_MAX)
			c->zero_from = c->zero_from > l2 ? c->zero_from - l2 : 0;
		goto out;
	case EDIT_DLT_HDLC:
		hdlc[0] = cfg->hdlc_address != EDIT_UNSET ? (uint8_t)cfg->hdlc_address
							  : HDLC_ADDR_UNICAST;
		hdlc[1] = cfg->hdlc_control != EDIT_UNSET ? (uint8_t)cfg->hdlc_control : 0;
		put_be16(hdlc + 2, u.ethertype);
		hdr = hdlc;
		n = sizeof(hdlc);
		break;
	default:
		/* tcprewrite's order: the first header server->client, the second the other way. */
		hdr = cfg->user_dlink.b[edit_direction(c) == DIR_S2C ? 0 : 1];
		n = cfg->user_dlink.len;
		break;
	}
	if (p->caplen - l2 > EDIT_FRAME_MAX - n ||
	    (p->wirelen > l2 && p->wirelen - l2 > UINT32_MAX - n))
		return edit_fail(
		    c, "a %u-byte link-layer header makes the frame longer than the limit (%u)", n,
		    EDIT_FRAME_MAX);
	if (n <= l2) {
		edit_pull(c, 0, l2 - n);
		d = (uint8_t *)p->data;
	} else {
		d = edit_push(c, 0, n - l2);
		if (!d)
			return edit_fail(c, "no room for a %u-byte link-layer header", n);
	}
	memcpy(d, hdr, n);
out:
	p->linktype = (uint16_t)edit_cfg_linktype(cfg);
	c->parsed = false;
	return EDIT_KEEP;
}

const struct edit_ops edit_dlt_ops = {
    .name = "dlt",
    .wanted = dlt_wanted,
    .apply = dlt_apply,
};
