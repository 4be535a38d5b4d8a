// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where the bytes come from: memory, a mapped file paged through the
 * read-ahead window, a preloaded copy, a pipe.  Every source must hand out
 * the same packets, and keep views alive as trace_next() promises.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/trace.h"
#include "tracebuf.h"

#define SEC0 1700000000u
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A trace of every format's features: pcapng sections, skipped blocks, and a converted link type. */
static void build_pcapng(struct tracebuf *b, unsigned n)
{
	struct tracebuf body = { 0 };

	for (unsigned i = 0; i < n; i++) {
		if (i % 50 == 0) {
			b->swap = i % 100 == 0;
			body.swap = b->swap;
			tb_ng_shb(b);
			tb_ng_idb(b, LINKTYPE_ETHERNET, 0, 9, NULL, -1);
			tb_ng_idb(b, LINKTYPE_RAW, 0, -1, NULL, -1);
		}
		if (i % 7 == 3) {
			tb_free(&body);
			for (unsigned k = 0; k < i; k++)
				tb_u32(&body, k);
			tb_ng_block(b, 0x0bad, &body);
		}
		if (i % 3 == 2) {
			uint8_t ip[40] = { 0x45 };

			ip[16] = 10, ip[19] = (uint8_t)i;
			tb_ng_epb(b, 1, (uint64_t)SEC0 * 1000000 + i, sizeof(ip), sizeof(ip), ip, NULL);
		} else {
			tb_ng_epb(b, 0, (uint64_t)SEC0 * 1000000000 + i, 60 + i % 1400, 60 + i % 1400,
				  NULL, NULL);
		}
	}
	tb_free(&body);
}

struct seen {
	uint8_t *copy; /* every packet's bytes, back to back */
	size_t len, cap;
	uint64_t n;
	uint64_t ts_sum, off_sum, recno_sum;
};

/* Append @len bytes to @s's copy, growing it by doubling (a realloc per packet copies it all under ASan). */
static void seen_append(struct seen *s, const uint8_t *data, size_t len)
{
	if (s->len + len > s->cap) {
		s->cap = s->cap * 2 > s->len + len ? s->cap * 2 : s->len + len + 65536;
		s->copy = realloc(s->copy, s->cap);
		assert_non_null(s->copy);
	}
	memcpy(s->copy + s->len, data, len);
	s->len += len;
}

static void drain(struct trace *t, struct seen *s)
{
	struct pkt p;
	int rc;

	memset(s, 0, sizeof(*s));
	while ((rc = trace_next(t, &p)) == 1) {
		seen_append(s, p.data, p.caplen);
		s->n++;
		s->ts_sum += p.ts_ns;
		s->off_sum += p.off;
		s->recno_sum += p.recno;
		assert_int_equal(p.linktype, LINKTYPE_ETHERNET);
	}
	if (rc != 0)
		fail_msg("drain: %d: %s", rc, trace_strerror(t));
}

static void expect_same(const struct seen *a, const struct seen *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->len, b->len);
	assert_int_equal(a->ts_sum, b->ts_sum);
	assert_int_equal(a->off_sum, b->off_sum);
	assert_int_equal(a->recno_sum, b->recno_sum);
	assert_memory_equal(a->copy, b->copy, a->len);
}

/* A pipe delivers the input in pieces of any size: the packets are the same. */
static void test_stream_equals_memory(void **state)
{
	static const size_t chunks[] = { 1, 3, 17, 4096, 1u << 20 };
	struct tracebuf b = { 0 };
	struct seen ref, got;
	struct trace *t;

	(void)state;
	build_pcapng(&b, 300);
	assert_int_equal(trace_open_mem(&t, "m", b.data, b.len, NULL), 0);
	drain(t, &ref);
	trace_close(t);
	assert_int_equal(ref.n, 300);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct trace_cfg cfg = { .stream_chunk_bytes = chunks[i] };

		assert_int_equal(trace_open_mem(&t, "s", b.data, b.len, &cfg), 0);
		assert_string_equal(trace_format_name(t), "pcapng");
		drain(t, &got);
		expect_same(&ref, &got);
		/* A pipe cannot be read twice... */
		assert_int_equal(trace_rewind(t), -ESPIPE);
		assert_string_equal(trace_strerror(t), "s: cannot rewind a pipe; use --preload to loop over it");
		trace_close(t);
		free(got.copy);
		/* ...unless it was preloaded. */
		cfg.preload = true;
		assert_int_equal(trace_open_mem(&t, "s", b.data, b.len, &cfg), 0);
		drain(t, &got);
		expect_same(&ref, &got);
		free(got.copy);
		assert_int_equal(trace_rewind(t), 0);
		drain(t, &got);
		expect_same(&ref, &got);
		free(got.copy);
		trace_close(t);
	}
	free(ref.copy);
	tb_free(&b);
}

