// SPDX-License-Identifier: BSD-2-Clause
/*
 * The skeleton of the staging socket methods (packet, mmsg, uring): one
 * send-only AF_PACKET socket and a staging FIFO of frame copies.  Everything
 * but how flush() hands the staged frames to the kernel is the same for all
 * three, and lives here: open, send (stage), discard, wait, drain, close --
 * on a layer-3 interface too, where each staged packet keeps its address.
 * A method's state begins with a struct sock_tx; see tx_int.h.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tx_int.h"

int sock_tx_open(struct tx *tx, const struct tx_cfg *cfg, size_t state_bytes)
{
	uint32_t slot;
	struct sock_tx *s;
	struct netdev nd;
	int rc, one = 1;

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
	slot = stage_slot_bytes(tx->mtu);
	if (cfg->gso) {
		if (setsockopt(s->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
			return tx_err(tx, -errno, "%s: --gso: cannot set PACKET_VNET_HDR: %s", tx->dev,
				      strerror(errno));
		s->vnet = true;
		slot = (uint32_t)(sizeof(struct virtio_net_hdr) + TX_GSO_FRAME_MAX + 63u) & ~63u;
		if (slot < stage_slot_bytes(tx->mtu) + 64u)
			slot = stage_slot_bytes(tx->mtu) + 64u;
	}
	if (stage_init(&s->st, tx->batch, slot) < 0)
		return tx_err(tx, -ENOMEM, "out of memory");
	if (tx->l3[0]) {
		s->addr = calloc(tx->batch, sizeof(*s->addr));
		if (!s->addr)
			return tx_err(tx, -ENOMEM, "out of memory");
		for (unsigned i = 0; i < tx->batch; i++) {
			s->addr[i].sll_family = AF_PACKET;
			s->addr[i].sll_ifindex = nd.ifindex;
		}
	}
	if (tx->l3[0])
		tx_mode_add(tx, "layer 3 (%s): link header dropped", tx->l3);
	if (cfg->qdisc_bypass)
		tx_mode_add(tx, "qdisc bypassed");
	if (cfg->gso)
		tx_mode_add(tx, "kernel GSO");
	return 0;
}

int sock_tx_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct sock_tx *s = tx->priv;

	if (s->addr)
		return stage_l3_frames(tx, &s->st, s->addr, v, n);
	if (s->vnet)
		return stage_vnet_frames(tx, &s->st, v, n);
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
	free(s->addr);
	free(s);
	tx->priv = NULL;
}
