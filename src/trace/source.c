// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where a trace's bytes come from: the caller's memory, a regular file mapped
 * whole and paged through a read-ahead window, a preloaded copy (-K), or a
 * stream (pipe, device, standard input) read into two alternating buffers.  A
 * file is mapped once, whole, so a view stays valid until trace_close() and the
 * methods may batch views.  The window bounds memory, not the mapping:
 * window_step() releases what lies RELEASE_LAG behind the cursor once a
 * window, and keeps the window ahead on its way in -- by the kernel's
 * read-ahead where it runs KERNEL_RA_ENOUGH ahead, else by NetVCR's
 * MADV_WILLNEED steps (map_file() picks).  A file truncated under its mapping
 * raises SIGBUS, which is caught (replay/mapguard.h): zeros are mapped over
 * the rest, and the next trace_next() fails with -EIO naming the file and
 * where it ended.  A stream read with cfg.nonblock never waits for a record:
 * one not all there is put back and trace_next() says -EAGAIN.  Why each:
 * doc/reading.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trace_int.h"

/* One read-ahead step (doc/reading.md says why this size). */
#define RA_CHUNK_BYTES ((size_t)128 << 10)
/* Releases start on a huge-page boundary, so a 2 MiB mapping around the cursor is never split. */
#define RELEASE_ALIGN_BYTES ((size_t)2 << 20)
/* The kernel's sequential read-ahead that makes our own unnecessary (doc/reading.md). */
#define KERNEL_RA_ENOUGH_BYTES ((size_t)4 << 20)
/* Pages this far behind the cursor stay mapped: views a method still holds are not refaulted. */
#define RELEASE_LAG_BYTES ((size_t)1 << 20)
/* What a stream peeks for the probe, and how it grows a preload. */
#define STREAM_MIN_BYTES ((size_t)TRACE_VIEW_KEEP_BYTES + 2 * TRACE_PEEK_MAX_BYTES)

static size_t round_down(size_t v, size_t to)
{
	return v - v % to;
}

void trace_src_mem(struct trace *t, const void *buf, size_t len)
{
	t->src = TRACE_SRC_MEM;
	t->base = buf;
	t->size = len;
	t->pos = 0;
	t->base_off = 0;
	t->ra_next = SIZE_MAX;
}

static void advise_ahead(struct trace *t, size_t from, size_t len)
{
	(void)madvise((uint8_t *)t->map + from, len, MADV_WILLNEED);
}

static void window_step(struct trace *t)
{
	size_t chunk_end = round_down(t->pos, RA_CHUNK_BYTES) + RA_CHUNK_BYTES;
	size_t want = chunk_end + t->win_bytes;
	struct stat st;

	/*
	 * Has the file shrunk?  Not every kernel faults at once on pages of a
	 * truncated file that are still mapped (a large folio straddling the
	 * new end may stay), so the size is checked too, once a step: the
	 * reader then stops within a step of the cut instead of sending what
	 * the file no longer holds.
	 */
	if (!t->bus.fault && fstat(t->fd, &st) == 0 && (uint64_t)st.st_size < t->map_bytes) {
		t->bus.off = t->pos;
		t->bus.fault = 1;
		t->io_err = -EIO;
		t->ra_next = SIZE_MAX;
		return;
	}

	if (t->ra_willneed) {
		/* Keep one window beyond the chunk being read on its way into the page cache. */
		while (t->ra_done < MIN(want, t->size)) {
			size_t n = MIN(RA_CHUNK_BYTES, t->size - t->ra_done);

			advise_ahead(t, t->ra_done, n);
			t->ra_done += n;
		}
		/* Looping: the window runs on past the end into the file's start. */
		if (t->cfg.will_rewind && want > t->size) {
			size_t wrap = MIN(want - t->size, t->size);

			while (t->ra_wrap < wrap) {
				size_t n = MIN(RA_CHUNK_BYTES, t->size - t->ra_wrap);

				advise_ahead(t, t->ra_wrap, n);
				t->ra_wrap += n;
			}
		}
	} else if (t->cfg.will_rewind && !t->ra_wrap && want > t->size) {
		/* The kernel reads ahead within the file only: start the next pass's read now. */
		(void)posix_fadvise(t->fd, 0, (off_t)MIN(t->win_bytes, t->size), POSIX_FADV_WILLNEED);
		t->ra_wrap = MIN(t->win_bytes, t->size);
	}
	/* Release behind, once per window: doc/reading.md says why not more often. */
	if (t->ra_release && t->pos >= t->rel_next) {
		size_t rel = round_down(t->pos - MIN(t->pos, RELEASE_LAG_BYTES), RELEASE_ALIGN_BYTES);

		if (rel > t->rel_done) {
			(void)madvise((uint8_t *)t->map + t->rel_done, rel - t->rel_done, MADV_DONTNEED);
			if (t->fadvise_behind)
				(void)posix_fadvise(t->fd, (off_t)t->rel_done, (off_t)(rel - t->rel_done),
						    POSIX_FADV_DONTNEED);
			t->rel_done = rel;
		}
		t->rel_next = round_down(t->pos, t->win_bytes) + t->win_bytes;
	}
	t->ra_next = chunk_end;
}

