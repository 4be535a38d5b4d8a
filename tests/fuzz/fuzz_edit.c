// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the edit chain: random packets under random option sets.  The first
 * 8 bytes choose the options (and the MTU, TTL, ports); the rest is a frame,
 * whose wire length is claimed to be up to 255 bytes longer than what is
 * there, as a short snap length would leave it.  Every edit must stay inside
 * the bytes it has and the buffer it owns (ASan/UBSan watch).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/edit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct edit_cfg c = EDIT_CFG_DEFAULTS;
	struct edit_chain *ch;
	char err[256];
	uint64_t o;
	uint8_t *frame;
	struct pkt p = { .linktype = LINKTYPE_ETHERNET, .recno = 1 };

	if (size < 8 || size - 8 > 65535)
		return 0;
	memcpy(&o, data, 8);
	if (o & 1)
		edit_parse_macs(&c.dmac, (o & 2) ? "00:11:22:33:44:55,00:66:77:88:99:aa" : "0:1:2:3:4:5", err,
				sizeof(err));
	if (o & 4)
		edit_parse_macs(&c.smac, "02:00:00:00:00:01", err, sizeof(err));
	if (o & 8) {
		c.vlan = (o & 16) ? EDIT_VLAN_DEL : EDIT_VLAN_ADD;
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
	if (edit_cfg_check(&c, err, sizeof(err)) < 0)
		return 0;
	/* An exact-size heap copy: ASan catches any read past caplen. */
	p.caplen = (uint32_t)(size - 8);
	frame = malloc(p.caplen ? p.caplen : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 8, p.caplen);
	p.data = frame;
	p.wirelen = p.caplen + (uint32_t)((o >> 56) & 0x7) * 37;
	if (edit_chain_new(&ch, &c) == 0) {
		/* Twice: the second packet sees the buffer state the first one left. */
		for (int i = 0; i < 2; i++) {
			struct pkt q = p;
			int rc = edit_chain_apply(ch, &q);

			if (rc == EDIT_KEEP && q.caplen) {
				volatile uint8_t sink = q.data[q.caplen - 1];
				(void)sink;
			}
		}
	}
	edit_chain_free(ch);
	free(frame);
	return 0;
}
