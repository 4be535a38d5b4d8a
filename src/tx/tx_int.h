/* SPDX-License-Identifier: BSD-2-Clause */
/* Private to src/tx/: the backend registry and what wire backends share. */
#ifndef REPLAY_TX_INT_H
#define REPLAY_TX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "replay/compiler.h"
#include "replay/tx.h"

extern const struct tx_ops tx_packet_ops;
extern const struct tx_ops tx_file_ops;

/* tx_err() - set tx->err; returns @err (a negative errno). */
int tx_err(struct tx *tx, int err, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* What a wire backend needs to know about its interface. */
struct netdev {
	int ifindex;
	uint32_t mtu;        /* bytes of payload after the link-layer header */
	unsigned flags;      /* IFF_* */
	unsigned short type; /* ARPHRD_* */
};

/*
 * netdev_open_check() - look @ifname up and make sure frames can go out of
 * it: it exists, is up, has a carrier and takes Ethernet frames.  Returns 0,
 * or -errno with the reason in tx->err (-ENODEV missing, -ENETDOWN down or no
 * carrier, -ENOTSUP not Ethernet).
 */
int netdev_open_check(struct tx *tx, const char *ifname, struct netdev *nd);

/*
 * netdev_frame_check() - can this Ethernet frame go out of an interface with
 * @mtu?  The same rule as the kernel's packet_snd(): up to MTU + 14 bytes,
 * 4 more for an 802.1Q-tagged frame.  0, -EINVAL (shorter than an Ethernet
 * header) or -EMSGSIZE, with the reason in tx->err.
 */
int netdev_frame_check(struct tx *tx, const struct pkt *p);

/* netdev_sock_err() - the message for a failed AF_PACKET socket() or bind(), naming the capability. */
int netdev_sock_err(struct tx *tx, int err, const char *what);

#endif
