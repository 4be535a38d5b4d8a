// SPDX-License-Identifier: BSD-2-Clause
/* Backend registry and the helpers every backend shares. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tx_int.h"

static const struct tx_ops *const backends[] = {
	&tx_packet_ops,
	&tx_file_ops,
};

int tx_err(struct tx *tx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tx->err, sizeof(tx->err), fmt, ap);
	va_end(ap);
	return err;
}

int tx_open_ops(struct tx **txp, const struct tx_ops *ops, const struct tx_cfg *cfg)
{
	struct tx *tx = calloc(1, sizeof(*tx));
	int rc;

	*txp = tx;
	if (!tx)
		return -ENOMEM;
	tx->ops = ops;
	rc = tx->ops->open(tx, cfg);
	if (rc < 0) {
		tx->ops->close(tx);
		tx->ops = NULL;
	}
	return rc;
}

int tx_open(struct tx **txp, const char *method, const struct tx_cfg *cfg)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(backends[i]->name, method))
			return tx_open_ops(txp, backends[i], cfg);
	*txp = calloc(1, sizeof(**txp));
	if (!*txp)
		return -ENOMEM;
	return tx_err(*txp, -ENOENT, "no transmit method '%s'", method);
}

int tx_drain(struct tx *tx)
{
	return tx->ops->drain(tx);
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