/* From a pipe, a view survives at least TRACE_VIEW_KEEP_BYTES of later packets. */
static void test_stream_views_live(void **state)
{
	struct trace_cfg cfg = { .stream_chunk_bytes = 65536, .window_bytes = TRACE_WINDOW_MIN_BYTES };
	struct tracebuf b = { 0 };
	enum { N = 20000, LEN = 1500 };
	static const uint8_t *view[N];
	struct trace *t;
	struct pkt p;
	uint8_t f[LEN];
	size_t keep = TRACE_VIEW_KEEP_BYTES / LEN; /* packets whose views must all still hold */

	(void)state;
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < N; i++) {
		memset(f, (int)(i % 251), LEN);
		tb_pcap_record(&b, SEC0, i, LEN, LEN, f);
	}
	assert_int_equal(trace_open_mem(&t, "s", b.data, b.len, &cfg), 0);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(trace_next(t, &p), 1);
		view[i] = p.data;
		/* the oldest view that must hold, and the newest */
		for (size_t k = i >= keep ? i - keep + 1 : 0; k <= i; k += keep / 4 + 1) {
			assert_int_equal(view[k][0], k % 251);
			assert_int_equal(view[k][LEN - 1], k % 251);
		}
	}
	/* 30 MB went through two 6 MiB buffers: the guarantee was exercised, not avoided. */
	assert_true((size_t)N * LEN > 4 * (6u << 20));
	trace_close(t);
	tb_free(&b);
}

static char *write_temp(const struct tracebuf *b)
{
	char *path = strdup("/tmp/test_trace_source.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	close(fd);
	return path;
}

/* Resident set of the mapping holding @addr, KiB, from /proc/self/smaps. */
static long mapping_rss_kib(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	long rss = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		else if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
			break;
	}
	fclose(f);
	return rss;
}

/*
 * A mapped file larger than its window: under either read-ahead policy
 * resident memory stays near the window however far the cursor goes, views
 * stay valid to the end, and without the window (TRACE_RA_NONE) the whole
 * file ends up resident.
 */
static void test_window_bounds_rss(void **state)
{
	struct tracebuf b = { 0 };
	uint8_t f[1000], first[1000];
	const uint8_t *first_view = NULL;
	char *path;
	static const enum trace_readahead modes[3] = { TRACE_RA_WINDOW, TRACE_RA_KERNEL, TRACE_RA_NONE };
	long max_rss[3] = { 0, 0, 0 };

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 65535, 1);
	for (unsigned i = 0; i < 64000; i++) {
		memset(f, (int)(i % 253), sizeof(f));
		tb_pcap_record(&b, SEC0, i % 1000000, sizeof(f), sizeof(f), f);
	}
	path = write_temp(&b); /* 64 MB: 256 windows of 256 KiB */
	for (int mode = 0; mode < 3; mode++) {
		struct trace_cfg cfg = { .window_bytes = TRACE_WINDOW_MIN_BYTES,
					 .readahead = modes[mode] };
		struct trace *t;
		struct pkt p;

		assert_int_equal(trace_open(&t, path, &cfg), 0);
		for (unsigned i = 0; i < 64000; i++) {
			assert_int_equal(trace_next(t, &p), 1);
			assert_int_equal(p.data[999], i % 253);
			if (i == 0) {
				first_view = p.data;
				memcpy(first, p.data, sizeof(first));
			}
			if (i % 1000 == 0) {
				long rss = mapping_rss_kib(p.data);

				max_rss[mode] = rss > max_rss[mode] ? rss : max_rss[mode];
			}
		}
		/* The first view is intact at the end (paged back in if it was released). */
		assert_memory_equal(first_view, first, sizeof(first));
		assert_int_equal(trace_next(t, &p), 0);
		/* ...and after a rewind, the same packets again. */
		assert_int_equal(trace_rewind(t), 0);
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.data[0], 0);
		assert_memory_equal(first_view, first, sizeof(first));
		trace_close(t);
	}
	print_message("resident KiB: window %ld, kernel %ld, plain mapping %ld\n", max_rss[0],
		      max_rss[1], max_rss[2]);
	/*
	 * Released once a window: the window, the release lag (1 MiB), the 2 MiB
	 * alignment of releases, and the large folios fault-around maps ahead
	 * (~4 MiB seen) -- against the 64 MB the plain mapping ends up holding.
	 */
	for (int mode = 0; mode < 2; mode++)
		if (max_rss[mode] > 8192)
			fail_msg("read-ahead policy %d let %ld KiB stay resident", modes[mode], max_rss[mode]);
	/* the baseline really holds the file: the bound above is the window's doing */
	if (max_rss[2] < 50000)
		fail_msg("without the window only %ld KiB were resident", max_rss[2]);
	unlink(path);
	free(path);
	tb_free(&b);
}

/* Whether the mapping holding @addr was madvise()d MADV_HUGEPAGE ("hg" in its smaps VmFlags). */
static bool mapping_hugepage(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, hg = false, seen = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			hg = strstr(line, " hg") != NULL;
			seen = true;
			break;
		}
	}
	fclose(f);
	assert_true(seen);
	return hg;
}

