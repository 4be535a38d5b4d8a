/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trace readers.  A trace is opened by path (or from memory), its format is
 * chosen by magic number -- never by file name -- and its records come out one
 * view at a time.  One ops table per format lives in src/trace/<fmt>.c.
 *
 * Errors: functions return -errno; the text, naming the file and, for record
 * errors, the record number and byte offset, is kept in the trace and read
 * with trace_strerror().  Nothing here prints.
 */
#ifndef REPLAY_TRACE_H
#define REPLAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/*
 * RECORD_MAX_BYTES - the largest record any reader accepts.  libpcap's own
 * ceiling (262144, the maximum snapshot length) for every link type we send;
 * anything larger is corruption, and checking it before use keeps a bad
 * length from walking us off the end of the file.
 */
#define TRACE_RECORD_MAX_BYTES (256u * 1024u)

struct trace_cfg {
	bool preload;        /* read the whole file into memory (for loops) */
	size_t window_bytes; /* read-ahead window size, bytes; 0 = default */
};

struct trace;

/*
 * trace_open() - open @path ("-" is standard input) and read its file header.
 * @cfg may be NULL for defaults.  On success *@tp is the trace and 0 is
 * returned.  On failure a negative errno is returned and *@tp is still set
 * (unless memory ran out, then NULL) so that trace_strerror() can say why;
 * the caller closes it either way.
 */
int trace_open(struct trace **tp, const char *path, const struct trace_cfg *cfg);

/*
 * trace_open_mem() - as trace_open(), reading @len bytes at @buf, which the
 * caller keeps alive and unchanged until trace_close().  @name is used in
 * messages.  For tests and fuzz targets.
 */
int trace_open_mem(struct trace **tp, const char *name, const void *buf, size_t len,
		   const struct trace_cfg *cfg);

/*
 * trace_next() - read the next record into *@p.  Returns 1 with a packet, 0
 * at the end of the trace (including a clean stop at a truncated final
 * record, which is reported as a warning), or a negative errno for a
 * malformed record.  p->data stays valid until the next trace_next(),
 * trace_rewind() or trace_close() on this trace.
 */
int trace_next(struct trace *t, struct pkt *p);

/*
 * trace_rewind() - go back to the first record, for --loop.  Returns 0, or
 * -ESPIPE when the input cannot be re-read (a pipe without --preload).
 */
int trace_rewind(struct trace *t);

/* trace_close() - release everything; accepts NULL. */
void trace_close(struct trace *t);

/* trace_strerror() - the last error, e.g. "a.pcap: record 12 at offset 0x1f0: caplen 300000 > 262144". */
const char *trace_strerror(const struct trace *t);

/*
 * trace_warnings() - how many warnings (odd but usable records: caplen above
 * the snap length, a truncated final record...) were seen, and in *@first
 * (if not NULL) the text of the first one.
 */
uint64_t trace_warnings(const struct trace *t, const char **first);

/* trace_name() - the path or name the trace was opened with. */
const char *trace_name(const struct trace *t);

/* trace_format_name() - "pcap", "pcapng", "erf"... of an open trace. */
const char *trace_format_name(const struct trace *t);

/*
 * trace_linktype() - the link type of the file header or first interface; a
 * format with several interfaces reports per packet in pkt.linktype.
 */
unsigned trace_linktype(const struct trace *t);

#endif
