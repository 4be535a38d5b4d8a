// SPDX-License-Identifier: BSD-2-Clause
/* A run checked against the interface's own TX counters (see replay/checks.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/checks.h"
#include "replay/log.h"
#include "replay/stats.h"

/* How often a lagging counter is read again while it settles. */
#define IFCHECK_POLL_MS 10

int ifcheck_parse(const char *text, const char *ifname, uint64_t *tx_packets,
		  uint64_t *tx_dropped)
{
	size_t nlen = strlen(ifname);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line;
		unsigned long long v[16];
		int n = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, ifname, nlen) || p[nlen] != ':')
			continue;
		p += nlen + 1;
		while (n < 16) {
			char *end;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				break;
			errno = 0;
			v[n] = strtoull(p, &end, 10);
			if (errno)
				return -EINVAL;
			p = end;
			n++;
		}
		/* rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes packets errs drop ... */
		if (n < 12)
			return -EINVAL;
		*tx_packets = v[9];
		*tx_dropped = v[11];
		return 0;
	}
	return -ENOENT;
}

static int read_counters(const char *ifname, uint64_t *txp, uint64_t *txd)
{
	char buf[65536];
	FILE *f = fopen("/proc/self/net/dev", "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return ifcheck_parse(buf, ifname, txp, txd);
}

void ifcheck_begin(struct ifcheck *c, const char *ifname)
{
	memset(c, 0, sizeof(*c));
	if (!ifname || strlen(ifname) >= sizeof(c->ifname))
		return;
	snprintf(c->ifname, sizeof(c->ifname), "%s", ifname);
	c->valid = read_counters(ifname, &c->tx_packets, &c->tx_dropped) == 0;
}

int ifcheck_end(struct ifcheck *c, uint64_t sent, struct stats_lane *st)
{
	struct timespec poll = { 0, IFCHECK_POLL_MS * 1000000L };
	uint64_t txp, txd;

	st->if_valid = false;
	if (!c->valid)
		return 0;
	for (int waited = 0;; waited += IFCHECK_POLL_MS) {
		if (read_counters(c->ifname, &txp, &txd) < 0 || txp < c->tx_packets ||
		    txd < c->tx_dropped)
			return 0; /* gone, or reset: cannot tell */
		if (txp - c->tx_packets >= sent || waited >= IFCHECK_SETTLE_MS)
			break;
		nanosleep(&poll, NULL);
	}
	st->if_valid = true;
	st->if_tx_packets = txp - c->tx_packets;
	st->if_tx_dropped = txd - c->tx_dropped;
	st->if_tx_deficit = sent > st->if_tx_packets ? sent - st->if_tx_packets : 0;
	if (!st->if_tx_deficit)
		return 0;
	log_err("%s: %" PRIu64 " packets reported sent, but the interface counted %" PRIu64
		" leaving it (%" PRIu64 " dropped by it): %" PRIu64 " never left",
		c->ifname, sent, st->if_tx_packets, st->if_tx_dropped, st->if_tx_deficit);
	return 1;
}
