/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trace readers.  A trace is opened by path (or from memory), its format is
 * chosen by magic number -- never by file name -- and its records come out one
 * view at a time.  One ops table per format lives in src/trace/<fmt>.c:
 * classic pcap, pcapng and ERF.  A trace compressed with gzip, zstd, xz, lz4
 * (frame format) or bzip2, also told by magic, is decompressed on the way in
 * (src/trace/decomp.c) and read as a stream: it is never mapped, and
 * rewinding a compressed file starts its decompression again.
 *
 * Packets of other link types (Linux cooked captures, raw IP, BSD loopback)
 * are turned into Ethernet frames here, packet by packet, so that everything
 * after the reader sees Ethernet (see trace_cfg.keep_linktype).
 *
 * A trace truncated while it is mapped (log rotation, a copy still being
 * written) does not kill the process with SIGBUS: the reader catches the
 * mapping's fault and trace_next() returns -EIO, naming the file.
 *
 * Errors: functions return -errno; the text, naming the file and, for record
 * errors, the record number and byte offset, is kept in the trace and read
 * with trace_strerror().  Nothing here prints.
 */
#ifndef REPLAY_TRACE_H
#define REPLAY_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/*
 * RECORD_MAX_BYTES - the largest record any reader accepts: the pipeline's
 * frame limit (PKT_FRAME_MAX_BYTES, libpcap's maximum snapshot length) for
 * every link type we send; anything larger is corruption, and checking it
 * before use keeps a bad length from walking us off the end of the file.
 */
#define TRACE_RECORD_MAX_BYTES PKT_FRAME_MAX_BYTES

/*
 * TRACE_VIEW_KEEP_BYTES - how long a view outlives later calls, at least
 * (see trace_next()): a batch of views whose packets total less than this
 * may be held and sent together, whatever the source.
 */
#define TRACE_VIEW_KEEP_BYTES (4u << 20)

/* The read-ahead window: NetVCR's 32 MiB by default (--window-size). */
#define TRACE_WINDOW_DEFAULT_BYTES (32u << 20)
#define TRACE_WINDOW_MIN_BYTES     (256u << 10)

/*
 * The Ethernet addresses given to frames made from other link types when
 * the capture did not record them: locally administered unicast addresses,
 * so a switch floods nothing and no real host answers.
 */
#define TRACE_DEFAULT_SMAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }
#define TRACE_DEFAULT_DMAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }

/*
 * How a trace on disk is read ahead of the send loop (see source.c and
 * replay(1), READING LARGE TRACES).  Every policy but NONE also releases
 * what lies behind the cursor, once per window, so memory stays bounded.
 */
enum trace_readahead {
	TRACE_RA_AUTO,   /* KERNEL where the device reads ahead at least 4 MiB, else WINDOW */
	TRACE_RA_WINDOW, /* MADV_WILLNEED a window ahead of the cursor, in 128 KiB steps (NetVCR) */
	TRACE_RA_KERNEL, /* MADV_SEQUENTIAL + POSIX_FADV_SEQUENTIAL: the kernel's own, doubled */
	TRACE_RA_NONE,   /* no advice, nothing released: the plain mapping (benchmarks' baseline) */
	TRACE_RA_RANDOM, /* MADV_RANDOM: no read-ahead at all (benchmarks' worst case) */
	TRACE_RA_MAX
};

struct trace_cfg {
	bool preload;        /* read the whole input into memory (for loops); refused if it will not fit */
	size_t window_bytes; /* read-ahead window, bytes; 0 = TRACE_WINDOW_DEFAULT_BYTES */
	bool will_rewind;    /* the caller will loop: prefetch the start while the end is read */
	enum trace_readahead readahead; /* for traces on disk; 0 = TRACE_RA_AUTO */
	bool keep_linktype;  /* hand packets over as recorded, without making Ethernet frames */
	const uint8_t *dmac; /* 6 bytes: destination of synthesised Ethernet headers; NULL = default */
	const uint8_t *smac; /* 6 bytes: source, when the capture recorded none; NULL = default */
	const char *format;  /* "pcap", "pcapng" or "erf": skip probing (ERF has no magic); NULL = probe */
	const char *name;    /* trace_open(): the name messages give the input; NULL = its path */
	size_t stream_chunk_bytes; /* trace_open_mem() only, for tests: read the buffer as a pipe
				      would deliver it, at most this many bytes per read; 0 = no */
	/*
	 * The caller's stop flag, set by its SIGINT/SIGTERM handler: a wait for
	 * a pipe's input (and a --preload of one) ends with -EINTR once it is
	 * set, even when the signal came just before the wait began.  NULL: any
	 * interrupted read ends the wait.
	 */
	const volatile sig_atomic_t *stop;
	/*
	 * Never wait for a stream's next record (a pipe, a device, standard
	 * input): trace_next() returns -EAGAIN when it has not all arrived,
	 * having consumed nothing, and the caller waits for trace_fd() to be
	 * readable, doing meanwhile what it would rather not leave waiting (a
	 * staged batch, frames due).  Opening still waits for the file header;
	 * a file, a preload or memory never wait anyway.
	 */
	bool nonblock;
	/* --preload of a pipe: the most memory it may take, bytes; 0 = what is available (MemAvailable). */
	size_t preload_max_bytes;
	/*
	 * --preload of a regular file: this many bytes of zeroed, writable
	 * spare memory right after the copy, page-aligned, in the same mapping
	 * (an AF_XDP sender's staging frames: it registers copy and spare as
	 * one UMEM and sends the copy's frames in place).  0 = none.
	 */
	size_t preload_spare_bytes;
	/*
	 * trace_open() of a regular file read in place (no --preload): read
	 * the header, then trace_release() the file at once -- a check that
	 * holds no descriptor.  trace_rewind() opens it to be read.
	 */
	bool lazy;
};

/*
 * A preloaded file with spare memory after it (trace_cfg.preload_spare_bytes):
 * [base, base + data_bytes) holds the file (a view of a frame as recorded
 * points into it; one the reader converted points elsewhere), and [base + spare_off, base + spare_off + spare_bytes) is
 * the spare.  spare_off is data_bytes rounded up to a page.
 */
struct trace_region {
	uint8_t *base;
	size_t data_bytes;
	size_t spare_off;
	size_t spare_bytes;
};

/* One capture interface: a pcapng IDB, the pcap file header, an ERF port. */
struct trace_iface {
	uint16_t linktype;  /* LINKTYPE_* as recorded */
	uint8_t tsresol;    /* timestamp unit in if_tsresol coding: n = 10^-n s, 0x80 | n = 2^-n s */
	uint8_t fcs_bytes;  /* frame check sequence bytes ending each frame; stripped by the reader */
	uint32_t snaplen;   /* bytes; 0 = none given */
	int64_t tsoffset_s; /* seconds added to every timestamp (pcapng if_tsoffset) */
	uint32_t section;   /* pcapng section, from 0; 0 for other formats */
	char name[32];      /* pcapng if_name, or "" */
};

struct trace;

/*
 * trace_open() - open @path ("-" is standard input) and read its file header.
 * Regular files are mapped and streamed through the read-ahead window (or
 * read whole with cfg->preload); pipes, sockets and devices are read with
 * read().  @cfg may be NULL for defaults.  On success *@tp is the trace and 0
 * is returned.  On failure a negative errno is returned and *@tp is still set
 * (unless memory ran out, then NULL) so that trace_strerror() can say why;
 * the caller closes it either way.
 */
int trace_open(struct trace **tp, const char *path, const struct trace_cfg *cfg);

/*
 * trace_mem_available() - memory a preload can count on: MemAvailable from
 * /proc/meminfo, bytes; the free page count if that cannot be read.
 */
uint64_t trace_mem_available(void);

/*
 * trace_open_mem() - as trace_open(), reading @len bytes at @buf, which the
 * caller keeps alive and unchanged until trace_close().  @name is used in
 * messages.  For tests and fuzz targets.
 */
int trace_open_mem(struct trace **tp, const char *name, const void *buf, size_t len,
		   const struct trace_cfg *cfg);

/*
 * trace_next() - read the next packet into *@p.  Returns 1 with a packet, 0
 * at the end of the trace (including a clean stop at a truncated final
 * record, which is reported as a warning), or a negative errno for a
 * malformed record or a failed read (-EINTR: a signal interrupted a read
 * from a pipe; -EIO: a read error, or the file was truncated under its
 * mapping; -EAGAIN: with cfg->nonblock, a stream's next record has not all
 * arrived yet, and nothing was consumed).
 *
 * Unless cfg->keep_linktype, p->linktype is LINKTYPE_ETHERNET: other link
 * types are converted.  A packet that has no Ethernet form (a CAN frame in
 * a cooked capture, an 802.11 interface in a pcapng) comes back as recorded,
 * with its own p->linktype, and trace_strerror() says why; the caller counts
 * it as failed.
 *
 * View lifetime.  p->data stays valid and unchanged:
 *  - until trace_close() when it points into a regular file, a preloaded
 *    trace or a trace_open_mem() buffer -- the file is mapped whole and the
 *    read-ahead window only advises the kernel what to page in and out, it
 *    never unmaps under a view (rewinding does not invalidate views either);
 *  - otherwise (read from a pipe, or converted from another link type into
 *    the reader's ring) at least until the packets handed out after it total
 *    TRACE_VIEW_KEEP_BYTES.
 * So every view survives the next trace_next(), trace_rewind() (where it
 * succeeds) and any batch of later views smaller than TRACE_VIEW_KEEP_BYTES.
 */
int trace_next(struct trace *t, struct pkt *p);

/*
 * trace_next_batch() - up to @max (at least 1) next packets into @v[0..],
 * the frames, errors and warnings trace_next() would give one call at a
 * time.  Returns the count read (1 or more; fewer than @max says nothing
 * about the next call), or, when the first is not a packet, what
 * trace_next() returns (0, -errno).  The views live as trace_next()'s.
 * Plain records of a mapped or memory pcap are read in one loop, without a
 * call per record; anything else one at a time.
 */
int trace_next_batch(struct trace *t, struct pkt *v, unsigned max);

/*
 * trace_unread() - the packets from @p on, of those the last
 * trace_next_batch() read, are read again by the next call, as if never
 * read.  0, or -EINVAL (nothing done) when @p is not one of them or a
 * trace_next() or trace_rewind() came since.
 */
int trace_unread(struct trace *t, const struct pkt *p);

/*
 * trace_fd() - the descriptor a -EAGAIN from trace_next() waits on
 * (cfg->nonblock): readable, or at its end, when trace_next() may go on.
 * -1 for an input that never waits (a regular file, a preload, memory).
 */
int trace_fd(const struct trace *t);

/*
 * trace_rewind() - go back to the first record, for --loop.  Returns 0, or
 * -ESPIPE when the input cannot be re-read (a pipe without --preload).
 */
int trace_rewind(struct trace *t);

/*
 * trace_release() - let go of a regular file read in place: its descriptor,
 * mapping and converted frames (views into them end here).  Its name,
 * warnings and interface list stay; trace_next() fails (-EINVAL) until
 * trace_rewind() opens the file again (and reads its header again) --
 * which fails, saying why, if the file went or changed.  Nothing happens
 * to memory, a preload or a stream: they cannot be opened again.
 */
void trace_release(struct trace *t);

/* trace_released() - trace_release() let go of @t's file and no trace_rewind() has opened it since. */
bool trace_released(const struct trace *t);

/* trace_can_rewind() - false for a pipe read without --preload: trace_rewind() would fail. */
bool trace_can_rewind(const struct trace *t);

/*
 * trace_preload_region() - where a --preload copy with spare memory lies.
 * Returns false (and leaves @out alone) if @t has none: not preloaded, a
 * stream's preload, or no spare asked for.
 */
bool trace_preload_region(const struct trace *t, struct trace_region *out);

/*
 * trace_preloaded() - the input as --preload read it into memory: *@data
 * and *@len are its bytes (the file, headers and all, as trace_open_mem()
 * reads it), valid and unchanged until trace_close().  False (and @data,
 * @len left alone) for a trace not preloaded.  --threads opens each other
 * thread's reader over thread 0's copy this way: one copy, not one each.
 */
bool trace_preloaded(const struct trace *t, const uint8_t **data, size_t *len);

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
 * trace_compression() - the codec of a compressed trace ("gzip", "zstd",
 * "xz", "lz4", "bzip2"), or NULL for a plain one.  *@in_bytes and
 * *@out_bytes (each may be NULL) are the compressed bytes read and the
 * bytes they made so far: the ratio of the whole file once it was read to
 * its end.
 */
const char *trace_compression(const struct trace *t, uint64_t *in_bytes, uint64_t *out_bytes);

/* trace_format_detail() - e.g. "pcap 2.4, nanosecond magic", for --info; "" if none. */
const char *trace_format_detail(const struct trace *t);

/* trace_byte_order() - "little-endian", "big-endian", "mixed" (pcapng sections differ), or the format's fixed order. */
const char *trace_byte_order(const struct trace *t);

/*
 * trace_linktype() - the link type of the file header or first interface; a
 * format with several interfaces reports per packet in pkt.linktype.
 */
unsigned trace_linktype(const struct trace *t);

/*
 * trace_ninterfaces(), trace_interface() - the capture interfaces seen so far:
 * after trace_open() those the file declares before its first packet, after
 * draining it all of them.  pkt.ifidx indexes this list (pcapng interfaces
 * are numbered across sections in the order of their IDBs).  The pointer is
 * valid until the next trace_next()/trace_rewind(); NULL if @i is out of range.
 */
unsigned trace_ninterfaces(const struct trace *t);
const struct trace_iface *trace_interface(const struct trace *t, unsigned i);

/*
 * trace_linktype_replayable() - true for Ethernet and for the link types the
 * reader turns into Ethernet frames (LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6,
 * NULL, LOOP).
 */
bool trace_linktype_replayable(unsigned linktype);

#endif
