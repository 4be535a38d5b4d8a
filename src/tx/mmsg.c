// SPDX-License-Identifier: BSD-2-Clause
/*
 * AF_PACKET SOCK_RAW with sendmmsg(): the staged frames go out in one
 * syscall per batch instead of one per frame.  sendmmsg() returns how many
 * messages it sent and reports an error only when it sent none, which is
 * exactly the tx contract: a prefix handed over, or an errno about the
 * first.  (An error after the first message is dropped by the kernel; the
 * next call meets it again on the same frame.)  All but open()'s message
 * table and flush() is the socket methods' skeleton (sock.c).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "tx_int.h"

struct mmsg_state {
	struct sock_tx sk;   /* first: the skeleton's state (sock.c) */
	struct mmsghdr *msg; /* one per slot, iovec bound once */
	struct iovec *iov;
};

static int mmsg_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct mmsg_state *s;
	int rc;

	rc = sock_tx_open(tx, cfg, sizeof(*s));
	if (rc < 0)
		return rc;
	s = tx->priv;
	s->msg = calloc(tx->batch, sizeof(*s->msg));
	s->iov = calloc(tx->batch, sizeof(*s->iov));
	if (!s->msg || !s->iov)
		return tx_err(tx, -ENOMEM, "out of memory");
	/* Slot i's message always points at slot i: flush() only fills in lengths. */
	for (unsigned i = 0; i < tx->batch; i++) {
		s->iov[i].iov_base = s->sk.st.buf + (size_t)i * s->sk.st.slot_bytes;
		s->msg[i].msg_hdr.msg_iov = &s->iov[i];
		s->msg[i].msg_hdr.msg_iovlen = 1;
		if (s->sk.addr) { /* layer 3: and its address, the protocol set as it is staged */
			s->msg[i].msg_hdr.msg_name = &s->sk.addr[i];
			s->msg[i].msg_hdr.msg_namelen = sizeof(*s->sk.addr);
		}
	}
	return 0;
}

static int mmsg_flush(struct tx *tx)
{
	struct mmsg_state *s = tx->priv;
	struct stage *st = &s->sk.st;
	unsigned run = stage_contig(st), head = st->head;
	int sent, rc;

	if (!run)
		return 0;
	for (unsigned i = 0; i < run; i++)
		s->iov[head + i].iov_len = st->len[head + i];
	/* One contiguous run per call; a wrapped stage takes a second flush(). */
	sent = sendmmsg(s->sk.fd, &s->msg[head], run, MSG_DONTWAIT);
	if (sent > 0) {
		stage_pop(st, (unsigned)sent);
		return sent;
	}
	rc = netdev_send_err(tx, sent < 0 ? errno : EAGAIN, st->len[head]);
	return stage_settle(st, rc);
}

static void mmsg_close(struct tx *tx)
{
	struct mmsg_state *s = tx->priv;

	if (s) {
		free(s->msg);
		free(s->iov);
	}
	sock_tx_close(tx);
}

const struct tx_ops tx_mmsg_ops = {
	.name = "mmsg",
	.flags = TX_F_GSO | TX_F_L3,
	.open = mmsg_open,
	.send = sock_tx_send,
	.flush = mmsg_flush,
	.discard = sock_tx_discard,
	.wait = sock_tx_wait,
	.drain = sock_tx_drain,
	.close = mmsg_close,
};
