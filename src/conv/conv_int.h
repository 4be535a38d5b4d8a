/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside src/conv/: the frame walk the reassembly reads packets through. */
#ifndef CONV_INT_H
#define CONV_INT_H

#include <stdint.h>

#include "replay/conv.h"

enum {
	CONV_TCP_FIN = 0x01,
	CONV_TCP_SYN = 0x02,
	CONV_TCP_RST = 0x04,
	CONV_TCP_ACK = 0x10,
};

enum conv_parse_rc {
	CONV_P_OK,
	CONV_P_OTHER,     /* not TCP or UDP over IP */
	CONV_P_FRAGMENT,
	CONV_P_MALFORMED,
};

/*
 * conv_parse() - walk @p (Ethernet, stacked 802.1Q/802.1ad tags, IPv4 or IPv6
 * with extension headers) down to TCP or UDP.  The one place frames are
 * dissected in src/conv/.
 */
enum conv_parse_rc conv_parse(const struct pkt *p, struct conv_l4 *f);

#endif
