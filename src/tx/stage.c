// SPDX-License-Identifier: BSD-2-Clause
/*
 * The staging FIFO shared by the methods whose kernel interface takes
 * pointers (packet, mmsg, uring, raw).  A copy per frame is the price of
 * letting the trace reader reuse its view at once; measured with callgrind
 * it is ~0.1 instructions per byte (BENCHMARKS.md), far below the syscall it
 * feeds.  The ring and xdp methods copy straight into kernel-shared memory
 * instead and do not use this.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_net.h>
#include <sys/mman.h>

#include "replay/segment.h"

#include "tx_int.h"

int stage_init(struct stage *s, unsigned slots, uint32_t slot_bytes)
{
	size_t bytes = (size_t)slots * slot_bytes;

	memset(s, 0, sizeof(*s));
	/* Anonymous mapping: page-aligned, and touched up front so the hot path takes no faults. */
	s->buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		      -1, 0);
	if (s->buf == MAP_FAILED) {
		s->buf = NULL;
		return -ENOMEM;
	}
	s->len = calloc(slots, sizeof(*s->len));
	if (!s->len) {
		munmap(s->buf, bytes);
		s->buf = NULL;
		return -ENOMEM;
	}
	s->slots = slots;
	s->slot_bytes = slot_bytes;
	return 0;
}

void stage_free(struct stage *s)
{
	if (s->buf)
		munmap(s->buf, (size_t)s->slots * s->slot_bytes);
	free(s->len);
	memset(s, 0, sizeof(*s));
}

int stage_frames(struct tx *tx, struct stage *s, const struct pkt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int rc = netdev_frame_check(tx, &v[i]);

		if (rc == 0)
			rc = stage_push(s, v[i].data, v[i].caplen);
		if (rc < 0)
			return i ? (int)i : rc;
	}
	return (int)n;
}

/* One frame behind its vnet header into the next slot (the stage has room). */
static int stage_vnet_one(struct tx *tx, struct stage *s, const struct pkt *p)
{
	const size_t hl = sizeof(struct virtio_net_hdr);
	unsigned i = stage_slot(s, s->n);
	uint8_t *o = s->buf + (size_t)i * s->slot_bytes;
	struct virtio_net_hdr h;
	uint32_t wire = p->caplen;
	int rc = netdev_frame_check(tx, p);

	if (rc == -EMSGSIZE && segment_vnet(p->data, p->caplen, tx->mtu, &h, &wire) > 0 &&
	    hl + wire <= s->slot_bytes) {
		memcpy(o, &h, hl);
		memcpy(o + hl, p->data, wire);
		segment_vnet_fix(o + hl, wire, &h);
	} else if (rc == 0) {
		memset(o, 0, hl);
		memcpy(o + hl, p->data, p->caplen);
	} else {
		return rc;
	}
	s->len[i] = (uint32_t)hl + wire;
	s->n++;
	return 0;
}

int stage_vnet_frames(struct tx *tx, struct stage *s, const struct pkt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int rc = s->n == s->slots ? -EAGAIN : stage_vnet_one(tx, s, &v[i]);

		if (rc < 0)
			return i ? (int)i : rc;
	}
	return (int)n;
}

int stage_settle(struct stage *s, int rc)
{
	if (rc != -EAGAIN && rc != -ENOBUFS && rc != -EINTR && !tx_fatal(rc))
		stage_pop(s, 1);
	return rc;
}
