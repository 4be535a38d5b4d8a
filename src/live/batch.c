// SPDX-License-Identifier: BSD-2-Clause
/*
 * The capture thread's batch (src/live/live.c): the pcap records of the frames
 * one pcap_dispatch() hands over, gathered in one buffer so that they cross
 * the pipe in one write() rather than two per frame.  Pure memory, no
 * system calls: the thread writes the buffer out (live.c's flush).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

int live_batch_init(struct live_batch *b, size_t cap)
{
	*b = (struct live_batch){ 0 };
	if (cap < LIVE_REC_BYTES)
		return -EINVAL;
	b->buf = malloc(cap);
	if (!b->buf)
		return -ENOMEM;
	b->cap = cap;
	return 0;
}

void live_batch_free(struct live_batch *b)
{
	free(b->buf);
	*b = (struct live_batch){ 0 };
}

bool live_batch_add(struct live_batch *b, uint64_t mono_ns, const uint8_t *data, uint32_t caplen,
		    uint32_t len)
{
	uint32_t rec[4] = { (uint32_t)(mono_ns / 1000000000ull), (uint32_t)(mono_ns % 1000000000ull), caplen,
			    len };

	if (!live_batch_fits(b, caplen))
		return false;
	memcpy(b->buf + b->len, rec, sizeof(rec));
	memcpy(b->buf + b->len + sizeof(rec), data, caplen);
	b->len += sizeof(rec) + caplen;
	b->n++;
	return true;
}

uint64_t live_mono_ns(uint64_t real_ns, int64_t real_minus_mono)
{
	return (int64_t)real_ns > real_minus_mono ? real_ns - (uint64_t)real_minus_mono : 0;
}
