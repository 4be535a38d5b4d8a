// SPDX-License-Identifier: BSD-2-Clause
/*
 * io_uring (liburing): one IORING_OP_SEND per staged frame on an AF_PACKET
 * socket, a whole batch submitted with one io_uring_enter() -- or none, with
 * --uring-sqpoll, where a kernel thread picks the submissions up.
 *
 * Order and accounting: the sends of a batch are linked (IOSQE_IO_LINK), so
 * the kernel runs them one after the other and, when one fails, cancels the
 * rest (-ECANCELED) instead of sending them ahead of it.  flush() waits for
 * the batch's completions, so it reports exactly the prefix that went and
 * the error of the first that did not; the cancelled ones stay staged and go
 * in the next flush().  The socket is registered (IOSQE_FIXED_FILE) to save
 * a file lookup per send.  On a layer-3 interface each packet goes with its
 * address, as a SENDMSG.  The socket, the stage, send(), discard(), drain()
 * and close() are the socket methods' skeleton (sock.c).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tx_int.h"

/* SQPOLL: the kernel thread sleeps after this much idle time, ms (then a submit wakes it). */
#define SQ_IDLE_MS 200

struct uring_state {
	struct sock_tx sk;   /* first: the skeleton's state (sock.c) */
	bool ring_ok;
	struct io_uring ring;
	int *res;            /* completion result per sqe of the batch in flight */
	/* Layer 3: per slot, a message with the packet's address (SENDMSG); NULL on Ethernet (SEND). */
	struct msghdr *mh;
	struct iovec *iov;
};

static int uring_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct io_uring_params p;
	struct uring_state *s;
	char words[sizeof(tx->mode)];
	int rc;

	rc = sock_tx_open(tx, cfg, sizeof(*s));
	if (rc < 0)
		return rc;
	s = tx->priv;
	memset(&p, 0, sizeof(p));
	if (cfg->uring_sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = SQ_IDLE_MS;
	}
	rc = io_uring_queue_init_params(tx->batch, &s->ring, &p);
	if (rc < 0)
		return tx_err(tx, rc, "%s: cannot set up io_uring%s: %s%s", tx->dev,
			      cfg->uring_sqpoll ? " with SQPOLL" : "", strerror(-rc),
			      rc == -EPERM ? " (kernel.io_uring_disabled?)" : "");
	s->ring_ok = true;
	rc = io_uring_register_files(&s->ring, &s->sk.fd, 1);
	if (rc < 0)
		return tx_err(tx, rc, "%s: cannot register the socket with io_uring: %s", tx->dev,
			      strerror(-rc));
	s->res = calloc(tx->batch, sizeof(*s->res));
	if (!s->res)
		return tx_err(tx, -ENOMEM, "out of memory");
	if (s->sk.addr) {
		s->mh = calloc(tx->batch, sizeof(*s->mh));
		s->iov = calloc(tx->batch, sizeof(*s->iov));
		if (!s->mh || !s->iov)
			return tx_err(tx, -ENOMEM, "out of memory");
		/* Slot i's message always points at slot i and its address: flush() fills in lengths. */
		for (unsigned i = 0; i < tx->batch; i++) {
			s->iov[i].iov_base = s->sk.st.buf + (size_t)i * s->sk.st.slot_bytes;
			s->mh[i].msg_iov = &s->iov[i];
			s->mh[i].msg_iovlen = 1;
			s->mh[i].msg_name = &s->sk.addr[i];
			s->mh[i].msg_namelen = sizeof(*s->sk.addr);
		}
	}
	/* The skeleton's words (layer 3, qdisc bypassed, kernel GSO) after how it submits. */
	memcpy(words, tx->mode, sizeof(words));
	tx->mode[0] = '\0';
	tx_mode_add(tx, "%s", cfg->uring_sqpoll ? "SQPOLL" : "batched submit");
	if (words[0])
		tx_mode_add(tx, "%s", words);
	return 0;
}

static int uring_flush(struct tx *tx)
{
	struct uring_state *s = tx->priv;
	struct stage *st = &s->sk.st;
	unsigned run = stage_contig(st), got = 0, ok = 0;
	struct io_uring_cqe *cqe;
	int rc;

	if (!run)
		return 0;
	for (unsigned i = 0; i < run; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

		if (!sqe) { /* cannot happen: the queue holds a batch and nothing else is queued */
			run = i;
			break;
		}
		if (s->mh) {
			unsigned k = stage_slot(st, i);

			s->iov[k].iov_len = st->len[k];
			io_uring_prep_sendmsg(sqe, 0, &s->mh[k], 0);
		} else {
			io_uring_prep_send(sqe, 0, stage_at(st, i), stage_len(st, i), 0);
		}
		sqe->flags |= IOSQE_FIXED_FILE | (i + 1 < run ? IOSQE_IO_LINK : 0);
		io_uring_sqe_set_data64(sqe, i);
		s->res[i] = -ECANCELED;
	}
	/*
	 * Submit and wait for the whole batch in one syscall; every sqe
	 * completes (sent, failed or cancelled), so collect them all.  A
	 * submission refused for want of kernel memory (-EAGAIN, -EBUSY)
	 * leaves the sqes queued: the next round submits them.
	 */
	for (unsigned want = run; got < run; want = 1) {
		rc = io_uring_submit_and_wait(&s->ring, want);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
			return tx_err(tx, rc, "%s: io_uring failed: %s", tx->dev, strerror(-rc));
		while (got < run && io_uring_peek_cqe(&s->ring, &cqe) == 0) {
			if (cqe->user_data < run)
				s->res[cqe->user_data] = cqe->res;
			io_uring_cqe_seen(&s->ring, cqe);
			got++;
		}
	}
	while (ok < run && s->res[ok] >= 0)
		ok++;
	if (ok) {
		stage_pop(st, ok);
		return (int)ok;
	}
	rc = netdev_send_err(tx, -s->res[0], stage_len(st, 0));
	return stage_settle(st, rc);
}

static int uring_wait(struct tx *tx, int err)
{
	/* io_uring already waits out EAGAIN itself (it polls the socket); what reaches here is ENOBUFS. */
	(void)tx;
	(void)err;
	netdev_sleep_ns(TX_ENOBUFS_BACKOFF_NS);
	return 0;
}

static void uring_close(struct tx *tx)
{
	struct uring_state *s = tx->priv;

	if (s) {
		if (s->ring_ok)
			io_uring_queue_exit(&s->ring);
		free(s->res);
		free(s->mh);
		free(s->iov);
	}
	sock_tx_close(tx);
}

const struct tx_ops tx_uring_ops = {
	.name = "uring",
	.flags = TX_F_GSO | TX_F_L3,
	.open = uring_open,
	.send = sock_tx_send,
	.flush = uring_flush,
	.discard = sock_tx_discard,
	.wait = uring_wait,
	.drain = sock_tx_drain,
	.close = uring_close,
};
