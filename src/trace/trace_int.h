/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to src/trace/: what a format file sees of a trace.  A format reads
 * the input only through the cursor (trace_peek/trace_consume/trace_skip),
 * so the source behind it -- a mapping with read-ahead, a memory buffer, a
 * pipe -- can change without touching any parser.
 */
#ifndef REPLAY_TRACE_INT_H
#define REPLAY_TRACE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "replay/compiler.h"
#include "replay/mapguard.h"
#include "replay/trace.h"

/*
 * TRACE_PEEK_MAX_BYTES - the most a format may peek at once.  A pipe's
 * buffers must hold that much contiguously; larger blocks are either
 * corruption (packet blocks: a record is at most TRACE_RECORD_MAX_BYTES) or
 * skipped with trace_skip(), which needs no room.
 */
#define TRACE_PEEK_MAX_BYTES (1u << 20)

/* The ring converted frames are built in: a view survives TRACE_VIEW_KEEP_BYTES of later ones. */
#define TRACE_RING_BYTES ((size_t)TRACE_VIEW_KEEP_BYTES + TRACE_RECORD_MAX_BYTES + 64)

/*
 * How far ahead of the cursor trace_next() prefetches a mapped or preloaded
 * input, bytes: a page, ~3 frames of 1514 B (BENCHMARKS.md, Reading, "The
 * prefetch": 1 KiB gained less, 8-32 KiB no more).
 */
#define TRACE_PREFETCH_AHEAD ((size_t)4096)
/* ...asked for this much at a time, when less than the window is ahead of the cursor. */
#define TRACE_PREFETCH_STEP ((size_t)512)

/* How many interfaces one trace may declare: bounds the memory a hostile file can make us spend. */
#define TRACE_IFACE_MAX 4096u

/* The longest magic number of a compressed format (xz's). */
#define TRACE_DECOMP_MAGIC_MAX 6

struct decomp;

struct trace_ops {
	const char *name;
	/* probe() - true if @head (the first @len bytes of the input) is this format. Magic only. */
	bool (*probe)(const uint8_t *head, size_t len);
	/*
	 * probe_want() - optional, for a format without magic: how many bytes
	 * probe() needs, given the first @len; at most @len when those are
	 * enough.  A stream waits for that many (or its end), not for more.
	 */
	size_t (*probe_want)(const uint8_t *head, size_t len);
	/* open() - parse the file header at the cursor; 0 or -errno (with trace_err()). */
	int (*open)(struct trace *t);
	/* next() - as trace_next(), in the recorded link type. */
	int (*next)(struct trace *t, struct pkt *p);
	/* close() - free the format's private state; called once after a successful or failed open(). */
	void (*close)(struct trace *t);
};

extern const struct trace_ops trace_pcap_ops;
/*
 * trace_pcap_batch() - trace_next_batch()'s pcap reader: up to @max plain
 * records of a pcap at the cursor of a mapped or memory source into @v, in
 * a loop without a call per record; 0 when the first is not one (pcap.c).
 */
unsigned trace_pcap_batch(struct trace *t, struct pkt *v, unsigned max);
extern const struct trace_ops trace_pcapng_ops;
extern const struct trace_ops trace_erf_ops;

enum trace_src {
	TRACE_SRC_MEM,    /* the caller's buffer, or our preloaded copy */
	TRACE_SRC_MAP,    /* a regular file mapped whole, paged through the read-ahead window */
	TRACE_SRC_STREAM, /* read() into two alternating buffers: pipes, devices, stdin */
	TRACE_SRC_MAX
};

/* Byte orders seen, for trace_byte_order(). */
enum {
	TRACE_BO_LE = 1u << 0,
	TRACE_BO_BE = 1u << 1,
};

struct trace {
	const struct trace_ops *ops;
	void *priv;             /* format state, owned by ops */
	char *name;             /* path or caller's name, for messages */
	char *path;             /* trace_open()'s path: trace_rewind() opens a released file again; NULL for memory */
	const struct trace_ops *released; /* trace_release()d: the format to read it with when opened again */
	bool checking;          /* trace_open() with cfg.lazy: the header is read, no read-ahead asked for */
	struct trace_cfg cfg;   /* as given; dmac/smac point at the copies below */
	uint8_t dmac[6], smac[6];

