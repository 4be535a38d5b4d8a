// SPDX-License-Identifier: BSD-2-Clause
/*
 * AF_PACKET SOCK_RAW with sendmmsg(): the staged frames go out in one
 * syscall per batch instead of one per frame.  sendmmsg() returns how many
 * messages it sent and reports an error only when it sent none, which is
 * exactly the tx contract: a prefix handed over, or an errno about the
 * first.  (An error after the first message is dropped by the kernel; the
 * next call meets it again on the same frame.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tx_int.h"

struct mmsg_state {
	int fd;
	struct stage st;
	struct mmsghdr *msg; /* one per slot, iovec bound once */
	struct iovec *iov;
};

static int mmsg_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct mmsg_state *s;
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
	s->msg = calloc(tx->batch, sizeof(*s->msg));
	s->iov = calloc(tx->batch, sizeof(*s->iov));
	if (!s->msg || !s->iov || stage_init(&s->st, tx->batch, stage_slot_bytes(tx->mtu)) < 0)
		return tx_err(tx, -ENOMEM, "out of memory");
	/* Slot i's message always points at slot i: flush() only fills in lengths. */
	for (unsigned i = 0; i < tx->batch; i++) {
		s->iov[i].iov_base = s->st.buf + (size_t)i * s->st.slot_bytes;
		s->msg[i].msg_hdr.msg_iov = &s->iov[i];
		s->msg[i].msg_hdr.msg_iovlen = 1;
	}
	if (cfg->qdisc_bypass)
		snprintf(tx->mode, sizeof(tx->mode), "qdisc bypassed");
	return 0;
}

static int mmsg_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct mmsg_state *s = tx->priv;

	return stage_frames(tx, &s->st, v, n);
}

static int mmsg_flush(struct tx *tx)
{
	struct mmsg_state *s = tx->priv;
	unsigned run = stage_contig(&s->st), head = s->st.head;
	int sent, rc;

	if (!run)
		return 0;
	for (unsigned i = 0; i < run; i++)
		s->iov[head + i].iov_len = s->st.len[head + i];
	/* One contiguous run per call; a wrapped stage takes a second flush(). */
	sent = sendmmsg(s->fd, &s->msg[head], run, MSG_DONTWAIT);
	if (sent > 0) {
		stage_pop(&s->st, (unsigned)sent);
		return sent;
	}
	rc = netdev_send_err(tx, sent < 0 ? errno : EAGAIN, s->st.len[head]);
	return stage_settle(&s->st, rc);
}

static void mmsg_discard(struct tx *tx)
{
	struct mmsg_state *s = tx->priv;

	stage_pop(&s->st, s->st.n);
}

static int mmsg_wait(struct tx *tx, int err)
{
	struct mmsg_state *s = tx->priv;

	return netdev_wait_room(&s->fd, 1, err);
}

static int mmsg_drain(struct tx *tx)
{
	struct mmsg_state *s = tx->priv;

	return netdev_wait_outq(tx, s->fd);
}

static void mmsg_close(struct tx *tx)
{
	struct mmsg_state *s = tx->priv;

	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	stage_free(&s->st);
	free(s->msg);
	free(s->iov);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_mmsg_ops = {
	.name = "mmsg",
	.open = mmsg_open,
	.send = mmsg_send,
	.flush = mmsg_flush,
	.discard = mmsg_discard,
	.wait = mmsg_wait,
	.drain = mmsg_drain,
	.close = mmsg_close,
};
