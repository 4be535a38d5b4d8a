// SPDX-License-Identifier: BSD-2-Clause
/*
 * AF_PACKET SOCK_RAW, one send() per frame: the baseline every faster method
 * is measured against.  The socket is opened with protocol 0 so the kernel
 * never queues received frames to it: it only sends.  send() copies frames
 * into a staging FIFO; flush() sends them one syscall each.  On a layer-3
 * interface the socket is SOCK_DGRAM and each IP packet goes with its
 * address (sendto()).  All but flush() is the socket methods' skeleton
 * (sock.c).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "tx_int.h"

static int packet_open(struct tx *tx, const struct tx_cfg *cfg)
{
	return sock_tx_open(tx, cfg, sizeof(struct sock_tx));
}

static int packet_flush(struct tx *tx)
{
	struct sock_tx *s = tx->priv;
	unsigned done = 0;

	while (s->st.n) {
		uint32_t len = stage_len(&s->st, 0);
		ssize_t rc;

		if (s->addr) /* layer 3: the protocol is the packet's own */
			rc = sendto(s->fd, stage_at(&s->st, 0), len, MSG_DONTWAIT,
				    (const struct sockaddr *)&s->addr[s->st.head], sizeof(*s->addr));
		else
			rc = send(s->fd, stage_at(&s->st, 0), len, MSG_DONTWAIT);
		if (rc < 0) {
			int err = netdev_send_err(tx, errno, len);

			return done ? (int)done : stage_settle(&s->st, err);
		}
		stage_pop(&s->st, 1);
		done++;
	}
	return (int)done;
}

const struct tx_ops tx_packet_ops = {
	.name = "packet",
	.flags = TX_F_GSO | TX_F_L3,
	.open = packet_open,
	.send = sock_tx_send,
	.flush = packet_flush,
	.discard = sock_tx_discard,
	.wait = sock_tx_wait,
	.drain = sock_tx_drain,
	.close = sock_tx_close,
};