	/*
	 * The source: base[0, size) is the input from file offset base_off;
	 * the cursor is base + pos.  Memory and mapped sources hold the whole
	 * input (base_off 0); a stream holds a sliding part of it.
	 */
	enum trace_src src;
	const uint8_t *base;
	size_t size;            /* bytes at base */
	size_t pos;             /* cursor, bytes from base */
	uint64_t base_off;      /* file offset of base[0] */
	int fd;                 /* open input, or -1 */
	bool own_fd;            /* we opened fd (not standard input) */
	void *map;              /* our mapping of the file, or NULL */
	size_t map_bytes;
	uint8_t *mem;           /* our preloaded copy, or NULL */
	size_t mem_bytes;       /* its allocation, bytes */
	size_t spare_off;       /* --preload of a file: the spare after the copy starts here; 0 = none */
	size_t pf_next;         /* mapped or memory source: [pos, pf_next) was prefetched into the cache */

	/* read-ahead window over a mapping (see window_step() in source.c) */
	size_t win_bytes;       /* window, bytes, a multiple of the read-ahead chunk */
	size_t ra_next;         /* cursor position at which the source's next step is due
				   (trace_src_step(); 0 for a non-blocking stream: every record); SIZE_MAX: never */
	size_t ra_done;         /* WILLNEED issued for [0, ra_done) */
	size_t ra_wrap;         /* ...and, for loops, for the file's start [0, ra_wrap) again */
	size_t rel_done;        /* pages below this were released */
	size_t rel_next;        /* cursor position at which the next release is due (once a window) */
	enum trace_readahead ra_policy; /* what cfg.readahead (AUTO) came to for this file */
	bool ra_willneed;       /* keep a window ahead MADV_WILLNEED (TRACE_RA_WINDOW) */
	bool ra_release;        /* release behind the cursor (file larger than two windows) */
	bool fadvise_behind;    /* also drop released pages from the page cache (file larger than RAM/2) */
	uint8_t first_byte;     /* read at open to fault the file's start in */
	/* the mapping's faults (a file truncated under it): replay/mapguard.h */
	struct mapguard bus;    /* .fault: a read beyond the file's end was caught; .off: where */
	bool bus_said;          /* trace_src_failed() gave the reason */

	/* stream: two buffers; views in the one not being filled stay put */
	uint8_t *sbuf[2];
	size_t scap;            /* bytes in each */
	unsigned scur;          /* buffer at base */
	bool seof;              /* read() said end of input (or failed) */
	int io_err;             /* a failed read() or a caught fault, -errno; 0 if none */
	const uint8_t *smem;    /* stream_chunk_bytes: the memory read as a pipe */
	size_t smem_len, smem_pos;
	/* a compressed input (decomp.c): the stream buffers hold its output */
	struct decomp *dec;     /* the decompressor, or NULL */
	bool dec_file;          /* ...of a regular file: rewound by starting it again */
	uint64_t dec_nwarn;     /* warnings before the decompressor failed: those after are its echo */
	uint8_t sniff[TRACE_DECOMP_MAGIC_MAX]; /* a plain stream's first bytes, read to look for a codec's magic */
	size_t sniff_len, sniff_pos;
	/*
	 * cfg.nonblock: where the record being read began, and the warnings
	 * counted then.  A read that would wait puts the cursor back there
	 * and trace_next() says -EAGAIN; SIZE_MAX: no mark (opening, or the
	 * record began too far back to be read again), so the read waits.
	 */
	size_t nb_mark;
	uint64_t nb_nwarn;

	/* link-type conversion: a ring of synthesised frames */
	uint8_t *ring;
	size_t ring_pos;

	/* what the file says about itself */
	struct trace_iface *ifs;
	unsigned nifs, ifcap;
	unsigned byte_orders;   /* TRACE_BO_* seen */
	const char *fixed_order;/* a format's own fixed byte order (ERF), or NULL */
	char detail[96];        /* trace_format_detail() */

	unsigned linktype;      /* LINKTYPE_* of the file header or first interface */
	uint64_t recno;         /* packets handed out since the start (or rewind) */
	uint64_t batch_recno;   /* the first record of the last trace_next_batch() (0: none to put back) */
	uint64_t nwarn;         /* warnings seen */
	char err[320];          /* last error */
	char warn[320];         /* first warning */
};

