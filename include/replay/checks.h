/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checks of a run against what the system itself saw.
 *
 * The interface's TX counter.  A method reports a packet sent when the
 * kernel took it; the interface's own tx_packets says how many frames left.
 * They differ when the kernel drops what it took -- a raw IP socket whose
 * next hop does not resolve sends ARP requests instead of the packets -- so
 * after a run on an interface the counters (from /proc/self/net/dev, the
 * run's own network namespace, 64-bit) are compared with the packets
 * reported sent.  Only a deficit can be told apart from other traffic on
 * the interface (which only adds), so only a deficit is an error; the
 * counters may lag, so a deficit is first waited out for up to
 * IFCHECK_SETTLE_MS.
 */
#ifndef REPLAY_CHECKS_H
#define REPLAY_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

struct stats_lane;

#define IFCHECK_SETTLE_MS 2000

struct ifcheck {
	bool valid;              /* the counters were read before the run */
	char ifname[64];
	uint64_t tx_packets, tx_dropped; /* before the run */
};

/*
 * ifcheck_parse() - the tx_packets and tx_dropped of @ifname in @text, the
 * contents of /proc/net/dev.  0, or -ENOENT (no such line) / -EINVAL.
 */
int ifcheck_parse(const char *text, const char *ifname, uint64_t *tx_packets,
		  uint64_t *tx_dropped);

/* ifcheck_begin() - read @ifname's counters before the run; @c->valid says whether it could. */
void ifcheck_begin(struct ifcheck *c, const char *ifname);

/*
 * ifcheck_end() - after the run (drained): read the counters again, fill
 * @st's if_* fields, and log a deficit against @sent as an error.  Returns
 * 1 on a deficit, 0 when none (or when it cannot tell: @st->if_valid false).
 */
int ifcheck_end(struct ifcheck *c, uint64_t sent, struct stats_lane *st);

#endif
