// SPDX-License-Identifier: BSD-2-Clause
/*
 * PACKET_TX_RING (TPACKET_V2): frames are written straight into a ring the
 * kernel shares with us, and one send() kicks every frame that is ready.
 * A ring frame's owner, by its tp_status (each hand-off a named function):
 *   AVAILABLE     ours: send() may fill it (user_may_fill());
 *   SEND_REQUEST  filled and handed over (hand_to_kernel()), but looked at
 *                 only when kicked (send(fd, NULL, 0)): send() stages ahead
 *                 of the deadline, flush() is the kick at it, and until the
 *                 kick discard() may take it back (take_back_from_kernel());
 *   SENDING       the kernel built an skb from it; AVAILABLE again once the
 *                 skb is freed (tpacket_destruct_skb);
 *   WRONG_FORMAT  the kernel refused it (PACKET_LOSS is not set, so it stops
 *                 there rather than skipping it silently).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tx_int.h"

/* Ring memory: 4 MiB holds 2048 standard frames in flight; enough to ride out a scheduler tick. */
#define RING_BYTES (4u << 20)
#define RING_BLOCK_BYTES (1u << 16)
/* Back-off while the kernel still owns the frame we need or the device is full. */
#define BACKOFF_NS 10000

struct ring_state {
	int fd;
	uint8_t *map;        /* the ring, frame_nr * frame_bytes */
	size_t map_bytes;
	uint32_t frame_bytes; /* bytes per frame slot, header included */
	uint32_t frame_nr;    /* frames in the ring */
	uint32_t prod;        /* next frame to fill */
	uint32_t n;           /* frames staged (SEND_REQUEST, not yet taken) before prod */
	uint32_t stage_max;   /* most frames staged at once */
};

/* Frame data starts right after the aligned V2 header (no tp_tx_has_off). */
#define DATA_OFF TPACKET_ALIGN(sizeof(struct tpacket2_hdr))

static inline struct tpacket2_hdr *frame(const struct ring_state *s, uint32_t i)
{
	return (struct tpacket2_hdr *)(s->map + (size_t)(i % s->frame_nr) * s->frame_bytes);
}

/*
 * The hand-offs of a frame between us and the kernel, each named, as the
 * receiver's ring does (src/rx/capture.c).  status_of() is the one read of
 * the status word, with acquire ordering: whatever the kernel did to a frame
 * before it set the status is visible once we see the status.
 */
static inline uint32_t status_of(const struct tpacket2_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

/* user_may_fill() - the frame is ours: never handed over, or the kernel freed its skb. */
static inline bool user_may_fill(const struct tpacket2_hdr *h)
{
	return status_of(h) == TP_STATUS_AVAILABLE;
}

/*
 * hand_to_kernel() - the frame is filled: the next kick sends it.  Release,
 * so that its bytes and length are visible before the status says so.
 */
static inline void hand_to_kernel(struct tpacket2_hdr *h)
{
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
}

/*
 * take_back_from_kernel() - un-hand a frame the kernel has not been kicked
 * to look at yet (discard): it is ours again, unsent.
 */
static inline void take_back_from_kernel(struct tpacket2_hdr *h)
{
	__atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
}

static int ring_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct ring_state *s;
	struct tpacket_req req;
	struct netdev nd;
	int rc, v = TPACKET_V2, sndbuf;
	uint32_t need, per_block, block_bytes;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->fd = -1;
	s->map = MAP_FAILED;
	tx->priv = s;
	rc = netdev_packet_socket(tx, cfg, &nd);
	if (rc < 0)
		return rc;
	s->fd = rc;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0)
		return tx_err(tx, -errno, "%s: TPACKET_V2 not available: %s", tx->dev, strerror(errno));
	/* A frame slot holds the header and the largest frame the MTU allows, rounded to a power of two. */
	need = DATA_OFF + stage_slot_bytes(tx->mtu);
	s->frame_bytes = 2048;
	while (s->frame_bytes < need)
		s->frame_bytes <<= 1;
	block_bytes = s->frame_bytes > RING_BLOCK_BYTES ? s->frame_bytes : RING_BLOCK_BYTES;
	per_block = block_bytes / s->frame_bytes;
	req.tp_block_size = block_bytes;
	req.tp_block_nr = RING_BYTES / block_bytes ? RING_BYTES / block_bytes : 1;
	if (req.tp_block_nr < 4)
		req.tp_block_nr = 4;
	req.tp_frame_size = s->frame_bytes;
	req.tp_frame_nr = req.tp_block_nr * per_block;
	s->frame_nr = req.tp_frame_nr;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0)
		return tx_err(tx, -errno, "%s: cannot set up a TX ring of %u frames: %s", tx->dev,
			      s->frame_nr, strerror(errno));
	s->map_bytes = (size_t)req.tp_block_nr * req.tp_block_size;
	s->map = mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s->fd, 0);
	if (s->map == MAP_FAILED)
		return tx_err(tx, -errno, "%s: cannot map the TX ring: %s", tx->dev, strerror(errno));
	/*
	 * Every frame in flight (SENDING) holds an skb charged to the socket's
	 * send buffer; the default (~200 KiB) would stall a kick after ~200
	 * frames with EAGAIN.  Make room for the whole ring (root may exceed
	 * wmem_max; others get what they may).
	 */
	sndbuf = (int)(s->frame_nr * (s->frame_bytes + 1024u));
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	tx->batch = tx_batch(cfg);
	s->stage_max = tx->batch < s->frame_nr / 2 ? tx->batch : s->frame_nr / 2;
	tx->batch = s->stage_max;
	snprintf(tx->mode, sizeof(tx->mode), "%u frames of %u bytes%s", s->frame_nr, s->frame_bytes,
		 cfg->qdisc_bypass ? ", qdisc bypassed" : "");
	return 0;
}