/* trace_src_reset() - after trace_src_close(): the source as trace_alloc() left it, to be opened again. */
void trace_src_reset(struct trace *t);

/* trace_peek_slow() - trace_peek() when the bytes are not all at hand: a stream reads more. */
const uint8_t *trace_peek_slow(struct trace *t, size_t len, size_t *got);

/*
 * trace_peek() - pointer to @len (at most TRACE_PEEK_MAX_BYTES) bytes at the
 * cursor.  Returns NULL if fewer remain in the input; *@got (if not NULL) is
 * then the number that do, so a format can tell a clean end (0) from a
 * truncated record.  The bytes stay valid as trace_next() promises its views.
 */
static inline const uint8_t *trace_peek(struct trace *t, size_t len, size_t *got)
{
	if (likely(len <= t->size - t->pos)) {
		if (got)
			*got = len;
		return t->base + t->pos;
	}
	return trace_peek_slow(t, len, got);
}

/*
 * trace_prefetch() - trace_next()'s prefetch (see there) of a mapped or
 * memory input @base of @size bytes, its cursor at @pos, [@pos, @pf)
 * asked for already: the lines up to TRACE_PREFETCH_AHEAD past the
 * cursor, TRACE_PREFETCH_STEP at a time.  The new @pf.
 */
static inline size_t trace_prefetch(const uint8_t *base, size_t size, size_t pos, size_t pf)
{
	size_t ahead = pf - pos; /* huge when behind the cursor: a rewind */

	if (unlikely(ahead < TRACE_PREFETCH_AHEAD - TRACE_PREFETCH_STEP || ahead > TRACE_PREFETCH_AHEAD)) {
		size_t to = MIN(pos + TRACE_PREFETCH_AHEAD, size);

		if (pf < pos || pf > to)
			pf = pos & ~(size_t)63;
		for (; pf < to; pf += 64)
			__builtin_prefetch(base + pf, 0, 3);
	}
	return pf;
}

/* trace_consume() - advance the cursor past @len bytes already peeked. */
static inline void trace_consume(struct trace *t, size_t len)
{
	t->pos += len;
}

/*
 * trace_skip() - advance the cursor by @len bytes, which need not be peeked
 * nor fit in memory (a large block nobody reads).  Returns the bytes skipped:
 * fewer than @len only at the end of the input.
 */
uint64_t trace_skip(struct trace *t, uint64_t len);

/* trace_offset() - byte offset of the cursor in the file. */
static inline uint64_t trace_offset(const struct trace *t)
{
	return t->base_off + t->pos;
}

