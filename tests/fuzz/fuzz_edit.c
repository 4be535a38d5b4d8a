// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the edit chain: random packets under random option sets.  The first
 * 8 bytes choose the options (and the MTU, TTL, ports; fuzz_editcfg.h); the
 * rest is a frame of up to one byte past PKT_FRAME_MAX_BYTES, whose wire
 * length is claimed to be longer than what is there, as a short snap length
 * would leave it -- by up to 185 bytes, to just past the frame limit, or to
 * the top of 32 bits.  Every edit must stay inside the bytes it has and the
 * buffer it owns (ASan/UBSan watch), and no frame it keeps may exceed the
 * limit.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_editcfg.h"
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

	/* Up to one byte past the frame limit: the chain must refuse that one, not copy it. */
	if (size < 8 || size - 8 > PKT_FRAME_MAX_BYTES + 1)
		return 0;
	memcpy(&o, data, 8);
	fuzz_edit_cfg(o, &c);
	if (edit_cfg_check(&c, err, sizeof(err)) < 0)
		return 0;
	/* An exact-size heap copy: ASan catches any read past caplen. */
	p.caplen = (uint32_t)(size - 8);
	frame = malloc(p.caplen ? p.caplen : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 8, p.caplen);
	p.data = frame;
	switch ((o >> 56) & 0x7) {
	case 6: /* just past the limit: padding after a VLAN tag is pulled */
		p.wirelen = PKT_FRAME_MAX_BYTES + 1 + (uint32_t)((o >> 32) & 3);
		break;
	case 7: /* at the top of 32 bits: pushes and conversions must not wrap */
		p.wirelen = UINT32_MAX - (uint32_t)((o >> 32) & 7);
		break;
	default:
		p.wirelen = p.caplen + (uint32_t)((o >> 56) & 0x7) * 37;
	}
	if (edit_chain_new(&ch, &c) == 0) {
		/* Twice: the second packet sees the buffer state the first one left. */
		for (int i = 0; i < 2; i++) {
			struct pkt q = p;
			int rc;

			/* The side -c/--split would give (0: the chain's own first mode). */
			edit_chain_set_side(ch, (int)((o >> (12 + i)) & 3) % 3);
			rc = edit_chain_apply(ch, &q);

			if (rc == EDIT_KEEP && q.caplen > PKT_FRAME_MAX_BYTES)
				abort();
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