/*
 * Huge pages where they lower the faults (the counts are in source.c,
 * map_file() and preload_file()): the kernel's read-ahead policy and a
 * preloaded copy ask for them; NetVCR's window, whose MADV_WILLNEED reads
 * 4 KiB folios anyway, and a plain mapping do not.
 */
static void test_hugepage_advice(void **state)
{
	static const struct {
		enum trace_readahead ra;
		bool preload, hg;
	} cases[] = {
		{ TRACE_RA_KERNEL, false, true },
		{ TRACE_RA_WINDOW, false, false },
		{ TRACE_RA_NONE, false, false },
		{ TRACE_RA_WINDOW, true, true },
	};
	struct tracebuf b = { 0 };
	char *path;

	(void)state;
	if (access("/sys/kernel/mm/transparent_hugepage", F_OK) < 0)
		skip(); /* a kernel without transparent huge pages: nothing to ask for */
	build_pcapng(&b, 200);
	path = write_temp(&b);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct trace_cfg cfg = { .readahead = cases[i].ra, .preload = cases[i].preload };
		struct trace *t;
		struct pkt p;

		assert_int_equal(trace_open(&t, path, &cfg), 0);
		assert_int_equal(trace_next(t, &p), 1);
		if (mapping_hugepage(p.data) != cases[i].hg)
			fail_msg("read-ahead policy %d%s: MADV_HUGEPAGE %s", cases[i].ra,
				 cases[i].preload ? " with --preload" : "",
				 cases[i].hg ? "not asked for" : "asked for");
		trace_close(t);
	}
	unlink(path);
	free(path);
	tb_free(&b);
}

/*
 * --preload of a stream (a pipe, or here memory read as one): its buffer is
 * asked for in huge pages as the preloaded file's copy is, also after it has
 * grown (past the first 6 MiB: moved or extended by mremap()), and every
 * record comes back intact.
 */
static void test_hugepage_stream_preload(void **state)
{
	struct trace_cfg cfg = { .preload = true, .stream_chunk_bytes = 65536 };
	struct tracebuf b = { 0 };
	const unsigned count = 8000; /* records of 1000 bytes: 8 MB, past the first buffer (6 MiB) */
	const void *first = NULL;
	struct trace *t;
	unsigned n = 0;
	struct pkt p;
	int rc;

	(void)state;
	if (access("/sys/kernel/mm/transparent_hugepage", F_OK) < 0)
		skip(); /* a kernel without transparent huge pages: nothing to ask for */
	tb_pcap_header(&b, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	for (unsigned i = 0; i < count; i++)
		tb_pcap_record(&b, SEC0 + i, 0, 1000, 1000, NULL);
	assert_true(b.len > (size_t)TRACE_VIEW_KEEP_BYTES + (2u << 20));
	assert_int_equal(trace_open_mem(&t, "pipe", b.data, b.len, &cfg), 0);
	while ((rc = trace_next(t, &p)) == 1) {
		/* Each record as written (after the 24-byte file header, 16-byte record headers). */
		assert_int_equal(p.caplen, 1000);
		assert_memory_equal(p.data, b.data + 24 + (size_t)n * 1016 + 16, 1000);
		if (!first)
			first = p.data;
		/* smaps is read per call: the first record, every 1000th and the last. */
		if ((n % 1000 == 0 || n == count - 1) && !mapping_hugepage(p.data))
			fail_msg("record %u of a preloaded stream: MADV_HUGEPAGE not asked for", n);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, count);
	/* Rewound (what --preload is for), it is the same memory. */
	assert_int_equal(trace_rewind(t), 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_ptr_equal(p.data, first);
	trace_close(t);
	tb_free(&b);
}

/* --preload reads a file into memory; a file larger than memory is refused up front. */
static void test_preload_file(void **state)
{
	struct trace_cfg cfg = { .preload = true };
	struct tracebuf b = { 0 };
	struct seen ref, got;
	struct trace *t;
	char *path;
	int fd;

	(void)state;
	build_pcapng(&b, 120);
	assert_int_equal(trace_open_mem(&t, "m", b.data, b.len, NULL), 0);
	drain(t, &ref);
	trace_close(t);
	path = write_temp(&b);
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	unlink(path); /* in memory now: the file is not needed */
	drain(t, &got);
	expect_same(&ref, &got);
	free(got.copy);
	assert_int_equal(trace_rewind(t), 0);
	drain(t, &got);
	expect_same(&ref, &got);
	free(got.copy);
	trace_close(t);

	/* A sparse terabyte: more than any machine running this has free. */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.data, 64), 64);
	assert_int_equal(ftruncate(fd, (off_t)1 << 40), 0);
	close(fd);
	assert_int_equal(trace_open(&t, path, &cfg), -ENOMEM);
	assert_non_null(strstr(trace_strerror(t), ": --preload needs 1048576.0 MiB but only "));
	trace_close(t);
	unlink(path);
	free(path);
	free(ref.copy);
	tb_free(&b);
}