/* trace_err() - record a file-level error "NAME: msg"; returns @err (a negative errno). */
int trace_err(struct trace *t, int err, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* trace_off_err() - record "NAME: offset 0xOFF: msg", for blocks that are not packets; returns @err. */
int trace_off_err(struct trace *t, int err, uint64_t off, const char *fmt, ...) PRINTF_LIKE(4, 5);

/* trace_rec_err() - record "NAME: record N at offset 0xOFF: msg"; returns @err. */
int trace_rec_err(struct trace *t, int err, uint64_t recno, uint64_t off, const char *fmt, ...)
	PRINTF_LIKE(5, 6);

/* trace_rec_warn() - count a warning about a record; the first one's text is kept. */
void trace_rec_warn(struct trace *t, uint64_t recno, uint64_t off, const char *fmt, ...)
	PRINTF_LIKE(4, 5);

/* trace_off_warn() - count a warning about a non-packet block at @off. */
void trace_off_warn(struct trace *t, uint64_t off, const char *fmt, ...) PRINTF_LIKE(3, 4);

/*
 * trace_add_iface() - append an interface to the trace's list; returns its
 * index, or -errno (with trace_off_err() at @off) past TRACE_IFACE_MAX or
 * out of memory.
 */
int trace_add_iface(struct trace *t, const struct trace_iface *ifc, uint64_t off);

/* Sources (source.c). */
int trace_src_open_file(struct trace *t, const char *path);
void trace_src_mem(struct trace *t, const void *buf, size_t len);
/* trace_src_mem_stream() - read @buf through the stream path (cfg.stream_chunk_bytes per read), for tests. */
int trace_src_mem_stream(struct trace *t, const void *buf, size_t len);
int trace_src_rewind(struct trace *t);
void trace_src_close(struct trace *t);
/*
 * trace_preload_file() - --preload of the regular file at t->fd, @size
 * bytes: an anonymous copy in t->mem (spare memory after it if
 * cfg.preload_spare_bytes asks), checked against what memory is free
 * first; the descriptor is closed.  0 (the caller points the source at
 * t->mem), or -errno with the reason set.
 */
int trace_preload_file(struct trace *t, size_t size);
/* trace_preload_refused() - -ENOMEM: a preload of @need bytes when only @avail are free. */
int trace_preload_refused(struct trace *t, uint64_t need, uint64_t avail);
/*
 * trace_preload_map_failed() - the memory for a preload of @need bytes,
 * @more of them new, was refused (mmap, mremap): -ENOMEM naming the
 * address-space limit (ulimit -v) when one is set and @more does not fit
 * under it -- free memory does not help then -- else the want of memory.
 */
int trace_preload_map_failed(struct trace *t, uint64_t need, uint64_t more, uint64_t avail);
/*
 * trace_src_raw_read() - one read() of the input as it is stored (compressed
 * or not): bytes, 0 at its end, or -errno (-EINTR: the caller is to stop;
 * -EAGAIN: nothing to read, and a record is marked).
 */
ssize_t trace_src_raw_read(struct trace *t, uint8_t *buf, size_t len);

/*
 * Compressed inputs (decomp.c), read through the stream path: the codec's
 * output fills the stream buffers as a pipe's bytes would.
 * trace_decomp_probe() - the codec whose magic begins @head (@len bytes),
 * or -1 for none.
 */
int trace_decomp_probe(const uint8_t *head, size_t len);
/* trace_decomp_new() - give @t a decompressor for @codec, its first @len input bytes already read at @head. */
int trace_decomp_new(struct trace *t, int codec, const uint8_t *head, size_t len);
/*
 * trace_decomp_read() - up to @len decompressed bytes into @buf: bytes, 0
 * at the end, or -errno: the raw read's, or -EBADMSG for a corrupt or
 * truncated stream, with the message (file, record, compressed offset) set.
 * Bytes made before a failure are handed out first.
 */
ssize_t trace_decomp_read(struct trace *t, uint8_t *buf, size_t len);
/* trace_decomp_reset() - back to the input's start (the caller rewinds the raw input); 0 or -errno. */
int trace_decomp_reset(struct trace *t);
/* trace_decomp_failed() - the decompressor failed, and said so in t->err. */
bool trace_decomp_failed(const struct trace *t);
void trace_decomp_free(struct trace *t);

/*
 * trace_src_failed() - t->io_err is set: complete its message where a
 * signal handler could not (a mapping's fault: how far the file shrank);
 * returns t->io_err.
 */
int trace_src_failed(struct trace *t);
/*
 * trace_src_step() - trace_next() calls it when pos >= ra_next, before a
 * record: a mapping's read-ahead window advances to the cursor; a
 * non-blocking stream marks the record's start (t->nb_mark).
 */
void trace_src_step(struct trace *t);

/*
 * trace_commit() - a format that reads several blocks for one record (a
 * pcapng interface block, then its packet) has taken in the blocks before
 * the cursor for good: a read that would wait goes back only to here.
 */
static inline void trace_commit(struct trace *t)
{
	if (t->nb_mark != SIZE_MAX) {
		t->nb_mark = t->pos;
		t->nb_nwarn = t->nwarn;
	}
}

/*
 * trace_to_ethernet() - replace @p (not Ethernet) by an Ethernet frame built
 * in the trace's ring (linktype.c).  Returns true, or false leaving @p as it
 * was and the reason in t->err.
 */
bool trace_to_ethernet(struct trace *t, struct pkt *p);

/* trace_ts_units_to_ns() - a timestamp of @units in @tsresol coding as ns; false on overflow. */
bool trace_ts_units_to_ns(uint64_t units, uint8_t tsresol, uint64_t *ns);

/* Fixed-width fields of a file written in either byte order: @swapped when it is not ours. */
static inline uint16_t trace_rd16(const uint8_t *b, bool swapped)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

static inline uint32_t trace_rd32(const uint8_t *b, bool swapped)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

static inline uint64_t trace_rd64(const uint8_t *b, bool swapped)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return swapped ? __builtin_bswap64(v) : v;
}

#endif
