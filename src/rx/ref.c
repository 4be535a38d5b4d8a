// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reference: the trace that was sent (the original, or better the -w
 * output of the same replay command line, which carries every rewrite and
 * the scheduled times).  Each packet is identified exactly as the receiver
 * identifies frames: pkt_id() over the bytes that went on the wire.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/pkt_id.h"
#include "replay/trace.h"
#include "rx.h"

#define RX_REF_FLOW_FLOOR ((size_t)1 << 20) /* flow-table bytes not counted against the cap */

/* Room for @cap packets in every array; on failure the arrays still hold what they held. */
static int grow(struct rx_ref *r, size_t cap)
{
	uint64_t *id, *ts, *recno;
	uint32_t *len, *flow;

	if (!(id = realloc(r->id, cap * sizeof(*id))))
		return -ENOMEM;
	r->id = id;
	if (!(ts = realloc(r->ts_ns, cap * sizeof(*ts))))
		return -ENOMEM;
	r->ts_ns = ts;
	if (!(recno = realloc(r->recno, cap * sizeof(*recno))))
		return -ENOMEM;
	r->recno = recno;
	if (!(len = realloc(r->len, cap * sizeof(*len))))
		return -ENOMEM;
	r->len = len;
	if (!(flow = realloc(r->flow, cap * sizeof(*flow))))
		return -ENOMEM;
	r->flow = flow;
	return 0;
}

int rx_ref_load(struct rx_ref *r, const char *path, uint32_t id_bytes, size_t max_bytes,
		char *err, size_t errlen)
{
	size_t cap = 0, max = (max_bytes ? max_bytes : rx_mem_cap()) / RX_REF_PACKET_BYTES;
	struct trace *t;
	struct rx_flow_key key;
	struct pkt p;
	size_t flow_bytes;
	int64_t flow;
	int rc;

	memset(r, 0, sizeof(*r));
	r->name = path;
	rc = trace_open(&t, path, NULL);
	if (rc < 0) {
		snprintf(err, errlen, "%s", t ? trace_strerror(t) : "out of memory");
		goto out;
	}
	if (!trace_linktype_replayable(trace_linktype(t))) {
		snprintf(err, errlen, "%s: link type %u has no Ethernet form: frames on the wire cannot match it",
			 path, trace_linktype(t));
		rc = -ENOTSUP;
		goto out;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		if (p.linktype != LINKTYPE_ETHERNET) {
			/* replay could not have sent it either; the reader says why. */
			snprintf(err, errlen, "%s", trace_strerror(t));
			rc = -ENOTSUP;
			goto out;
		}
		if (r->n == max) {
			snprintf(err, errlen,
				 "%s: more than %zu packets: the reference would pass replay-rx's memory cap (%zu MiB, an eighth of physical memory)",
				 path, max, max * RX_REF_PACKET_BYTES >> 20);
			rc = -E2BIG;
			goto out;
		}
		if (r->n == cap) {
			cap = cap ? (cap > max / 2 ? max : 2 * cap) : (max < 4096 ? max : 4096);
			if (grow(r, cap) < 0) {
				snprintf(err, errlen, "%s: out of memory at record %llu", path,
					 (unsigned long long)p.recno);
				rc = -ENOMEM;
				goto out;
			}
		}
		/* What went on the wire is the captured bytes: replay sends caplen. */
		r->id[r->n] = pkt_id(p.data, p.caplen, p.caplen, id_bytes);
		r->ts_ns[r->n] = p.ts_ns;
		r->recno[r->n] = p.recno;
		r->len[r->n] = p.caplen;
		rx_flow_parse(p.data, p.caplen, &key);
		if ((flow = rx_flowtab_add(&r->flows, &key)) < 0) {
			snprintf(err, errlen, "%s: out of memory at record %llu", path,
				 (unsigned long long)p.recno);
			rc = -ENOMEM;
			goto out;
		}
		r->flow[r->n] = (uint32_t)flow;
		r->n++;
		/*
		 * The flow table counts against the cap too (at most a key and two
		 * slots per packet), once it is past its first MiB.
		 */
		flow_bytes = r->flows.cap * sizeof(*r->flows.key) +
			     r->flows.nslots * sizeof(*r->flows.slot);
		if ((size_t)flow + 1 == r->flows.n && flow_bytes > RX_REF_FLOW_FLOOR &&
		    r->n * RX_REF_PACKET_BYTES + flow_bytes > max * RX_REF_PACKET_BYTES) {
			snprintf(err, errlen,
				 "%s: %zu flows in %zu packets: the reference would pass replay-rx's memory cap (%zu MiB, an eighth of physical memory)",
				 path, r->flows.n, r->n, max * RX_REF_PACKET_BYTES >> 20);
			rc = -E2BIG;
			goto out;
		}
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", trace_strerror(t));
out:
	trace_close(t);
	if (rc < 0)
		rx_ref_free(r);
	return rc < 0 ? rc : 0;
}

void rx_ref_free(struct rx_ref *r)
{
	free(r->id);
	free(r->ts_ns);
	free(r->recno);
	free(r->len);
	free(r->flow);
	rx_flowtab_free(&r->flows);
	r->id = r->ts_ns = r->recno = NULL;
	r->len = r->flow = NULL;
	r->n = 0;
}