/* The process's address space in use (VmSize), bytes. */
static uint64_t vm_size_bytes(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kib) == 1)
			break;
	fclose(f);
	assert_true(kib > 0);
	return (uint64_t)kib * 1024;
}

/*
 * --preload under an address-space limit (ulimit -v) that free memory does
 * not lift: the message names the limit, RLIMIT_AS, and both sizes -- not
 * "only N MiB of memory is available" with N the (larger) free memory.  A
 * file and a stream (memory read as a pipe), each in a child whose limit is
 * 64 MiB above what it uses.
 */
static void test_preload_address_limit(void **state)
{
	struct tracebuf b = { 0 };
	char *path;
	int fd;

	(void)state;
	build_pcapng(&b, 10);
	path = write_temp(&b);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)256 << 20), 0); /* sparse */
	close(fd);
	for (int stream = 0; stream < 2; stream++) {
		int pfd[2], status;
		char msg[512] = "";
		ssize_t n;
		pid_t pid;

		assert_int_equal(pipe(pfd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct trace_cfg cfg = { .preload = true, .stream_chunk_bytes = 1 << 20 };
			size_t len = (size_t)256 << 20;
			/* The stream's input, mapped (untouched zeros after the header) before the limit. */
			uint8_t *in = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			struct rlimit rl;
			struct trace *t;
			int rc;

			if (in == MAP_FAILED)
				_exit(2);
			memcpy(in, b.data, b.len);
			rl.rlim_cur = rl.rlim_max = vm_size_bytes() + ((rlim_t)64 << 20);
			if (setrlimit(RLIMIT_AS, &rl) < 0)
				_exit(3);
			rc = stream ? trace_open_mem(&t, "s", in, len, &cfg) : trace_open(&t, path, &cfg);
			n = write(pfd[1], t ? trace_strerror(t) : "no trace", t ? strlen(trace_strerror(t)) : 8);
			_exit(rc == -ENOMEM && n > 0 ? 0 : 1);
		}
		close(pfd[1]);
		n = read(pfd[0], msg, sizeof(msg) - 1);
		close(pfd[0]);
		msg[n > 0 ? n : 0] = '\0';
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("%s: status 0x%x: %s", stream ? "stream" : "file", status, msg);
		if (!strstr(msg, "MiB of address space, but the process's limit (RLIMIT_AS, ulimit -v) is "))
			fail_msg("%s: %s", stream ? "stream" : "file", msg);
		if (!stream && !strstr(msg, ": --preload needs 256.0 MiB of address space"))
			fail_msg("file: %s", msg);
	}
	unlink(path);
	free(path);
	tb_free(&b);
}

