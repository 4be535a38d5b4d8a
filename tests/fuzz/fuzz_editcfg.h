/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An edit chain configuration chosen by 64 bits of fuzz input, shared by the
 * edit and pipeline targets: every edit, the pair forms, and the values
 * (MTU, TTL, VLAN tag, ports) that steer them.  The caller runs
 * edit_cfg_check() on the result, as the option parser would.
 */
#ifndef FUZZ_EDITCFG_H
#define FUZZ_EDITCFG_H

#include <stdint.h>

#include "replay/edit.h"

static inline void fuzz_edit_cfg(uint64_t o, struct edit_cfg *cfg)
{
	struct edit_cfg c = EDIT_CFG_DEFAULTS;
	char err[256];

	if (o & 1)
		edit_parse_macs(&c.dmac, (o & 2) ? "00:11:22:33:44:55,00:66:77:88:99:aa" : "0:1:2:3:4:5", err,
				sizeof(err));
	if (o & 4)
		edit_parse_macs(&c.smac, "02:00:00:00:00:01", err, sizeof(err));
	if (o & 8) {
		c.vlan = (o & 16) ? EDIT_VLAN_DEL : EDIT_VLAN_ADD;
		/* A tag only with add: with del, edit_cfg_check() refuses it, and the old fuzz_edit
		 * set it always, so it never reached VLAN del at all. */
		if (c.vlan == EDIT_VLAN_ADD)
			c.vlan_tag = (o >> 8) & 0xfff;
	}
	if (o & 32)
		edit_parse_pnat(&c.pnat, (o & 64) ? "0.0.0.0/1:10.0.0.0/7,[::/1]:[fd00::/9]"
						  : "128.0.0.0/1:1.2.3.0/24,[8000::/1]:[2001:db8::/33]",
				err, sizeof(err));
	else if (o & 64)
		edit_parse_cidrmap(&c.srcipmap, "0.0.0.0/0:192.0.2.0/24,[::/0]:[2001:db8::/64]", err,
				   sizeof(err));
	if (o & 128)
		edit_parse_portmap(&c.portmap, "0-1023:80,1024-65535:8080", err, sizeof(err));
	if (o & (1ull << 20))
		c.seed = (o >> 32) & 0xffff;
	if (o & (1ull << 21)) {
		c.ttl.mode = (enum edit_ttl_mode)(1 + ((o >> 22) % 3));
		c.ttl.val = (uint8_t)(o >> 24);
	}
	if (o & (1ull << 25))
		c.tos = (o >> 40) & 0xff;
	if (o & (1ull << 26)) {
		c.mtu_trunc = true;
		c.mtu = 1 + ((o >> 48) & 0x7ff);
	}
	if (o & (1ull << 27))
		c.fixlen = (enum edit_fixlen_mode)(1 + ((o >> 28) % 3));
	if (o & (1ull << 30))
		c.fixcsum = true;
	if (o & (1ull << 31))
		c.skipbroadcast = true;
	if ((o & (1ull << 59)) && c.fixlen != EDIT_FIXLEN_PAD && c.fixlen != EDIT_FIXLEN_TRUNC)
		c.pad_payload = true;
	if (o & (1ull << 60))
		c.filter = (o & (1ull << 61)) ? "ip6 or vlan" : "tcp or udp";
	if (o & (1ull << 62))
		edit_parse_pktlist(&c.exclude, "P:2-", err, sizeof(err));
	/* Bit 63 turns on the edits added later (--tcp-sequence, --fixhdrlen, --efcs, --tclass,
	 * --flowlabel, --enet-subsmac, --enet-mac-seed, --fuzz-seed, --skip-soft-errors, --pktlen, --dlt), chosen by a mix of the whole word so that inputs without it keep
	 * their meaning and the corpus stays useful. */
	if (o & (1ull << 63)) {
		uint64_t x = (o ^ (o >> 29)) * 0xbf58476d1ce4e5b9ull;

		x ^= x >> 32;
		if (x & 1)
			c.tcp_seq = 1 + ((x >> 8) & 0xffffff);
		if ((x & 2) && !c.pad_payload)
			c.fixhdrlen = true;
		if (x & 4)
			c.efcs = true;
		if (x & 8)
			c.tclass = (x >> 40) & 0xff;
		if (x & 16)
			c.flowlabel = (x >> 44) & 0xfffff;
		/* -e/--endpoints, IPv4 or IPv6, where no address map excludes it. */
		if ((x & (1ull << 61)) && !c.pnat.n && !c.srcipmap.n)
			edit_parse_endpoints(&c.endpoints, (x & (1ull << 62)) ? "[2001:db8::1]:[fd00::2]" : "10.1.1.1:10.2.2.2",
					     err, sizeof(err));
		if (x & 32)
			edit_parse_subsmac(&c.subsmac, "02:00:00:00:00:01,00:00:00:00:00:0a,ff:ff:ff:ff:ff:ff,0:1:2:3:4:5",
					   err, sizeof(err));
		/* --enet-mac-seed (alone: it excludes the other MAC edits), --fuzz-seed (not with
		 * --seed), --skip-soft-errors. */
		if ((x & 64) && !c.dmac.n && !c.smac.n && !c.subsmac.n) {
			c.mac_seed = (x >> 16) & 0xffff;
			c.mac_seed_keep = (x >> 50) % 7;
		}
		if ((x & 128) && c.seed == EDIT_UNSET) {
			c.fuzz_seed = (x >> 20) & 0xffff;
			c.fuzz_factor = (x & 512) ? 1 + ((x >> 56) & 3) : EDIT_UNSET;
		}
		if (x & 256)
			c.skip_soft = true;
		if ((x & (1ull << 60)) && !c.pad_payload) /* --pktlen (refused beside --pad-payload) */
			c.pktlen = true;
		/* --dlt raw, user or hdlc, where no edit of the Ethernet header excludes it. */
		if ((x & (1ull << 57)) && !c.dmac.n && !c.smac.n && !c.subsmac.n && c.vlan == EDIT_VLAN_NONE &&
		    c.mac_seed == EDIT_UNSET) {
			c.dlt = (enum edit_dlt)(1 + ((x >> 58) % 3));
			if (c.dlt == EDIT_DLT_USER)
				edit_parse_dlink(&c.user_dlink, (x & 1024) ? "0,1,2,3,4,5,6,7,8,9,a,b,c,d,e,f,10,11,12,13" : "f",
						 err, sizeof(err));
			if (c.dlt == EDIT_DLT_HDLC && (x & 2048))
				c.hdlc_address = 0x8f;
		}
	}
	*cfg = c;
}

#endif
