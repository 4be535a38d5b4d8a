// SPDX-License-Identifier: BSD-2-Clause
/*
 * -r: a capture made earlier (by tcpdump, by replay-rx -w, any format the
 * project's readers take) goes through the same sink as a live capture, so
 * the analysis and the report are the same.  VLAN tags are in the frames.
 * Link types replay sends as Ethernet (raw IP, BSD loopback, Linux cooked)
 * are converted by the reader exactly as replay converts them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay/trace.h"
#include "rx.h"

int rx_offline_run(const char *path, const struct rx_filter *filter, struct rx_sink *sink,
		   volatile sig_atomic_t *sig, void (*ready)(void *ctx), void *ctx, char *err,
		   size_t errlen)
{
	struct trace *t;
	struct pkt p;
	int rc = trace_open(&t, path, NULL);

	if (rc < 0) {
		snprintf(err, errlen, "%s", t ? trace_strerror(t) : "out of memory");
		goto out;
	}
	if (!trace_linktype_replayable(trace_linktype(t))) {
		snprintf(err, errlen, "%s: link type %u has no Ethernet form", path,
			 trace_linktype(t));
		rc = -ENOTSUP;
		goto out;
	}
	if (ready)
		ready(ctx);
	while (!*sig && (rc = trace_next(t, &p)) == 1) {
		if (p.linktype != LINKTYPE_ETHERNET) {
			/* The reader could not make an Ethernet frame of it; it says why. */
			snprintf(err, errlen, "%s", trace_strerror(t));
			rc = -ENOTSUP;
			break;
		}
		if (!rx_filter_match(filter, p.data, p.caplen, p.wirelen))
			continue;
		rc = rx_sink_take(sink, p.data, p.caplen, p.wirelen, p.ts_ns, 0);
		if (rc)
			break;
	}
	if (rc < 0 && sink->err == rc) {
		char why[256];

		snprintf(err, errlen, "%s: %s", path, rx_sink_strerror(sink, rc, why, sizeof(why)));
	} else if (rc < 0 && rc != -ENOTSUP) {
		snprintf(err, errlen, "%s", trace_strerror(t));
	}
out:
	trace_close(t);
	return rc < 0 ? rc : 0;
}