/* A real pipe, by /dev/fd path and as standard input ("-"). */
static void test_real_pipe(void **state)
{
	struct tracebuf b = { 0 };
	struct seen ref, got;
	struct trace *t;

	(void)state;
	build_pcapng(&b, 200);
	assert_int_equal(trace_open_mem(&t, "m", b.data, b.len, NULL), 0);
	drain(t, &ref);
	trace_close(t);
	for (int as_stdin = 0; as_stdin < 2; as_stdin++) {
		int pfd[2], saved = -1, status;
		char path[32];
		pid_t pid;

		assert_int_equal(pipe(pfd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* small writes, as a capture tool's would be */
			close(pfd[0]);
			for (size_t at = 0; at < b.len; at += 1000)
				if (write(pfd[1], b.data + at, b.len - at < 1000 ? b.len - at : 1000) < 0)
					_exit(1);
			_exit(0);
		}
		close(pfd[1]);
		if (as_stdin) {
			saved = dup(0);
			dup2(pfd[0], 0);
			close(pfd[0]);
			strcpy(path, "-");
		} else {
			snprintf(path, sizeof(path), "/dev/fd/%d", pfd[0]);
		}
		assert_int_equal(trace_open(&t, path, NULL), 0);
		drain(t, &got);
		expect_same(&ref, &got);
		free(got.copy);
		assert_int_equal(trace_rewind(t), -ESPIPE);
		trace_close(t);
		if (as_stdin) {
			dup2(saved, 0);
			close(saved);
		} else {
			close(pfd[0]);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	free(ref.copy);
	tb_free(&b);
}

/*
 * A trace truncated while it is read through its mapping (log rotation, a
 * copy still being written): trace_next() fails with -EIO naming the file,
 * where the old code died of SIGBUS.  For each read-ahead policy, and cut
 * both at a record boundary's page and in the middle of the file.
 */
static void test_truncated_under_mapping(void **state)
{
	/* TRACE_RA_NONE takes no window steps: only the fault handler can stop it. */
	static const enum trace_readahead modes[] = { TRACE_RA_WINDOW, TRACE_RA_KERNEL,
						      TRACE_RA_NONE };
	struct tracebuf b = { 0 };
	char *path;

	(void)state;
	tb_pcap_header(&b, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	for (unsigned i = 0; i < 20000; i++)
		tb_pcap_record(&b, SEC0 + i, 0, 1000, 1000, NULL); /* 20 MB */
	path = write_temp(&b);
	for (size_t m = 0; m < ARRAY_LEN(modes); m++) {
		for (int cut = 0; cut < 2; cut++) {
			struct trace_cfg cfg = { .window_bytes = TRACE_WINDOW_MIN_BYTES,
						 .readahead = modes[m] };
			off_t to = cut ? (off_t)b.len / 2 : 4096;
			uint64_t n = 0, at_cut;
			struct trace *t;
			struct pkt p;
			int rc, fd;

			fd = open(path, O_WRONLY);
			assert_true(fd >= 0);
			assert_int_equal(pwrite(fd, b.data, b.len, 0), (ssize_t)b.len);
			assert_int_equal(trace_open(&t, path, &cfg), 0);
			/* Read well into the file first: those pages were mapped, and must be let go. */
			while (n < 5000 && (rc = trace_next(t, &p)) == 1)
				n++;
			assert_int_equal(n, 5000);
			at_cut = p.off + 16 + p.caplen;
			assert_int_equal(ftruncate(fd, to), 0);
			/*
			 * The reader stops within one read-ahead step (128 KiB) of
			 * where it was: at once if the kernel faults on the pages
			 * beyond the new end, at the next step if it still serves them.
			 */
			while ((rc = trace_next(t, &p)) == 1)
				assert_true(p.off < at_cut + (128u << 10) || modes[m] == TRACE_RA_NONE);
			assert_int_equal(rc, -EIO);
			assert_non_null(strstr(trace_strerror(t), path));
			assert_non_null(strstr(trace_strerror(t), "shrank"));
			/* It stays failed. */
			assert_int_equal(trace_next(t, &p), -EIO);
			trace_close(t);
			close(fd);
		}
	}
	/* A fault outside any trace still kills (the handler steps aside). */
	{
		pid_t pid = fork();
		int status;

		assert_true(pid >= 0);
		if (pid == 0) {
			int fd = open(path, O_RDWR);
			volatile uint8_t *m = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, 0);
			struct trace *t;

			/* cmocka's handler would go on with the tests in this child: the default, then ours. */
			signal(SIGBUS, SIG_DFL);
			if (trace_open(&t, path, NULL) < 0)
				_exit(2);
			(void)ftruncate(fd, 0);
			(void)m[8192];
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	}
	unlink(path);
	free(path);
	tb_free(&b);
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	stop_flag = sig;
}

/*
 * A pipe that stays open and silent: @pre bytes of @b arrive, then nothing.
 * Returns the read end; *@pid is the writer, to be killed.
 */
static int silent_pipe(const struct tracebuf *b, size_t pre, pid_t *pid)
{
	int pfd[2];

	assert_int_equal(pipe(pfd), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		close(pfd[0]);
		if (pre && write(pfd[1], b->data, pre) != (ssize_t)pre)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	return pfd[0];
}

static void end_writer(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

/*
 * SIGINT/SIGTERM while a pipe is silent: the wait ends with -EINTR, in the
 * probe, in the middle of the records, and in a --preload (which the old
 * code retried forever).  The alarm's handler sets the caller's stop flag as
 * replay's does; the alarm itself interrupts no read() that was not begun.
 */
static void test_pipe_stop_signal(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct tracebuf b = { 0 };

	(void)state;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	tb_pcap_header(&b, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	for (unsigned i = 0; i < 10; i++)
		tb_pcap_record(&b, SEC0 + i, 0, 100, 100, NULL);
	for (int which = 0; which < 3; which++) {
		/* 0: nothing arrives; 1: the header and 10 records, then silence; 2: the same, preloaded */
		struct trace_cfg cfg = { .stop = &stop_flag, .preload = which == 2 };
		size_t pre = which ? b.len : 0;
		struct trace *t;
		char path[32];
		struct pkt p;
		pid_t pid;
		int fd = silent_pipe(&b, pre, &pid), rc, n = 0;
		sigset_t block, old;

		snprintf(path, sizeof(path), "/dev/fd/%d", fd);
		stop_flag = 0;
		/*
		 * SIGALRM stands in for SIGINT (which cmocka would take); the
		 * stream blocks only SIGINT and SIGTERM around its wait, so the
		 * alarm is a plain interruption here: the stop flag decides.
		 */
		sigemptyset(&block);
		sigaddset(&block, SIGALRM);
		sigprocmask(SIG_UNBLOCK, &block, &old);
		alarm(1);
		rc = trace_open(&t, path, &cfg);
		if (which == 1) {
			assert_int_equal(rc, 0);
			while ((rc = trace_next(t, &p)) == 1)
				n++;
			assert_int_equal(n, 10);
		}
		alarm(0);
		assert_int_equal(rc, -EINTR);
		assert_int_equal(stop_flag, SIGALRM);
		if (which == 2)
			assert_non_null(strstr(trace_strerror(t), "--preload"));
		trace_close(t);
		close(fd);
		end_writer(pid);
	}
	signal(SIGALRM, SIG_DFL);
	tb_free(&b);
}

/* --preload of a pipe stops at its memory cap, and takes an input that fills it exactly. */
static void test_preload_pipe_cap(void **state)
{
	struct tracebuf b = { 0 };

	(void)state;
	tb_pcap_header(&b, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	for (unsigned i = 0; i < 100; i++)
		tb_pcap_record(&b, SEC0 + i, 0, 1000, 1000, NULL);
	for (int exact = 0; exact < 2; exact++) {
		struct trace_cfg cfg = { .preload = true,
					 .preload_max_bytes = exact ? b.len : b.len / 2 };
		struct trace *t;
		char path[32];
		int pfd[2], status, rc;
		struct pkt p;
		pid_t pid;

		assert_int_equal(pipe(pfd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(pfd[0]);
			/* Then endless: the old code read on for ever. */
			if (write(pfd[1], b.data, b.len) != (ssize_t)b.len)
				_exit(1);
			while (!exact && write(pfd[1], b.data + 24, b.len - 24) > 0)
				;
			_exit(0);
		}
		close(pfd[1]);
		snprintf(path, sizeof(path), "/dev/fd/%d", pfd[0]);
		rc = trace_open(&t, path, &cfg);
		if (exact) {
			int n = 0;

			assert_int_equal(rc, 0);
			while ((rc = trace_next(t, &p)) == 1)
				n++;
			assert_int_equal(rc, 0);
			assert_int_equal(n, 100);
		} else {
			assert_int_equal(rc, -ENOMEM);
			assert_non_null(strstr(trace_strerror(t), "larger than the"));
		}
		trace_close(t);
		close(pfd[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
	}
	tb_free(&b);
}

/*
 * A pipe's first record comes out as soon as it has arrived, not after
 * 64 KiB or the end of the input: pcap and pcapng after their header and
 * one record, ERF (which has no magic) once the three records its probe
 * reads have arrived.  The writer sends those, then stays silent; an alarm
 * would end a wait for more with -EINTR.
 */
static void test_pipe_first_record_at_once(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct tracebuf pc = { 0 }, ng = { 0 }, erf = { 0 };
	const struct tracebuf *in[] = { &pc, &ng, &erf };

	(void)state;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	tb_pcap_header(&pc, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	tb_pcap_record(&pc, SEC0, 0, 100, 100, NULL);
	tb_ng_shb(&ng);
	tb_ng_idb(&ng, LINKTYPE_ETHERNET, 0, 9, NULL, -1);
	tb_ng_epb(&ng, 0, (uint64_t)SEC0 * 1000000000, 100, 100, NULL, NULL);
	/* ERF Ethernet records (type 2) of 100 captured bytes, FCS not captured. */
	for (unsigned k = 0; k < 3; k++)
		tb_erf(&erf, (uint64_t)SEC0 << 32 | k, 2, 0, 0, 104, 0, NULL, 100, 0);
	for (size_t i = 0; i < ARRAY_LEN(in); i++) {
		struct trace_cfg cfg = { .stop = &stop_flag };
		struct trace *t;
		char path[32];
		struct pkt p;
		pid_t pid;
		int fd = silent_pipe(in[i], in[i]->len, &pid);

		snprintf(path, sizeof(path), "/dev/fd/%d", fd);
		stop_flag = 0;
		alarm(2);
		if (trace_open(&t, path, &cfg) != 0)
			fail_msg("input %zu: %s", i, trace_strerror(t));
		for (unsigned k = 0; k < (in[i] == &erf ? 3u : 1u); k++) {
			assert_int_equal(trace_next(t, &p), 1);
			assert_int_equal(stop_flag, 0);
			assert_int_equal(p.caplen, 100);
		}
		/* ...and the next one is waited for, until the signal. */
		assert_int_equal(trace_next(t, &p), -EINTR);
		alarm(0);
		trace_close(t);
		close(fd);
		end_writer(pid);
	}
	signal(SIGALRM, SIG_DFL);
	tb_free(&pc);
	tb_free(&ng);
	tb_free(&erf);
}

/*
 * cfg.nonblock: a pipe's record that has not all arrived is -EAGAIN, with
 * nothing consumed and nothing warned; trace_fd() is what to wait on, and
 * once the rest is there the record comes out whole.  A memory trace has
 * no descriptor to wait on.
 */
static void test_pipe_nonblock(void **state)
{
	struct trace_cfg cfg = { .stop = &stop_flag, .nonblock = true };
	struct tracebuf b = { 0 };
	const size_t cut = 24 + 16 + 100 + 10; /* the header, a record, 10 bytes of the next header */
	struct trace *t;
	char path[32];
	struct pkt p;
	int pfd[2];

	(void)state;
	tb_pcap_header(&b, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	tb_pcap_record(&b, SEC0, 0, 100, 100, NULL);
	tb_pcap_record(&b, SEC0 + 1, 0, 200, 200, NULL);
	assert_int_equal(trace_open_mem(&t, "m", b.data, b.len, &cfg), 0);
	assert_int_equal(trace_fd(t), -1);
	trace_close(t);

	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], b.data, cut), (ssize_t)cut);
	snprintf(path, sizeof(path), "/dev/fd/%d", pfd[0]);
	stop_flag = 0;
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	assert_true(trace_fd(t) >= 0); /* the pipe, opened again by its /dev/fd name */
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.caplen, 100);
	/* Half a record header, then half its frame: nothing comes out, nothing is said. */
	assert_int_equal(trace_next(t, &p), -EAGAIN);
	assert_int_equal(write(pfd[1], b.data + cut, 106), 106);
	assert_int_equal(trace_next(t, &p), -EAGAIN);
	assert_int_equal(trace_next(t, &p), -EAGAIN);
	assert_int_equal(trace_warnings(t, NULL), 0);
	{
		struct pollfd q = { .fd = trace_fd(t), .events = POLLIN };

		assert_int_equal(poll(&q, 1, 0), 0);
		assert_int_equal(write(pfd[1], b.data + cut + 106, b.len - cut - 106),
				 (ssize_t)(b.len - cut - 106));
		assert_int_equal(poll(&q, 1, 0), 1);
	}
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.caplen, 200);
	assert_int_equal(p.recno, 2);
	assert_int_equal(p.ts_ns, (uint64_t)(SEC0 + 1) * 1000000000);
	assert_int_equal(trace_next(t, &p), -EAGAIN);
	close(pfd[1]);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, NULL), 0);
	trace_close(t);
	close(pfd[0]);
	tb_free(&b);
}

/*
 * cfg.nonblock through a pipe written in small pieces at any offset:
 * sections, interface blocks, skipped blocks and converted frames come out
 * as from memory, each interface taken in once however often its block
 * was cut short, and at least some reads found their record unfinished.
 */
static void test_pipe_nonblock_pieces(void **state)
{
	struct trace_cfg cfg = { .stop = &stop_flag, .nonblock = true };
	struct tracebuf b = { 0 };
	struct seen ref, got = { 0 };
	unsigned nifs, again = 0;
	struct trace *t;
	char path[32];
	struct pkt p;
	int pfd[2], sync[2], status, rc;
	pid_t pid;
	char go;

	(void)state;
	build_pcapng(&b, 200);
	assert_int_equal(trace_open_mem(&t, "m", b.data, b.len, NULL), 0);
	drain(t, &ref);
	nifs = trace_ninterfaces(t);
	trace_close(t);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(pipe(sync), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		close(sync[1]);
		for (size_t at = 0; at < b.len; at += 97) {
			if (write(pfd[1], b.data + at, b.len - at < 97 ? b.len - at : 97) < 0)
				_exit(1);
			/* the first piece ends inside a block: wait until the
			 * reader has found it unfinished, however slow it is */
			if (at == 0 && read(sync[0], &go, 1) < 0)
				_exit(1);
			usleep(20);
		}
		_exit(0);
	}
	close(pfd[1]);
	close(sync[0]);
	snprintf(path, sizeof(path), "/dev/fd/%d", pfd[0]);
	stop_flag = 0;
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	for (;;) {
		struct pollfd q = { .fd = trace_fd(t), .events = POLLIN };

		rc = trace_next(t, &p);
		if (rc == -EAGAIN) {
			if (again++ == 0)
				assert_int_equal(write(sync[1], "g", 1), 1);
			assert_true(poll(&q, 1, -1) == 1);
			continue;
		}
		if (rc != 1)
			break;
		seen_append(&got, p.data, p.caplen);
		got.n++;
		got.ts_sum += p.ts_ns;
		got.off_sum += p.off;
		got.recno_sum += p.recno;
	}
	assert_int_equal(rc, 0);
	expect_same(&ref, &got);
	assert_int_equal(trace_ninterfaces(t), nifs);
	assert_int_equal(trace_warnings(t, NULL), 0);
	assert_true(again > 0);
	trace_close(t);
	close(pfd[0]);
	close(sync[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(ref.copy);
	free(got.copy);
	tb_free(&b);
}

/*
 * --preload with spare memory (an AF_XDP sender's UMEM, src/tx/xdp.c): the
 * copy and the spare are one mapping, the spare page-aligned after the
 * file's bytes, zeroed and writable; a frame read as recorded is a view into
 * the copy and one the reader converted (RAW -> Ethernet) is not in the
 * region at all, so a sender can tell which frames to send in place; and
 * writing the spare (the sender's staging frames) changes no packet.  Only
 * a preloaded file with spare asked for has a region.
 */
static void test_preload_spare(void **state)
{
	const size_t spare = 1u << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	struct tracebuf b = { 0 };
	struct trace_cfg cfg = { .preload = true, .preload_spare_bytes = spare };
	struct trace_region reg;
	struct trace *t;
	struct pkt p;
	unsigned inside = 0, outside = 0, n = 0;
	uint32_t sum = 0, sum2 = 0;
	char *path;

	(void)state;
	build_pcapng(&b, 300);
	path = write_temp(&b);
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	assert_true(trace_preload_region(t, &reg));
	assert_int_equal((uintptr_t)reg.base % page, 0);
	assert_int_equal(reg.data_bytes, b.len);
	assert_int_equal(reg.spare_off, (b.len + page - 1) / page * page);
	assert_int_equal(reg.spare_bytes, spare);
	assert_memory_equal(reg.base, b.data, b.len);
	for (size_t i = 0; i < spare; i += 997)
		assert_int_equal(reg.base[reg.spare_off + i], 0);
	while (trace_next(t, &p) == 1) {
		uintptr_t d = (uintptr_t)p.data, lo = (uintptr_t)reg.base;

		if (d >= lo && d + p.caplen <= lo + reg.data_bytes)
			inside++;
		else if (d + p.caplen <= lo || d >= lo + reg.spare_off + reg.spare_bytes)
			outside++;
		else
			fail_msg("packet %u's view straddles the copy's end or lies in the spare", n);
		for (uint32_t k = 0; k < p.caplen; k++)
			sum = sum * 31 + p.data[k];
		n++;
	}
	assert_int_equal(n, 300);
	assert_int_equal(outside, 100); /* every third record is RAW, converted */
	assert_int_equal(inside, 200);
	memset(reg.base + reg.spare_off, 0xa5, reg.spare_bytes);
	assert_int_equal(trace_rewind(t), 0);
	while (trace_next(t, &p) == 1)
		for (uint32_t k = 0; k < p.caplen; k++)
			sum2 = sum2 * 31 + p.data[k];
	assert_int_equal(sum2, sum);
	trace_close(t);

	/* No spare asked for, or not preloaded: no region. */
	cfg.preload_spare_bytes = 0;
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	assert_false(trace_preload_region(t, &reg));
	trace_close(t);
	cfg = (struct trace_cfg){ .preload_spare_bytes = spare };
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	assert_false(trace_preload_region(t, &reg));
	trace_close(t);
	unlink(path);
	free(path);
	tb_free(&b);
}

/*
 * trace_preloaded(): a --preload copy is the file's bytes, and a second
 * reader opened over it (--threads: each thread after the first) reads the
 * same packets with views into that one copy; a trace not preloaded has none.
 */
static void test_preloaded(void **state)
{
	struct tracebuf b = { 0 };
	struct trace_cfg cfg = { .preload = true };
	struct trace *t, *t2;
	const uint8_t *data = NULL;
	size_t len = 0;
	struct pkt p, p2;
	unsigned n = 0, inside = 0;
	char *path;

	(void)state;
	build_pcapng(&b, 300);
	path = write_temp(&b);
	for (int spare = 0; spare < 2; spare++) {
		cfg.preload_spare_bytes = spare ? 1u << 20 : 0;
		assert_int_equal(trace_open(&t, path, &cfg), 0);
		assert_true(trace_preloaded(t, &data, &len));
		assert_int_equal(len, b.len);
		assert_memory_equal(data, b.data, b.len);
		assert_int_equal(trace_open_mem(&t2, path, data, len, NULL), 0);
		n = inside = 0;
		for (;;) {
			int r1 = trace_next(t, &p), r2 = trace_next(t2, &p2);

			assert_int_equal(r1, r2);
			if (r1 != 1)
				break;
			assert_int_equal(p.caplen, p2.caplen);
			assert_memory_equal(p.data, p2.data, p.caplen);
			/* A frame as recorded: both readers' views are the one copy's bytes. */
			if (p.data >= data && p.data + p.caplen <= data + len) {
				assert_ptr_equal(p.data, p2.data);
				inside++;
			}
			n++;
		}
		assert_int_equal(n, 300);
		assert_int_equal(inside, 200); /* every third record is RAW, converted */
		trace_close(t2);
		trace_close(t);
	}
	/* Mapped, not preloaded; or the caller's memory: none. */
	cfg = (struct trace_cfg){ 0 };
	data = NULL;
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	assert_false(trace_preloaded(t, &data, &len));
	trace_close(t);
	assert_int_equal(trace_open_mem(&t, path, b.data, b.len, NULL), 0);
	assert_false(trace_preloaded(t, &data, &len));
	assert_null(data);
	trace_close(t);
	unlink(path);
	free(path);
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_equals_memory),
		cmocka_unit_test(test_stream_views_live),
		cmocka_unit_test(test_window_bounds_rss),
		cmocka_unit_test(test_hugepage_advice),
		cmocka_unit_test(test_hugepage_stream_preload),
		cmocka_unit_test(test_preload_file),
		cmocka_unit_test(test_preload_address_limit),
		cmocka_unit_test(test_preload_spare),
		cmocka_unit_test(test_preloaded),
		cmocka_unit_test(test_real_pipe),
		cmocka_unit_test(test_truncated_under_mapping),
		cmocka_unit_test(test_pipe_stop_signal),
		cmocka_unit_test(test_preload_pipe_cap),
		cmocka_unit_test(test_pipe_first_record_at_once),
		cmocka_unit_test(test_pipe_nonblock),
		cmocka_unit_test(test_pipe_nonblock_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