static int ring_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct ring_state *s = tx->priv;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct tpacket2_hdr *h = frame(s, s->prod);
		int rc = netdev_frame_check(tx, &v[i]);

		if (rc == 0 && (s->n == s->stage_max || !user_may_fill(h)))
			rc = -EAGAIN; /* stage full, or the kernel has not freed this frame yet */
		if (rc < 0)
			return i ? (int)i : rc;
		memcpy((uint8_t *)h + DATA_OFF, v[i].data, v[i].caplen);
		h->tp_len = v[i].caplen;
		h->tp_snaplen = v[i].caplen;
		hand_to_kernel(h);
		s->prod = (s->prod + 1) % s->frame_nr;
		s->n++;
	}
	return (int)n;
}

/*
 * The kernel walks the ring in order from its own head and stops at the
 * first frame that is not SEND_REQUEST; a frame the device refused (qdisc
 * full) is put back to SEND_REQUEST and retried on the next kick.  So after
 * a kick, the staged frames that are no longer SEND_REQUEST are exactly the
 * prefix the kernel took: that is what flush() reports.
 */
static int ring_flush(struct tx *tx)
{
	struct ring_state *s = tx->priv;
	uint32_t first, taken = 0;
	int rc, err = 0;

	if (!s->n)
		return 0;
	/* The kick: the kernel sends every SEND_REQUEST frame from its head on, without waiting. */
	rc = (int)send(s->fd, NULL, 0, MSG_DONTWAIT);
	if (rc < 0)
		err = errno;
	first = (s->prod + s->frame_nr - s->n) % s->frame_nr;
	while (taken < s->n) {
		uint32_t st = status_of(frame(s, first + taken));

		if (st == TP_STATUS_SEND_REQUEST)
			break;
		if (st & TP_STATUS_WRONG_FORMAT) {
			/* The kernel will not move past it (it keeps its head there): the ring is stuck. */
			if (taken)
				break;
			return tx_err(tx, -ENXIO,
				      "%s: the kernel refused a %u-byte ring frame (was the MTU lowered mid-run?); the ring cannot go on",
				      tx->dev, frame(s, first)->tp_len);
		}
		taken++;
	}
	if (taken) {
		s->n -= taken;
		return (int)taken;
	}
	if (!err)
		err = EAGAIN; /* nothing taken, nothing said: the kernel is out of skbs; try again */
	rc = netdev_send_err(tx, err, frame(s, first)->tp_len);
	if (rc == -EAGAIN && netdev_still_up(tx) < 0)
		return netdev_still_up(tx);
	return rc;
}

static void ring_discard(struct tx *tx)
{
	struct ring_state *s = tx->priv;

	/* The kernel's head is at the oldest staged frame: taking them back keeps us in step. */
	while (s->n) {
		s->prod = (s->prod + s->frame_nr - 1) % s->frame_nr;
		take_back_from_kernel(frame(s, s->prod));
		s->n--;
	}
}

static int ring_wait(struct tx *tx, int err)
{
	/*
	 * poll() cannot help: its POLLOUT looks at the kernel's head frame,
	 * which is SEND_REQUEST while we stage ahead.  Frames come back within
	 * microseconds on a working device, so back off briefly.
	 */
	(void)tx;
	(void)err;
	netdev_sleep_ns(BACKOFF_NS);
	return 0;
}

/* Wait for every frame back AVAILABLE (tcpreplay 4.6 closes at once and loses the last). */
static int ring_drain(struct tx *tx)
{
	struct ring_state *s = tx->priv;

	for (int waited = 0; waited < TX_DRAIN_TIMEOUT_MS; waited++) {
		uint32_t busy = 0;

		for (uint32_t i = 0; i < s->frame_nr; i++)
			if (!user_may_fill(frame(s, i)))
				busy++;
		if (!busy)
			return netdev_wait_outq(tx, s->fd);
		netdev_sleep_ns(1000000);
	}
	return tx_err(tx, -ETIMEDOUT, "%s: ring frames still in flight after %d ms", tx->dev,
		      TX_DRAIN_TIMEOUT_MS);
}

static void ring_close(struct tx *tx)
{
	struct ring_state *s = tx->priv;

	if (!s)
		return;
	if (s->map != MAP_FAILED)
		munmap(s->map, s->map_bytes);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_ring_ops = {
	.name = "ring",
	.open = ring_open,
	.send = ring_send,
	.flush = ring_flush,
	.discard = ring_discard,
	.wait = ring_wait,
	.drain = ring_drain,
	.close = ring_close,
};