void trace_src_step(struct trace *t)
{
	if (t->src == TRACE_SRC_STREAM) {
		/* A non-blocking stream: where this record begins, to come back to if it has not all arrived. */
		t->nb_mark = t->pos;
		t->nb_nwarn = t->nwarn;
		return;
	}
	window_step(t);
}

/* The kernel's read-ahead for the device holding @st, bytes (sysfs read_ahead_kb); 0 if unknown. */
static size_t device_readahead_bytes(const struct stat *st)
{
	/* A partition has no queue of its own: its disk's is one level up. */
	static const char *const queue[] = { "queue", "../queue" };
	unsigned long kb = 0;

	for (size_t i = 0; i < ARRAY_SIZE(queue) && !kb; i++) {
		char path[96];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s/read_ahead_kb",
			 major(st->st_dev), minor(st->st_dev), queue[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%lu", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	return (size_t)kb << 10;
}

int trace_src_failed(struct trace *t)
{
	struct stat st;

	if (t->io_err == -EAGAIN) {
		/* The record has not all arrived: as if it had not been begun (its warnings too). */
		t->io_err = 0;
		t->pos = t->nb_mark;
		t->nwarn = t->nb_nwarn;
		if (!t->nwarn)
			t->warn[0] = '\0';
		return -EAGAIN;
	}

	if (trace_decomp_failed(t) && t->nwarn > t->dec_nwarn) {
		t->nwarn = t->dec_nwarn;
		if (!t->nwarn)
			t->warn[0] = '\0';
	}

	if (t->bus.fault && !t->bus_said) {
		t->bus_said = true;
		if (fstat(t->fd, &st) == 0 && (uint64_t)st.st_size < t->map_bytes)
			trace_err(t, -EIO,
				  "the file shrank from %zu to %llu bytes while it was replayed "
				  "(truncated or rewritten under us); stopping at offset 0x%zx",
				  t->map_bytes, (unsigned long long)st.st_size, t->bus.off);
		else
			trace_err(t, -EIO, "cannot read offset 0x%zx of the mapped file (I/O error)",
				  t->bus.off);
	}
	return t->io_err;
}

static int map_file(struct trace *t, const struct stat *st)
{
	size_t size = (size_t)st->st_size;
	size_t win = t->cfg.window_bytes ? t->cfg.window_bytes : TRACE_WINDOW_DEFAULT_BYTES;
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	enum trace_readahead ra = t->cfg.readahead;

	t->map = mmap(NULL, size, PROT_READ, MAP_SHARED, t->fd, 0);
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		return trace_err(t, -errno, "cannot map: %s", strerror(errno));
	}
	t->map_bytes = size;
	mapguard_watch(&t->bus, t->map, size, &t->io_err);
	t->src = TRACE_SRC_MAP;
	t->base = t->map;
	t->size = size;
	t->pos = 0;
	t->ra_next = SIZE_MAX;
	if (ra == TRACE_RA_AUTO)
		/* POSIX_FADV_SEQUENTIAL doubles the device's read-ahead for this file */
		ra = 2 * device_readahead_bytes(st) >= KERNEL_RA_ENOUGH_BYTES ? TRACE_RA_KERNEL
									: TRACE_RA_WINDOW;
	t->ra_policy = ra;
	/* A lazy open reads the header and lets go: no read-ahead for a file not read yet. */
	if (ra == TRACE_RA_NONE || t->checking)
		return 0;
	if (ra == TRACE_RA_RANDOM) {
		(void)madvise(t->map, size, MADV_RANDOM);
		return 0;
	}
	(void)madvise(t->map, size, MADV_SEQUENTIAL);
	if (ra == TRACE_RA_KERNEL) {
		(void)posix_fadvise(t->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		/*
		 * Ask for 2 MiB folios: a fault that misses the page cache then
		 * reads ahead in PMD-sized folios, each mapped by one fault and
		 * one TLB entry.  Measured (readbench drain, a 306 MB trace of
		 * 1514-byte frames after drop_caches, kernel 6.18 on ext4):
		 * faults on the mapping 958 -> 146, 2 MiB mappings 105 -> 145 of
		 * 146 (thp_file_mapped in /proc/vmstat).  What is already cached
		 * keeps its folios; MADV_WILLNEED (WINDOW) reads 4 KiB ones
		 * whatever this says, so there it would change nothing.
		 */
		(void)madvise(t->map, size, MADV_HUGEPAGE);
	}
	t->ra_willneed = ra == TRACE_RA_WINDOW;
	t->win_bytes = MAX(round_down(win, RA_CHUNK_BYTES), RA_CHUNK_BYTES);
	/* A file within two windows is resident in full anyway: releasing it would only cost refaults on loops. */
	t->ra_release = size > 2 * t->win_bytes;
	t->rel_next = t->win_bytes;
	/* Too big to stay cached from one pass to the next: do not push the rest of the system out for it. */
	t->fadvise_behind = size > ram / 2;
	window_step(t);
	/*
	 * Fault the start in now, while opening: the first packet must not
	 * wait for the disk, and a fault (unlike WILLNEED) makes the kernel
	 * start its read-ahead with large folios.
	 */
	t->first_byte = *(const volatile uint8_t *)t->map;
	return 0;
}

static int stream_init(struct trace *t)
{
	size_t win = t->cfg.window_bytes ? t->cfg.window_bytes : TRACE_WINDOW_DEFAULT_BYTES;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	t->scap = MAX(win, STREAM_MIN_BYTES);
	/* A memory stream (tests, fuzzing) of known size that fits one buffer needs no more. */
	if (t->smem && !t->dec && t->smem_len < t->scap)
		t->scap = (t->smem_len + page) / page * page;
	for (int i = 0; i < 2; i++) {
		/* Anonymous and untouched: a short trace costs only the pages it fills. */
		void *b = mmap(NULL, t->scap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (b == MAP_FAILED)
			return trace_err(t, -ENOMEM, "out of memory for the input buffers");
		t->sbuf[i] = b;
	}
	t->src = TRACE_SRC_STREAM;
	t->base = t->sbuf[0];
	t->size = 0;
	t->pos = 0;
	t->base_off = 0;
	/* Non-blocking: each record's start is marked (trace_src_step()); the header is waited for. */
	t->ra_next = t->cfg.nonblock && !t->smem && !t->dec_file ? 0 : SIZE_MAX;
	t->nb_mark = SIZE_MAX;
	return 0;
}

/* One read of the trace's bytes: decompressed if the input is compressed. */
static ssize_t stream_read(struct trace *t, uint8_t *buf, size_t len)
{
	if (t->dec)
		return trace_decomp_read(t, buf, len);
	return trace_src_raw_read(t, buf, len);
}

/*
 * Is the stream compressed?  Its first bytes are read (waiting for them, as
 * opening waits for the file header) and either handed to the decompressor
 * or kept to be read again first.  Magic only, never the name.
 */
static int stream_sniff(struct trace *t)
{
	int codec;

	while (t->sniff_len < sizeof(t->sniff)) {
		ssize_t n = trace_src_raw_read(t, t->sniff + t->sniff_len, sizeof(t->sniff) - t->sniff_len);

		if (n == 0)
			break;
		if (n < 0) {
			if (n == -EINTR)
				return trace_err(t, -EINTR, "interrupted while waiting for input");
			return trace_err(t, (int)n, "read error: %s", strerror((int)-n));
		}
		t->sniff_len += (size_t)n;
	}
	codec = trace_decomp_probe(t->sniff, t->sniff_len);
	if (codec < 0)
		return 0;
	t->sniff_pos = t->sniff_len;
	return trace_decomp_new(t, codec, t->sniff, t->sniff_len);
}

/* A regular file with a codec's magic: read through the decompressor from its start, not mapped. */
static int file_sniff(struct trace *t)
{
	uint8_t head[TRACE_DECOMP_MAGIC_MAX];
	ssize_t n = pread(t->fd, head, sizeof(head), 0);
	int codec;

	if (n < 0)
		return trace_err(t, -errno, "cannot read: %s", strerror(errno));
	codec = trace_decomp_probe(head, (size_t)n);
	if (codec < 0)
		return 0;
	t->dec_file = true;
	return trace_decomp_new(t, codec, NULL, 0) < 0 ? -ENOMEM : 1;
}

/*
 * Make @len bytes at the cursor contiguous.  Input is read into the current
 * buffer until it is full; only then, if more is needed, does the unread
 * tail (< TRACE_PEEK_MAX_BYTES) move to the start of the other buffer and
 * filling go on there.  So a buffer is overwritten only after the other one
 * filled up entirely: a view lives on for at least scap - 2 *
 * TRACE_PEEK_MAX_BYTES >= TRACE_VIEW_KEEP_BYTES more bytes of input.
 */
const uint8_t *trace_peek_slow(struct trace *t, size_t len, size_t *got)
{
	if (t->src == TRACE_SRC_STREAM && len <= TRACE_PEEK_MAX_BYTES) {
		while (t->size - t->pos < len && !t->seof) {
			ssize_t n;

			if (t->size == t->scap) {
				/* From the marked record's start: a read that would wait goes back there. */
				size_t from = t->pos, keep;
				uint8_t *nb = t->sbuf[t->scur ^ 1];

				if (t->nb_mark != SIZE_MAX && t->size - t->nb_mark <= TRACE_PEEK_MAX_BYTES)
					from = t->nb_mark;
				else
					t->nb_mark = SIZE_MAX; /* a block too long to read again: its rest is waited for */
				keep = t->size - from;
				memcpy(nb, t->base + from, keep);
				t->scur ^= 1;
				t->base_off += from;
				t->base = nb;
				t->size = keep;
				t->pos -= from;
				if (t->nb_mark != SIZE_MAX)
					t->nb_mark -= from;
			}
			n = stream_read(t, (uint8_t *)t->base + t->size, t->scap - t->size);
			if (n > 0) {
				t->size += (size_t)n;
			} else if (n == 0) {
				t->seof = true;
			} else if (n == -EAGAIN) {
				/* Not all there yet: trace_next() goes back to the mark (trace_src_failed()). */
				t->io_err = -EAGAIN;
				break;
			} else if (n == -EINTR) {
				/* No SA_RESTART: a signal asks us to stop, and a pipe may stay silent forever. */
				t->io_err = -EINTR;
				trace_err(t, -EINTR, "interrupted while waiting for input");
				break;
			} else {
				t->io_err = (int)n;
				t->seof = true;
				/*
				 * A broken compressed stream has said where already,
				 * and the short record the format is about to warn of
				 * is its doing: trace_src_failed() takes that back.
				 */
				t->dec_nwarn = t->nwarn;
				if (!trace_decomp_failed(t))
					trace_err(t, (int)n, "read error at offset 0x%llx: %s",
						  (unsigned long long)(t->base_off + t->size), strerror((int)-n));
			}
		}
		if (len <= t->size - t->pos) {
			if (got)
				*got = len;
			return t->base + t->pos;
		}
	}
	if (got)
		*got = t->size - t->pos;
	return NULL;
}

uint64_t trace_skip(struct trace *t, uint64_t len)
{
	uint64_t done = 0;

	while (done < len) {
		size_t want = (size_t)MIN(len - done, (uint64_t)TRACE_PEEK_MAX_BYTES);
		size_t got;

		if (!trace_peek(t, want, &got)) {
			trace_consume(t, got);
			return done + got;
		}
		trace_consume(t, want);
		done += want;
	}
	return done;
}

/*
 * --preload of a stream: read to the end into one growing buffer.  Its cap
 * is fixed at the start (cfg.preload_max_bytes, or the memory available
 * then), so what the buffer already holds cannot make room for more of it;
 * each growth is also checked against what is available at that moment.
 * A signal (the caller's stop flag) ends it with -EINTR, however long the
 * pipe stays silent.
 */
static int preload_stream_failed(struct trace *t, uint8_t *buf, size_t bytes, ssize_t n, size_t len)
{
	if (buf)
		munmap(buf, bytes);
	if (n == -EINTR)
		return trace_err(t, -EINTR,
				 "interrupted while reading the input into memory (--preload), after %zu bytes",
				 len);
	if (trace_decomp_failed(t))
		return (int)n;
	return trace_err(t, (int)n, "read error: %s", strerror((int)-n));
}

/*
 * The buffer, @old bytes mapped at @buf (none at first), made @bytes long:
 * anonymous memory, moved by mremap() where it cannot grow in place (no
 * copy through a second buffer, as realloc() of a large block would make),
 * asked for in 2 MiB pages as trace_preload_file()'s copy is (preload.c
 * says what that saves).  NULL when the kernel has not the memory.
 */
static uint8_t *preload_grow(uint8_t *buf, size_t old, size_t bytes)
{
	void *p = old ? mremap(buf, old, bytes, MREMAP_MAYMOVE)
		      : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static int preload_stream(struct trace *t)
{
	uint64_t limit = MAX(t->cfg.preload_max_bytes ? t->cfg.preload_max_bytes : trace_mem_available(), 1);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t cap = 0, len = 0, mapped = 0;
	uint8_t *buf = NULL;
	ssize_t n;

	for (;;) {
		if (len == cap) {
			uint64_t avail = trace_mem_available();
			/* From 6 MiB (STREAM_MIN_BYTES) doubling: whole 2 MiB pages up to the cap. */
			size_t ncap = cap ? cap * 2 : STREAM_MIN_BYTES, nmap;
			uint8_t *nb, more;

			/* Full at the cap: refused unless the input ends right here. */
			if (cap && cap >= limit) {
				n = stream_read(t, &more, 1);
				if (n == 0)
					break;
				if (n < 0)
					return preload_stream_failed(t, buf, mapped, n, len);
				munmap(buf, mapped);
				return trace_err(t, -ENOMEM,
						 "--preload: the input is larger than the %.1f MiB of memory it may take%s; "
						 "replay it without --preload (it streams)",
						 limit / 1048576.0,
						 t->cfg.preload_max_bytes ? "" : " (what was available)");
			}
			/* The last step stops short of doubling, at the cap itself. */
			ncap = (size_t)MIN((uint64_t)ncap, limit);
			if (ncap - cap > avail) {
				if (buf)
					munmap(buf, mapped);
				return trace_preload_refused(t, ncap, avail + cap);
			}
			nmap = (ncap + page - 1) / page * page;
			nb = preload_grow(buf, mapped, nmap);
			if (!nb) {
				/* Said while the buffer is still mapped: it counts against the limit. */
				int rc = trace_preload_map_failed(t, ncap, nmap - mapped, avail + cap);

				if (buf)
					munmap(buf, mapped);
				return rc;
			}
			buf = nb;
			cap = ncap;
			mapped = nmap;
		}
		n = stream_read(t, buf + len, cap - len);
		if (n == 0)
			break;
		if (n < 0)
			return preload_stream_failed(t, buf, mapped, n, len);
		len += (size_t)n;
	}
	t->mem = buf;
	t->mem_bytes = mapped; /* mapped: trace_src_close() unmaps it */
	trace_src_mem(t, buf, len);
	return 0;
}

int trace_src_open_file(struct trace *t, const char *path)
{
	struct stat st;
	int rc;

	if (!strcmp(path, "-")) {
		t->fd = STDIN_FILENO;
	} else {
		t->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (t->fd < 0)
			return trace_err(t, -errno, "cannot open: %s", strerror(errno));
		t->own_fd = true;
	}
	if (fstat(t->fd, &st) < 0)
		return trace_err(t, -errno, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return trace_err(t, -EISDIR, "is a directory, not a trace");
	if (S_ISREG(st.st_mode)) {
		int rc;

		if (st.st_size == 0) {
			trace_src_mem(t, "", 0);
			return 0;
		}
		if ((uint64_t)st.st_size > SIZE_MAX)
			return trace_err(t, -EFBIG, "too large to map");
		rc = file_sniff(t);
		if (rc < 0)
			return rc;
		/* Compressed: streamed (or preloaded) through the decompressor, whatever its size. */
		if (rc > 0)
			return t->cfg.preload ? preload_stream(t) : stream_init(t);
		if (t->cfg.preload) {
			rc = trace_preload_file(t, (size_t)st.st_size);
			if (rc == 0)
				trace_src_mem(t, t->mem, (size_t)st.st_size);
			return rc;
		}
		return map_file(t, &st);
	}
	/* A pipe, socket or character device: no size, no mapping, no rewind without --preload. */
	rc = stream_sniff(t);
	if (rc < 0)
		return rc;
	if (t->cfg.preload)
		return preload_stream(t);
	return stream_init(t);
}

int trace_src_mem_stream(struct trace *t, const void *buf, size_t len)
{
	int codec = trace_decomp_probe(buf, len);

	t->smem = buf;
	t->smem_len = len;
	t->smem_pos = 0;
	if (codec >= 0 && trace_decomp_new(t, codec, NULL, 0) < 0)
		return -ENOMEM;
	if (t->cfg.preload)
		return preload_stream(t);
	return stream_init(t);
}

/*
 * A compressed file: its decompressor starts again from the file's start.
 * The new pass fills the other buffer, so the views handed out from this one
 * stay put as trace_next() promises.
 */
static int rewind_decomp(struct trace *t)
{
	int rc;

	if (t->smem)
		t->smem_pos = 0;
	else if (lseek(t->fd, 0, SEEK_SET) < 0)
		return trace_err(t, -errno, "cannot rewind: %s", strerror(errno));
	rc = trace_decomp_reset(t);
	if (rc < 0)
		return rc;
	t->scur ^= 1;
	t->base = t->sbuf[t->scur];
	t->size = 0;
	t->pos = 0;
	t->base_off = 0;
	t->seof = false;
	t->io_err = 0;
	t->nb_mark = SIZE_MAX;
	return 0;
}

int trace_src_rewind(struct trace *t)
{
	switch (t->src) {
	case TRACE_SRC_MEM:
		t->pos = 0;
		return 0;
	case TRACE_SRC_MAP:
		t->pos = 0;
		if (t->ra_next == SIZE_MAX)
			return 0;
		/* The old pass's tail is behind us now; the start was prefetched by the wrap. */
		if (t->ra_release && t->rel_done < t->size) {
			(void)madvise((uint8_t *)t->map + t->rel_done, t->size - t->rel_done,
				      MADV_DONTNEED);
			if (t->fadvise_behind)
				(void)posix_fadvise(t->fd, (off_t)t->rel_done,
						    (off_t)(t->size - t->rel_done), POSIX_FADV_DONTNEED);
		}
		t->rel_done = 0;
		t->rel_next = t->win_bytes;
		t->ra_done = t->ra_wrap;
		t->ra_wrap = 0;
		window_step(t);
		return 0;
	case TRACE_SRC_STREAM:
		if (t->dec && (t->dec_file || t->smem))
			return rewind_decomp(t);
		break;
	case TRACE_SRC_MAX:
		break;
	}
	return trace_err(t, -ESPIPE, "cannot rewind a pipe; use --preload to loop over it");
}

bool trace_preload_region(const struct trace *t, struct trace_region *out)
{
	if (!t->mem || !t->spare_off)
		return false;
	out->base = t->mem;
	out->data_bytes = t->size;
	out->spare_off = t->spare_off;
	out->spare_bytes = t->mem_bytes - t->spare_off;
	return true;
}

bool trace_preloaded(const struct trace *t, const uint8_t **data, size_t *len)
{
	if (!t->mem)
		return false;
	*data = t->mem;
	*len = t->size;
	return true;
}

void trace_src_close(struct trace *t)
{
	if (t->map) {
		mapguard_unwatch(&t->bus);
		munmap(t->map, t->map_bytes);
	}
	if (t->mem && t->mem_bytes)
		munmap(t->mem, t->mem_bytes);
	else
		free(t->mem);
	for (int i = 0; i < 2; i++)
		if (t->sbuf[i])
			munmap(t->sbuf[i], t->scap);
	trace_decomp_free(t);
	if (t->own_fd)
		close(t->fd);
}

void trace_src_reset(struct trace *t)
{
	t->src = TRACE_SRC_MEM;
	t->base = NULL;
	t->size = t->pos = 0;
	t->base_off = 0;
	t->fd = -1;
	t->own_fd = false;
	t->map = NULL;
	t->map_bytes = 0;
	t->mem = NULL;
	t->mem_bytes = t->spare_off = t->pf_next = 0;
	t->win_bytes = t->ra_done = t->ra_wrap = t->rel_done = t->rel_next = 0;
	t->ra_next = SIZE_MAX;
	t->ra_willneed = t->ra_release = t->fadvise_behind = false;
	memset(&t->bus, 0, sizeof(t->bus));
	t->bus_said = false;
	t->sbuf[0] = t->sbuf[1] = NULL;
	t->scap = 0;
	t->scur = 0;
	t->seof = false;
	t->io_err = 0;
	t->smem = NULL;
	t->smem_len = t->smem_pos = 0;
	t->nb_mark = SIZE_MAX;
}
