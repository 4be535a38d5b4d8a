/* SPDX-License-Identifier: BSD-2-Clause */
/* Private to src/tx/: the method registry and what wire methods share. */
#ifndef REPLAY_TX_INT_H
#define REPLAY_TX_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/tx.h"

#include "config.h"

extern const struct tx_ops tx_packet_ops;
extern const struct tx_ops tx_mmsg_ops;
extern const struct tx_ops tx_ring_ops;
#if HAVE_LIBURING
extern const struct tx_ops tx_uring_ops;
#endif
#if HAVE_LIBXDP
extern const struct tx_ops tx_xdp_ops;
#endif
extern const struct tx_ops tx_raw_ops;
extern const struct tx_ops tx_file_ops;

/* tx_err() - set tx->err; returns @err (a negative errno). */
int tx_err(struct tx *tx, int err, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* tx_mode_add() - add one item to tx->mode's comma-separated list of how the method runs (cut at its size). */
void tx_mode_add(struct tx *tx, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* What a wire method needs to know about its interface. */
struct netdev {
	int ifindex;
	uint32_t mtu;        /* bytes of payload after the link-layer header */
	unsigned flags;      /* IFF_* */
	unsigned short type; /* ARPHRD_* */
};

/*
 * netdev_open_check() - look @ifname up and make sure frames can go out of
 * it: it exists, is up, has a carrier and takes Ethernet frames -- or, for a
 * method with TX_F_L3 (tx->ops), has no link-layer header (netdev_l3_kind()),
 * which sets tx->l3.  Returns 0, or -errno with the reason in tx->err
 * (-ENODEV missing, -ENETDOWN down or no carrier, -ENOTSUP neither Ethernet
 * nor layer 3, -EPROTONOSUPPORT layer 3 and the method without TX_F_L3).
 */
int netdev_open_check(struct tx *tx, const char *ifname, struct netdev *nd);

/*
 * netdev_l3_kind() - is @ifname, of ARPHRD @type, an interface without a
 * link-layer header?  If so, true with its kind in @kind (@len bytes): its
 * driver's name ("tun", "wireguard", "ipip", "gre"...), or where the driver
 * does not say, the type's ("none", "ipip", "ip6tnl", "sit", "gre",
 * "ip6gre", "ppp", "rawip").  False for any other type (Ethernet among them).
 */
bool netdev_l3_kind(const char *ifname, unsigned short type, char *kind, size_t len);

/* netdev_query() - as netdev_open_check() for any link type (raw IP sends on tun, WireGuard...). */
int netdev_query(struct tx *tx, const char *ifname, struct netdev *nd);

/*
 * netdev_frame_check() - can this Ethernet frame go out of an interface with
 * @mtu?  The same rule as the kernel's packet_snd(): up to MTU + 14 bytes,
 * 4 more for an 802.1Q-tagged frame.  0, -EINVAL (shorter than an Ethernet
 * header) or -EMSGSIZE, with the reason in tx->err.
 */
int netdev_frame_check_slow(struct tx *tx, const struct pkt *p);

static inline int netdev_frame_check(struct tx *tx, const struct pkt *p)
{
	/* Inline, for every frame: the common case (no longer than MTU + header) is one range check. */
	if (likely(p->caplen >= ETH_HDR_BYTES && p->caplen <= tx->mtu + ETH_HDR_BYTES))
		return 0;
	return netdev_frame_check_slow(tx, p);
}

/* netdev_sock_err() - the message for a failed AF_PACKET socket() or bind(), naming the capability. */
int netdev_sock_err(struct tx *tx, int err, const char *what);

/*
 * netdev_packet_socket() - what every AF_PACKET method does first: open a
 * send-only SOCK_RAW packet socket, check the interface (tx->dev, tx->mtu
 * set), apply cfg->qdisc_bypass and bind.  On a layer-3 interface (tx->l3
 * set) the socket is SOCK_DGRAM, each packet sent with its protocol in a
 * struct sockaddr_ll; cfg->gso is refused there (-ENOTSUP).
 * Returns the descriptor, or -errno with the reason in tx->err.
 */
int netdev_packet_socket(struct tx *tx, const struct tx_cfg *cfg, struct netdev *nd);

/*
 * netdev_send_err() - turn a failed send's errno @err (positive) about a
 * @len-byte frame into the contract's -errno with its message: EAGAIN and
 * ENOBUFS pass through silently; ENETDOWN/ENXIO/ENODEV name the interface;
 * EMSGSIZE reads the MTU again and, if it was lowered since open, keeps the
 * new one in tx->mtu (so netdev_frame_check() fails the frames after).
 */
int netdev_send_err(struct tx *tx, int err, uint32_t len);

/*
 * netdev_still_up() - 0 if tx->dev is still up with a carrier; else
 * -ENETDOWN or -ENXIO with the reason in tx->err.  Methods whose kernel
 * path does not say so itself (AF_XDP) ask this when they stop making
 * progress.
 */
int netdev_still_up(struct tx *tx);

/* netdev_mtu_now() - tx->dev's MTU as it is now, bytes; 0 if it cannot be read. */
uint32_t netdev_mtu_now(const struct tx *tx);

/*
 * netdev_wait_outq() - wait until the socket @fd has no frame queued in
 * the host (SIOCOUTQ reads 0: every skb we sent was freed by the driver or
 * the peer), up to TX_DRAIN_TIMEOUT_MS.  0, or -ETIMEDOUT with tx->err set.
 */
#define TX_DRAIN_TIMEOUT_MS 5000
int netdev_wait_outq(struct tx *tx, int fd);

/*
 * netdev_tx_queues() - the TX queues @ifname has in use (its TX and
 * combined channels, ETHTOOL_GCHANNELS: what AF_XDP binds against), or
 * -errno (-EOPNOTSUPP: the driver does not say).  bypass.c.
 */
int netdev_tx_queues(const char *ifname);

/* netdev_sleep_ns() - a short back-off, for ENOBUFS (the socket stays writable). */
void netdev_sleep_ns(long ns);

/* How long a socket method backs off on ENOBUFS (the device queue is full): a few frames' worth. */
#define TX_ENOBUFS_BACKOFF_NS 20000

/*
 * netdev_wait_room() - ops->wait for socket methods: on -EAGAIN poll the
 * @nfds sockets at @fds for POLLOUT (at most 100 ms); on anything else
 * (ENOBUFS: the socket stays writable) back off TX_ENOBUFS_BACKOFF_NS.
 * 0 or -errno.
 */
int netdev_wait_room(const int *fds, unsigned nfds, int err);

/*
 * struct stage - a FIFO of frame copies in fixed memory, for methods whose
 * kernel interface takes pointers (send, sendmmsg, io_uring): send() copies
 * into the next slot so the trace's view may go, flush() hands the oldest
 * out.  Invariant: 0 <= n <= slots; staged frames are slots head..head+n-1
 * (mod slots).
 */
struct stage {
	uint8_t *buf;        /* slots * slot_bytes */
	uint32_t *len;       /* bytes held in each slot */
	uint32_t slot_bytes; /* room per slot, bytes */
	unsigned slots;      /* capacity, frames */
	unsigned head;       /* index of the oldest staged frame */
	unsigned n;          /* frames staged */
};

/* stage_init() - room for @slots frames of up to @slot_bytes; 0 or -ENOMEM. */
int stage_init(struct stage *s, unsigned slots, uint32_t slot_bytes);

/* stage_free() - release; accepts a zeroed or half-built stage. */
void stage_free(struct stage *s);


/* stage_slot() - the slot index of the @i-th oldest staged frame (i < slots), wrapped without a division. */
static inline unsigned stage_slot(const struct stage *s, unsigned i)
{
	unsigned k = s->head + i;

	return k < s->slots ? k : k - s->slots;
}

/*
 * stage_copy() - @len bytes from @d to @o.  A small frame (32 to 64 bytes,
 * the minimum Ethernet frame's size) in two overlapping 32-byte moves,
 * inline: the library's call costs more than the copy.  Reads only
 * [d, d + len).
 */
static inline void stage_copy(uint8_t *o, const uint8_t *d, uint32_t len)
{
	if (len - 32u <= 32u) {
		memcpy(o, d, 32);
		memcpy(o + len - 32, d + len - 32, 32);
	} else {
		memcpy(o, d, len);
	}
}

/*
 * stage_push() - copy @len bytes at @data in; 0, or -EAGAIN when full.  The
 * caller checked @len.  Inline: every staged frame's, where the call was a
 * fifth of its cost.
 */
static inline int stage_push(struct stage *s, const uint8_t *data, uint32_t len)
{
	unsigned i;

	if (s->n == s->slots)
		return -EAGAIN;
	i = stage_slot(s, s->n);
	stage_copy(s->buf + (size_t)i * s->slot_bytes, data, len);
	s->len[i] = len;
	s->n++;
	return 0;
}

/* stage_at() - the @i-th oldest staged frame (i < n). */
static inline uint8_t *stage_at(const struct stage *s, unsigned i)
{
	return s->buf + (size_t)stage_slot(s, i) * s->slot_bytes;
}

/* stage_len() - its length, bytes. */
static inline uint32_t stage_len(const struct stage *s, unsigned i)
{
	return s->len[stage_slot(s, i)];
}

/* stage_contig() - how many staged frames lie in one run from the oldest, before the wrap. */
static inline unsigned stage_contig(const struct stage *s)
{
	unsigned run = s->slots - s->head;

	return s->n < run ? s->n : run;
}

/* stage_pop() - forget the @k oldest frames (k <= n). */
static inline void stage_pop(struct stage *s, unsigned k)
{
	s->head = stage_slot(s, k);
	s->n -= k;
}

/*
 * stage_frames() - ops->send for staging methods: check each of the @n
 * Ethernet frames at @v against the interface (netdev_frame_check()) and
 * copy it in.  Returns how many were staged, or the first one's -errno.
 */
int stage_frames(struct tx *tx, struct stage *s, const struct pkt *v, unsigned n);

/*
 * stage_l3_frames() - ops->send on a layer-3 interface (tx->l3): stage the
 * IP packet pkt_l3_find() finds in each of the @n frames at @v, at its own
 * length, and its protocol (IPv4, IPv6) in @addr[slot].sll_protocol.  A frame
 * with no whole IP packet, or one over tx->mtu, fails with the reason
 * (-EINVAL, -EMSGSIZE); one with no IP packet at all is counted in
 * tx->not_ip.  Returns how many were staged, or the first one's -errno.
 */
struct sockaddr_ll;
int stage_l3_frames(struct tx *tx, struct stage *s, struct sockaddr_ll *addr, const struct pkt *v,
		    unsigned n);

/*
 * stage_settle() - after the oldest staged frame's send failed with @rc:
 * a frame that failed for good (reported, counted failed by the caller)
 * leaves the stage; one held back by back-pressure (EAGAIN, ENOBUFS, EINTR)
 * stays to be retried, and after a fatal error the caller discards the
 * rest.  Returns @rc.
 */
int stage_settle(struct stage *s, int rc);

/*
 * stage_vnet_frames() - ops->send with --gso (a PACKET_VNET_HDR socket):
 * as stage_frames(), each frame behind a struct virtio_net_hdr -- zero for
 * a frame that fits, the kernel's cut for a TCP frame longer than the MTU
 * (segment_vnet(), the copy fixed by segment_vnet_fix()); a longer frame
 * the kernel may not cut fails as in stage_frames().
 */
int stage_vnet_frames(struct tx *tx, struct stage *s, const struct pkt *v, unsigned n);

/* The longest frame --gso stages: Ethernet, IPv6's header and the most payload its length names. */
#define TX_GSO_FRAME_MAX (ETH_HDR_BYTES + 40u + 65535u)

/* stage_slot_bytes() - room a slot needs for Ethernet frames on an interface with @mtu. */
static inline uint32_t stage_slot_bytes(uint32_t mtu)
{
	/* One 802.1Q tag beyond the MTU, as netdev_frame_check() allows; 64-byte aligned. */
	return (mtu + ETH_HDR_BYTES + 4u + 63u) & ~63u;
}

/*
 * struct sock_tx - the skeleton of the staging socket methods (packet, mmsg,
 * uring; src/tx/sock.c): a send-only AF_PACKET socket and a stage.  A
 * method's state starts with one (tx->priv), so the sock_tx_*() functions
 * serve as its ops where it has nothing to add:
 *   sock_tx_open()     calloc @state_bytes of state (zeroed, fd -1) into
 *                      tx->priv, open the socket (netdev_packet_socket()),
 *                      set tx->batch and a stage of that many frames, and
 *                      tx->mode for --qdisc-bypass; with cfg->gso set
 *                      PACKET_VNET_HDR and make each slot room for a
 *                      header and a frame of TX_GSO_FRAME_MAX.  0 or -errno with
 *                      tx->err set; the method's open() goes on from there;
 *   sock_tx_send(), sock_tx_discard()  stage_frames() (stage_l3_frames() on a
 *                      layer-3 interface), empty the stage;
 *   sock_tx_wait(), sock_tx_drain()    netdev_wait_room(), netdev_wait_outq();
 *   sock_tx_close()    the socket, the stage, the state (a method frees its own first).
 * Only flush(), how the stage reaches the kernel, is each method's own.
 */
struct sock_tx {
	int fd;          /* the AF_PACKET socket; -1 until open */
	struct stage st; /* frames staged for the next flush() */
	bool vnet;       /* --gso: PACKET_VNET_HDR set, each slot a header and a frame */
	/*
	 * Layer 3 (tx->l3): per slot, the address its IP packet is sent to,
	 * the interface and the packet's protocol (stage_l3_frames()); NULL on
	 * Ethernet, where the frame's own header says it.
	 */
	struct sockaddr_ll *addr;
};

int sock_tx_open(struct tx *tx, const struct tx_cfg *cfg, size_t state_bytes);
int sock_tx_send(struct tx *tx, const struct pkt *v, unsigned n);
void sock_tx_discard(struct tx *tx);
int sock_tx_wait(struct tx *tx, int err);
int sock_tx_drain(struct tx *tx);
void sock_tx_close(struct tx *tx);

/* tx_batch() - cfg->batch, defaulted and capped. */
static inline unsigned tx_batch(const struct tx_cfg *cfg)
{
	if (!cfg->batch)
		return TX_BATCH_DEFAULT;
	return cfg->batch > TX_BATCH_MAX ? TX_BATCH_MAX : cfg->batch;
}

#endif
