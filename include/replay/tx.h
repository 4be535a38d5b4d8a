/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transmit backends.  One const ops table per backend in src/tx/<name>.c,
 * found by name; the send loop sees only this header.
 *
 * Contract for send(): it takes up to @n views and returns how many it
 * accepted, in order, starting with the first.  If it cannot take the first
 * it returns a negative errno about that one packet, with the explanation in
 * tx_strerror():
 *   -EAGAIN, -ENOBUFS  back-pressure: call wait() and offer it again;
 *   -EMSGSIZE, -EINVAL this packet can never be sent (too large, too short);
 *                      count it failed and go on;
 *   -ENETDOWN, -ENXIO, -ENODEV  the interface went away: stop the run;
 *   anything else      count it failed and go on.
 * A backend never drops a packet it accepted: drain() waits until every one
 * has left (rings emptied, completions reaped, files flushed).
 */
#ifndef REPLAY_TX_H
#define REPLAY_TX_H

#include <stdbool.h>
#include <stdint.h>

#include <errno.h>

#include "pkt.h"

struct tx_cfg {
	const char *ifname;        /* interface, for wire backends */
	const char *path;          /* output file ("-" = stdout), for the file backend */
	unsigned linktype;         /* LINKTYPE_* of every frame this run sends */
	int64_t clock_to_real_ns;  /* add to a run-clock time to get CLOCK_REALTIME, ns */
};

enum {
	/* The backend writes rather than sends: the run need not wait for deadlines. */
	TX_F_VIRTUAL_TIME = 1u << 0,
};

struct tx;

struct tx_ops {
	const char *name;
	unsigned flags; /* TX_F_* */
	/* open() - 0, or -errno with tx->err set. */
	int (*open)(struct tx *tx, const struct tx_cfg *cfg);
	/* send() - see the contract above. */
	int (*send)(struct tx *tx, const struct pkt *v, unsigned n);
	/* wait() - block until a send refused with @err (-EAGAIN, -ENOBUFS) may succeed; 0 or -errno (-EINTR). */
	int (*wait)(struct tx *tx, int err);
	/* drain() - end of run: every accepted packet leaves, then outputs are committed; 0 or -errno. */
	int (*drain)(struct tx *tx);
	/* close() - release; an output not drained is discarded.  Called once, also after a failed open(). */
	void (*close)(struct tx *tx);
};

struct tx {
	const struct tx_ops *ops;
	void *priv;          /* backend state */
	char dev[128];       /* interface or file name, for messages and the summary */
	uint32_t mtu;        /* interface MTU, bytes; 0 = no limit (files) */
	char err[320];       /* last error text, without the program name */
};

/*
 * tx_open() - open backend @method ("packet", "file") with @cfg.  *@txp is
 * set even on failure (unless memory ran out) so tx_strerror() can say why;
 * the caller always calls tx_close().  Returns 0 or -errno (-ENOENT: no such
 * backend).
 */
int tx_open(struct tx **txp, const char *method, const struct tx_cfg *cfg);

/* tx_open_ops() - as tx_open() with an explicit ops table: how tests plug in a mock. */
int tx_open_ops(struct tx **txp, const struct tx_ops *ops, const struct tx_cfg *cfg);

/* tx_send() - as ops->send(). */
static inline int tx_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	return tx->ops->send(tx, v, n);
}

/* tx_wait() - as ops->wait(). */
static inline int tx_wait(struct tx *tx, int err)
{
	return tx->ops->wait(tx, err);
}

/* tx_drain() - as ops->drain(). */
int tx_drain(struct tx *tx);

/* tx_close() - release; accepts NULL. */
void tx_close(struct tx *tx);

/* tx_strerror() - the last error. */
const char *tx_strerror(const struct tx *tx);

/* tx_name() - the backend's name. */
const char *tx_name(const struct tx *tx);

/* tx_virtual_time() - true if the backend needs no waiting for deadlines. */
static inline bool tx_virtual_time(const struct tx *tx)
{
	return tx->ops->flags & TX_F_VIRTUAL_TIME;
}

/* tx_fatal() - true for a send error that ends the run (the interface went away). */
static inline bool tx_fatal(int err)
{
	return err == -ENETDOWN || err == -ENXIO || err == -ENODEV;
}

#endif
