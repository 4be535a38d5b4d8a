// SPDX-License-Identifier: BSD-2-Clause
/*
 * The skeleton of the staging socket methods (packet, mmsg, uring): one
 * send-only AF_PACKET socket and a staging FIFO of frame copies.  Everything
 * but how flush() hands the staged frames to the kernel is the same for all
 * three, and lives here: open, send (stage), discard, wait, drain, close.
 * A method's state begins with a struct sock_tx; see tx_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tx_int.h"

int sock_tx_open(struct tx *tx, const struct tx_cfg *cfg, size_t state_bytes)
{
	struct sock_tx *s;
	struct netdev nd;
	int rc;

	s = calloc(1, state_bytes);
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

int sock_tx_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct sock_tx *s = tx->priv;

	return stage_frames(tx, &s->st, v, n);
}

void sock_tx_discard(struct tx *tx)
{
	struct sock_tx *s = tx->priv;

	stage_pop(&s->st, s->st.n);
}

int sock_tx_wait(struct tx *tx, int err)
{
	struct sock_tx *s = tx->priv;

	return netdev_wait_room(&s->fd, 1, err);
}

int sock_tx_drain(struct tx *tx)
{
	struct sock_tx *s = tx->priv;

	return netdev_wait_outq(tx, s->fd);
}

void sock_tx_close(struct tx *tx)
{
	struct sock_tx *s = tx->priv;

	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	stage_free(&s->st);
	free(s);
	tx->priv = NULL;
}
