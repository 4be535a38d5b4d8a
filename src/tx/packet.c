// SPDX-License-Identifier: BSD-2-Clause
/*
 * AF_PACKET SOCK_RAW, one send() per frame: the baseline every faster method
 * is measured against.  The socket is opened with protocol 0 so the kernel
 * never queues received frames to it: it only sends.  send() copies frames
 * into a staging FIFO; flush() sends them one syscall each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tx_int.h"

struct packet_state {
	int fd;
	struct stage st;
};

static int packet_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct packet_state *s;
	struct netdev nd;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->fd = -1;
	tx->priv = s;
	rc = netdev_packet_socket(tx, cfg, &nd);
	if (rc < 0)
		return rc;
	s->fd = rc;
	tx->batch = tx_batch(cfg);
	if (stage_init(&s->st, tx->batch, stage_slot_bytes(tx->mtu)) < 0)
		return tx_err(tx, -ENOMEM, "out of memory");
	if (cfg->qdisc_bypass)
		snprintf(tx->mode, sizeof(tx->mode), "qdisc bypassed");
	return 0;
}

static int packet_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct packet_state *s = tx->priv;

	return stage_frames(tx, &s->st, v, n);
}

static int packet_flush(struct tx *tx)
{
	struct packet_state *s = tx->priv;
	unsigned done = 0;

	while (s->st.n) {
		uint32_t len = stage_len(&s->st, 0);

		if (send(s->fd, stage_at(&s->st, 0), len, MSG_DONTWAIT) < 0) {
			int rc = netdev_send_err(tx, errno, len);

			return done ? (int)done : stage_settle(&s->st, rc);
		}
		stage_pop(&s->st, 1);
		done++;
	}
	return (int)done;
}

static void packet_discard(struct tx *tx)
{
	struct packet_state *s = tx->priv;

	stage_pop(&s->st, s->st.n);
}

static int packet_wait(struct tx *tx, int err)
{
	struct packet_state *s = tx->priv;

	return netdev_wait_room(&s->fd, 1, err);
}

static int packet_drain(struct tx *tx)
{
	struct packet_state *s = tx->priv;

	return netdev_wait_outq(tx, s->fd);
}

static void packet_close(struct tx *tx)
{
	struct packet_state *s = tx->priv;

	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	stage_free(&s->st);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_packet_ops = {
	.name = "packet",
	.open = packet_open,
	.send = packet_send,
	.flush = packet_flush,
	.discard = packet_discard,
	.wait = packet_wait,
	.drain = packet_drain,
	.close = packet_close,
};
