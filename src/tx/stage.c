// SPDX-License-Identifier: BSD-2-Clause
/*
 * The staging FIFO shared by the methods whose kernel interface takes
 * pointers (packet, mmsg, uring, raw), and what they stage: Ethernet frames,
 * frames behind a vnet header (--gso), or on a layer-3 interface the IP
 * packets in them.  A copy per frame is the price of letting the trace
 * reader reuse its view at once; measured with callgrind it is ~0.1
 * instructions per byte (BENCHMARKS.md), far below the syscall it feeds.
 * The ring and xdp methods copy straight into kernel-shared memory instead
 * and do not use this.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <sys/mman.h>

#include "replay/layers.h"
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
	const uint32_t max = tx->mtu + ETH_HDR_BYTES;
	unsigned k = MIN(n, s->slots - s->n), slot, i;
	uint8_t *o;
	int rc = -EAGAIN;

	/* The run's slots in a row from the first free one, wrapped once: no index per frame. */
	slot = stage_slot(s, s->n);
	o = s->buf + (size_t)slot * s->slot_bytes;
	for (i = 0; i < k; i++) {
		uint32_t len = v[i].caplen;

		/* netdev_frame_check(), its common case hoisted. */
		if (unlikely(len < ETH_HDR_BYTES || len > max) && (rc = netdev_frame_check_slow(tx, &v[i])) < 0)
			break;
		stage_copy(o, v[i].data, len);
		s->len[slot] = len;
		if (unlikely(++slot == s->slots)) {
			slot = 0;
			o = s->buf;
		} else {
			o += s->slot_bytes;
		}
	}
	s->n += i;
	return i ? (int)i : rc;
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

/* Why frame @p, found to be @kind (enum pkt_l3) at @sp, cannot go out of a layer-3 interface. */
static int l3_refuse(struct tx *tx, const struct pkt *p, int kind, const struct pkt_l3_span *sp)
{
	switch (kind) {
	case PKT_L3_SHORT:
		return tx_err(tx, -EINVAL, "frame of %u bytes is shorter than an Ethernet header (%u)",
			      p->caplen, ETH_HDR_BYTES);
	case PKT_L3_NOT_IP:
		return tx_err(tx, -EINVAL,
			      "EtherType 0x%04x is not IP: %s is a layer-3 interface (%s), which takes only IPv4 and IPv6 packets",
			      sp->ethertype, tx->dev, tx->l3);
	case PKT_L3_CUT:
		if (!sp->ethertype)
			return tx_err(tx, -EINVAL, "frame of %u bytes ends inside a VLAN tag", p->caplen);
		if (!sp->len)
			return tx_err(tx, -EINVAL,
				      "IP header captured only in part (%u-byte frame): a layer-3 interface takes whole packets",
				      p->caplen);
		return tx_err(tx, -EINVAL,
			      "IP packet of %u bytes captured only in part (%u bytes): a layer-3 interface takes whole packets",
			      sp->len, p->caplen - sp->off);
	case PKT_L3_BAD:
		return tx_err(tx, -EINVAL, "IPv%c header malformed (its version or length): not sent on %s",
			      sp->ethertype == 0x0800 ? '4' : '6', tx->dev);
	default:
		return tx_err(tx, -EMSGSIZE, "IP packet of %u bytes exceeds %s's MTU %u", sp->len, tx->dev,
			      tx->mtu);
	}
}

int stage_l3_frames(struct tx *tx, struct stage *s, struct sockaddr_ll *addr, const struct pkt *v,
		    unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct pkt_l3_span sp;
		int kind, rc;

		if (s->n == s->slots)
			return i ? (int)i : -EAGAIN;
		kind = pkt_l3_find(v[i].data, v[i].caplen, &sp);
		if (unlikely(kind != PKT_L3_IP || sp.len > tx->mtu)) {
			/* A frame after the first is offered again first next time: counted then. */
			if (i)
				return (int)i;
			rc = l3_refuse(tx, &v[i], kind, &sp);
			if (kind == PKT_L3_NOT_IP || kind == PKT_L3_SHORT)
				tx->not_ip++;
			return rc;
		}
		addr[stage_slot(s, s->n)].sll_protocol = htons(sp.ethertype);
		(void)stage_push(s, v[i].data + sp.off, sp.len); /* room checked above */
	}
	return (int)n;
}

int stage_settle(struct stage *s, int rc)
{
	if (rc != -EAGAIN && rc != -ENOBUFS && rc != -EINTR && !tx_fatal(rc))
		stage_pop(s, 1);
	return rc;
}
