/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to src/trace/: what a format file sees of a trace.  A format reads
 * the input only through the cursor (trace_peek/trace_consume), so the source
 * behind it -- a mapping with read-ahead, a memory buffer, a pipe -- can
 * change without touching any parser.
 */
#ifndef REPLAY_TRACE_INT_H
#define REPLAY_TRACE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/compiler.h"
#include "replay/trace.h"

struct trace_ops {
	const char *name;
	/* probe() - true if @head (the first @len bytes of the input) is this format. Magic only. */
	bool (*probe)(const uint8_t *head, size_t len);
	/* open() - parse the file header at the cursor; 0 or -errno (with trace_err()). */
	int (*open)(struct trace *t);
	/* next() - as trace_next(). */
	int (*next)(struct trace *t, struct pkt *p);
	/* close() - free the format's private state; called once after a successful or failed open(). */
	void (*close)(struct trace *t);
};

extern const struct trace_ops trace_pcap_ops;

struct trace {
	const struct trace_ops *ops;
	void *priv;             /* format state, owned by ops */
	char *name;             /* path or caller's name, for messages */

	/* source: the whole input as one read-only byte range */
	const uint8_t *base;    /* first byte of the input */
	size_t size;            /* input length, bytes */
	size_t pos;             /* cursor, bytes from base */
	void *map;              /* our mmap of the file, or NULL */
	int fd;                 /* open file, or -1 */

	unsigned linktype;      /* LINKTYPE_* of the file header or first interface */
	uint64_t recno;         /* records handed out since the start (or rewind) */
	uint64_t nwarn;         /* warnings seen */
	char err[320];          /* last error */
	char warn[320];         /* first warning */
};

/*
 * trace_peek() - pointer to @len bytes at the cursor.  Returns NULL if fewer
 * remain; *@got (if not NULL) is then the number that do, so a format can
 * tell a clean end (0) from a truncated record.
 */
static inline const uint8_t *trace_peek(struct trace *t, size_t len, size_t *got)
{
	size_t left = t->size - t->pos;

	if (got)
		*got = MIN(left, len);
	if (len > left)
		return NULL;
	return t->base + t->pos;
}

/* trace_consume() - advance the cursor past @len bytes already peeked. */
static inline void trace_consume(struct trace *t, size_t len)
{
	t->pos += len;
}

/* trace_offset() - byte offset of the cursor in the file. */
static inline uint64_t trace_offset(const struct trace *t)
{
	return t->pos;
}

/* trace_err() - record a file-level error "NAME: msg"; returns @err (a negative errno). */
int trace_err(struct trace *t, int err, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* trace_rec_err() - record "NAME: record N at offset 0xOFF: msg"; returns @err. */
int trace_rec_err(struct trace *t, int err, uint64_t recno, uint64_t off, const char *fmt, ...)
	PRINTF_LIKE(5, 6);

/* trace_rec_warn() - count a warning about a record; the first one's text is kept. */
void trace_rec_warn(struct trace *t, uint64_t recno, uint64_t off, const char *fmt, ...)
	PRINTF_LIKE(4, 5);

#endif
