// SPDX-License-Identifier: BSD-2-Clause
/* Method registry and the functions every method shares. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tx_int.h"

static const struct tx_ops *const methods[] = {
	&tx_packet_ops,
	&tx_mmsg_ops,
	&tx_ring_ops,
#if HAVE_LIBURING
	&tx_uring_ops,
#endif
#if HAVE_LIBXDP
	&tx_xdp_ops,
#endif
	&tx_raw_ops,
	&tx_file_ops,
};

const struct opt_enum tx_method_choices[] = {
	{ "auto", TX_METHOD_AUTO },
	{ "packet", TX_METHOD_PACKET },
	{ "mmsg", TX_METHOD_MMSG },
	{ "ring", TX_METHOD_RING },
#if HAVE_LIBURING
	{ "uring", TX_METHOD_URING },
#endif
#if HAVE_LIBXDP
	{ "xdp", TX_METHOD_XDP },
#endif
	{ "raw", TX_METHOD_RAW },
	{ "file", TX_METHOD_FILE },
	{ NULL, 0 },
};

const struct opt_enum tx_xdp_mode_choices[] = {
	{ "auto", TX_XDP_AUTO },
	{ "copy", TX_XDP_COPY },
	{ "zerocopy", TX_XDP_ZEROCOPY },
	{ NULL, 0 },
};

/*
 * --method auto: the fastest method that works here, tried in this order
 * (sender CPU per frame on veth: BENCHMARKS.md, Top speed).
 *   xdp    AF_XDP: the fastest, but it bypasses the qdisc (tc shaping would
 *          be ignored silently), holds frames of at most 4 KiB and takes
 *          over a device queue -- so only with --qdisc-bypass, or where
 *          bypassing loses nothing (tx_bypass_harmless(), src/tx/bypass.c);
 *   mmsg   sendmmsg() per batch: the fastest that honours the qdisc, and
 *          works wherever an AF_PACKET socket does;
 *   ring   PACKET_TX_RING: a little slower than mmsg at every size measured
 *          (page-fragment skbs, each frame handed back by its status word);
 *   packet one send() per frame: the last resort.
 * uring (mmsg's work with more bookkeeping, and slower) is there by request;
 * raw is layer 3 (the kernel builds the Ethernet header): never picked.  On
 * an interface without a link-layer header (tun, an IP tunnel) xdp and ring
 * refuse (TX_F_L3), and mmsg sends the frames' IP packets.
 */
static const char *const auto_bypass[] = { "xdp", "mmsg", "ring", "packet" };
static const char *const auto_plain[] = { "mmsg", "ring", "packet" };

static const struct tx_ops *find(const char *method)
{
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (!strcmp(methods[i]->name, method))
			return methods[i];
	return NULL;
}

int tx_err(struct tx *tx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tx->err, sizeof(tx->err), fmt, ap);
	va_end(ap);
	return err;
}

void tx_mode_add(struct tx *tx, const char *fmt, ...)
{
	size_t len = strlen(tx->mode);
	va_list ap;

	if (len + 2 >= sizeof(tx->mode))
		return;
	if (len) {
		memcpy(tx->mode + len, ", ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(tx->mode + len, sizeof(tx->mode) - len, fmt, ap);
	va_end(ap);
}

int tx_open_ops(struct tx **txp, const struct tx_ops *ops, const struct tx_cfg *cfg)
{
	struct tx *tx = calloc(1, sizeof(*tx));
	int rc;

	*txp = tx;
	if (!tx)
		return -ENOMEM;
	tx->ops = ops;
	if (cfg->gso && !(ops->flags & TX_F_GSO)) {
		/* Not -ENOTSUP: --method auto goes on to a method that can. */
		tx->ops = NULL;
		return tx_err(tx, -EPROTONOSUPPORT,
			      "--gso: the %s method cannot hand the kernel a frame to cut (packet, mmsg and uring can)",
			      ops->name);
	}
	rc = tx->ops->open(tx, cfg);
	if (rc < 0) {
		tx->ops->close(tx);
		tx->ops = NULL;
	}
	return rc;
}

int tx_open(struct tx **txp, const char *method, const struct tx_cfg *cfg)
{
	const struct tx_ops *ops = find(method);

	if (ops)
		return tx_open_ops(txp, ops, cfg);
	*txp = calloc(1, sizeof(**txp));
	if (!*txp)
		return -ENOMEM;
	return tx_err(*txp, -ENOENT, "no transmit method '%s' (built in: %s)", method, tx_methods());
}

bool tx_method_known(const char *method)
{
	return !strcmp(method, "auto") || find(method);
}

const char *tx_methods(void)
{
	static char list[128];

	if (!list[0])
		for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? " " : "",
				 methods[i]->name);
	return list;
}

int tx_open_auto(struct tx **txp, const struct tx_cfg *cfg,
		 void (*note)(const char *method, const char *why))
{
	bool xdp = cfg->qdisc_bypass || cfg->auto_xdp;
	const char *const *order = xdp ? auto_bypass : auto_plain;
	size_t n = xdp ? ARRAY_SIZE(auto_bypass) : ARRAY_SIZE(auto_plain);
	int rc = -ENOENT;

	*txp = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct tx_ops *ops = find(order[i]);

		if (!ops)
			continue; /* not built in (library missing) */
		tx_close(*txp);
		rc = tx_open_ops(txp, ops, cfg);
		if (rc == 0 || !*txp)
			return rc;
		/* Reasons that no other method would get past: say it once, stop trying.  Not a
		 * refused AF_XDP socket: it needs more privilege than an AF_PACKET one. */
		if (rc == -ENODEV || rc == -ENETDOWN || rc == -ENOTSUP ||
		    (rc == -EPERM && strcmp(order[i], "xdp")))
			return rc;
		if (note && i + 1 < n)
			note(order[i], tx_strerror(*txp));
	}
	return rc;
}

int tx_drain(struct tx *tx)
{
	return tx->ops->drain(tx);
}

int tx_commit(struct tx *tx)
{
	return tx->ops->commit ? tx->ops->commit(tx) : 0;
}

void tx_close(struct tx *tx)
{
	if (!tx)
		return;
	if (tx->ops)
		tx->ops->close(tx);
	free(tx);
}

const char *tx_strerror(const struct tx *tx)
{
	return tx && tx->err[0] ? tx->err : "unknown error";
}

const char *tx_name(const struct tx *tx)
{
	return tx->ops ? tx->ops->name : "none";
}

const char *tx_mode(const struct tx *tx)
{
	return tx->mode;
}
