// SPDX-License-Identifier: BSD-2-Clause
/*
 * Compressed traces (src/trace/decomp.c): every codec, from memory, in
 * pieces as a pipe delivers them, from a file (rewound), preloaded, and
 * through a real pipe read without waiting, gives the packets of the plain
 * trace; concatenated members and frames read on; a truncated or corrupt
 * stream ends in the documented error after the records before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bzlib.h>
#include <lz4frame.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "replay/trace.h"
#include "tracebuf.h"

#define SEC0 1700000000u
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum codec { GZ, ZST, XZ, LZ4, BZ2, NCODEC };
static const char *const names[NCODEC] = { "gzip", "zstd", "xz", "lz4", "bzip2" };

/* Compress @len bytes at @in with @c, with its integrity check on, appending to @out. */
static void zpack(enum codec c, const uint8_t *in, size_t len, struct tracebuf *out)
{
	size_t cap = len + len / 2 + 4096, n = cap;
	uint8_t *buf = malloc(cap);

	assert_non_null(buf);
	switch (c) {
	case GZ: {
		z_stream z = { 0 };

		assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = (uInt)len;
		z.next_out = buf;
		z.avail_out = (uInt)cap;
		assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
		n = cap - z.avail_out;
		deflateEnd(&z);
		break;
	}
	case ZST: {
		ZSTD_CCtx *cc = ZSTD_createCCtx();

		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		n = ZSTD_compress2(cc, buf, cap, in, len);
		assert_false(ZSTD_isError(n));
		ZSTD_freeCCtx(cc);
		break;
	}
	case XZ:
		n = 0;
		assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, len, buf, &n, cap), LZMA_OK);
		break;
	case LZ4: {
		LZ4F_preferences_t pr = { 0 };

		pr.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		pr.frameInfo.blockSizeID = LZ4F_max64KB;
		n = LZ4F_compressFrame(buf, cap, in, len, &pr);
		assert_false(LZ4F_isError(n));
		break;
	}
	case BZ2: {
		unsigned u = (unsigned)cap;

		assert_int_equal(BZ2_bzBuffToBuffCompress((char *)buf, &u, (char *)(uintptr_t)in, (unsigned)len, 1, 0, 0),
				 BZ_OK);
		n = u;
		break;
	}
	case NCODEC:
		fail();
	}
	tb_bytes(out, buf, n);
	free(buf);
}

/* A pcapng of sections, two interfaces and frames of many lengths: ~300 KB. */
static void build_trace(struct tracebuf *b, unsigned n)
{
	tb_ng_shb(b);
	tb_ng_idb(b, LINKTYPE_ETHERNET, 0, 9, NULL, -1);
	for (unsigned i = 0; i < n; i++)
		tb_ng_epb(b, 0, (uint64_t)SEC0 * 1000000000 + i, 60 + (i * 37) % 1400, 60 + (i * 37) % 1400,
			  NULL, NULL);
}

struct seen {
	uint8_t *copy;
	size_t len, cap;
	uint64_t n, ts_sum, off_sum;
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

/* Drain @t into @s; returns trace_next()'s last result (0 at a clean end). */
static int drain(struct trace *t, struct seen *s)
{
	struct pkt p;
	int rc;

	memset(s, 0, sizeof(*s));
	while ((rc = trace_next(t, &p)) == 1) {
		seen_append(s, p.data, p.caplen);
		s->n++;
		s->ts_sum += p.ts_ns;
		s->off_sum += p.off;
	}
	return rc;
}

static void expect_same(const struct seen *a, const struct seen *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->len, b->len);
	assert_int_equal(a->ts_sum, b->ts_sum);
	assert_int_equal(a->off_sum, b->off_sum);
	assert_memory_equal(a->copy, b->copy, a->len);
}

/* @b's packets are the first of @ref's, in order. */
static void expect_prefix(const struct seen *ref, const struct seen *b)
{
	assert_true(b->n < ref->n);
	assert_true(b->len <= ref->len);
	assert_memory_equal(ref->copy, b->copy, b->len);
}

static void open_drain_mem(const struct tracebuf *z, const struct trace_cfg *cfg, struct seen *s,
			   const char *codec)
{
	struct trace *t;

	assert_int_equal(trace_open_mem(&t, "z", z->data, z->len, cfg), 0);
	assert_string_equal(trace_compression(t, NULL, NULL), codec);
	if (drain(t, s) != 0)
		fail_msg("%s: %s", codec, trace_strerror(t));
	trace_close(t);
}

static char *write_temp(const struct tracebuf *b)
{
	char *path = strdup("/tmp/replay-decomp-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	close(fd);
	return path;
}

/*
 * Plain and compressed give the same records, each codec, from memory, in
 * pieces, from a file (and again after a rewind), preloaded; a single
 * member and a concatenation cut mid-record (gzip -c a >f; gzip -c b >>f).
 */
static void test_codecs_same_records(void **state)
{
	struct tracebuf plain = { 0 };
	struct seen ref, got;
	struct trace *t;

	(void)state;
	build_trace(&plain, 400);
	assert_int_equal(trace_open_mem(&t, "p", plain.data, plain.len, NULL), 0);
	assert_null(trace_compression(t, NULL, NULL));
	assert_int_equal(drain(t, &ref), 0);
	trace_close(t);
	for (int c = 0; c < NCODEC; c++) {
		for (int members = 1; members <= 3; members++) {
			struct tracebuf z = { 0 };
			size_t cut1 = plain.len / 3 + 7, cut2 = 2 * plain.len / 3 + 1;
			struct trace_cfg chunked = { .stream_chunk_bytes = 333 };
			struct trace_cfg preload = { .preload = true };
			uint64_t zin, zout;
			char *path;

			if (members == 1) {
				zpack(c, plain.data, plain.len, &z);
			} else if (members == 2) {
				zpack(c, plain.data, cut1, &z);
				zpack(c, plain.data + cut1, plain.len - cut1, &z);
			} else {
				/* an empty member in the middle reads on too */
				zpack(c, plain.data, cut2, &z);
				zpack(c, plain.data, 0, &z);
				zpack(c, plain.data + cut2, plain.len - cut2, &z);
			}
			open_drain_mem(&z, NULL, &got, names[c]);
			expect_same(&ref, &got);
			free(got.copy);
			open_drain_mem(&z, &chunked, &got, names[c]);
			expect_same(&ref, &got);
			free(got.copy);

			path = write_temp(&z);
			assert_int_equal(trace_open(&t, path, NULL), 0);
			assert_true(trace_can_rewind(t));
			assert_int_equal(trace_fd(t), -1); /* a file never waits */
			assert_int_equal(drain(t, &got), 0);
			expect_same(&ref, &got);
			free(got.copy);
			assert_string_equal(trace_compression(t, &zin, &zout), names[c]);
			assert_int_equal(zin, z.len);
			assert_int_equal(zout, plain.len);
			assert_int_equal(trace_rewind(t), 0);
			assert_int_equal(drain(t, &got), 0);
			expect_same(&ref, &got);
			free(got.copy);
			trace_close(t);

			assert_int_equal(trace_open(&t, path, &preload), 0);
			assert_int_equal(drain(t, &got), 0);
			expect_same(&ref, &got);
			free(got.copy);
			assert_int_equal(trace_rewind(t), 0);
			assert_int_equal(drain(t, &got), 0);
			expect_same(&ref, &got);
			free(got.copy);
			trace_close(t);
			unlink(path);
			free(path);
			tb_free(&z);
		}
	}
	free(ref.copy);
	tb_free(&plain);
}

/* The record an error names: "record N ", N = the packets handed out before it + 1. */
static void expect_record(const struct trace *t, uint64_t n)
{
	char want[40];

	snprintf(want, sizeof(want), "record %llu ", (unsigned long long)n + 1);
	if (!strstr(trace_strerror(t), want))
		fail_msg("'%s' does not name %s", trace_strerror(t), want);
}

/*
 * A compressed stream cut short: the records made before the cut come out,
 * then -EBADMSG naming the file, the record and the compressed offset --
 * from memory, in pieces and from a file alike.
 */
static void test_truncated(void **state)
{
	struct tracebuf plain = { 0 };
	struct seen ref, got;
	struct trace *t;

	(void)state;
	build_trace(&plain, 1500);
	assert_int_equal(trace_open_mem(&t, "p", plain.data, plain.len, NULL), 0);
	assert_int_equal(drain(t, &ref), 0);
	trace_close(t);
	for (int c = 0; c < NCODEC; c++) {
		struct tracebuf z = { 0 };
		struct trace_cfg chunked = { .stream_chunk_bytes = 1000 };
		const struct trace_cfg *cfgs[] = { NULL, &chunked };

		/* two members, the second cut in half: the first member's records are all there */
		zpack(c, plain.data, plain.len / 2, &z);
		zpack(c, plain.data + plain.len / 2, plain.len - plain.len / 2, &z);
		z.len -= (z.len / 4);
		for (size_t k = 0; k < ARRAY_LEN(cfgs); k++) {
			int rc = trace_open_mem(&t, "cut.z", z.data, z.len, cfgs[k]);

			assert_int_equal(rc, 0);
			rc = drain(t, &got);
			assert_int_equal(rc, -EBADMSG);
			assert_non_null(strstr(trace_strerror(t), "cut.z: "));
			assert_non_null(strstr(trace_strerror(t), "stream ends early (truncated) at compressed offset 0x"));
			assert_non_null(strstr(trace_strerror(t), names[c]));
			expect_record(t, got.n);
			expect_prefix(&ref, &got);
			assert_true(got.len >= plain.len / 2 - 2 * 1500);
			/* nothing after: the error stays */
			assert_int_equal(trace_next(t, &(struct pkt){ 0 }), -EBADMSG);
			free(got.copy);
			trace_close(t);
		}
		tb_free(&z);
	}
	free(ref.copy);
	tb_free(&plain);
}

/*
 * A corrupt stream: its check (gzip CRC-32, zstd and lz4 content checksums,
 * xz CRC-64, bzip2's CRC) catches a damaged end, after every record, where
 * the plain reader would have said "end"; bytes after the last member are
 * corruption too, not silently dropped.
 */
static void test_corrupt(void **state)
{
	struct tracebuf plain = { 0 };
	struct seen ref, got;
	struct trace *t;

	(void)state;
	build_trace(&plain, 400);
	assert_int_equal(trace_open_mem(&t, "p", plain.data, plain.len, NULL), 0);
	assert_int_equal(drain(t, &ref), 0);
	trace_close(t);
	for (int c = 0; c < NCODEC; c++) {
		struct tracebuf z = { 0 };
		char *path;
		int rc;

		zpack(c, plain.data, plain.len, &z);
		/* the check: the last 4 bytes (gzip, zstd, lz4), inside xz's index/footer checks, bzip2's CRC */
		z.data[z.len - (c == XZ ? 13 : c == BZ2 ? 3 : 2)] ^= 0x5a;
		path = write_temp(&z);
		if (trace_open(&t, path, NULL) != 0)
			fail_msg("%s: %s", names[c], trace_strerror(t));
		rc = drain(t, &got);
		assert_int_equal(rc, -EBADMSG);
		assert_non_null(strstr(trace_strerror(t), path));
		assert_non_null(strstr(trace_strerror(t), "stream corrupt ("));
		assert_non_null(strstr(trace_strerror(t), "at compressed offset 0x"));
		expect_record(t, got.n);
		assert_true(got.n <= ref.n);
		assert_memory_equal(ref.copy, got.copy, got.len);
		free(got.copy);
		trace_close(t);
		unlink(path);
		free(path);
		tb_free(&z);
	}
	{
		struct tracebuf z = { 0 };

		zpack(GZ, plain.data, plain.len, &z);
		tb_bytes(&z, "junk", 4);
		assert_int_equal(trace_open_mem(&t, "junk.gz", z.data, z.len, NULL), 0);
		assert_int_equal(drain(t, &got), -EBADMSG);
		assert_int_equal(got.n, ref.n);
		assert_non_null(strstr(trace_strerror(t), "gzip stream corrupt"));
		free(got.copy);
		trace_close(t);
		tb_free(&z);
	}
	free(ref.copy);
	tb_free(&plain);
}

/*
 * cfg.nonblock over a compressed pipe: a record not all decompressed yet is
 * -EAGAIN with nothing consumed, and the rest comes out when the input does;
 * a pipe cannot rewind.
 */
static void test_pipe_nonblock(void **state)
{
	static volatile sig_atomic_t stop;
	struct trace_cfg cfg = { .stop = &stop, .nonblock = true };
	struct tracebuf plain = { 0 }, z = { 0 };
	struct seen ref, got = { 0 };
	struct trace *t;
	char path[32];
	struct pkt p;
	int pfd[2], rc, again = 0;
	size_t first;

	(void)state;
	build_trace(&plain, 60);
	assert_int_equal(trace_open_mem(&t, "p", plain.data, plain.len, NULL), 0);
	assert_int_equal(drain(t, &ref), 0);
	trace_close(t);
	zpack(ZST, plain.data, plain.len / 2, &z);
	/* the first frame and part of the second: opening waits for the header, and it is there */
	first = z.len + 10;
	zpack(ZST, plain.data + plain.len / 2, plain.len - plain.len / 2, &z);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], z.data, first), (ssize_t)first);
	snprintf(path, sizeof(path), "/dev/fd/%d", pfd[0]);
	assert_int_equal(trace_open(&t, path, &cfg), 0);
	assert_false(trace_can_rewind(t));
	assert_true(trace_fd(t) >= 0);
	for (;;) {
		rc = trace_next(t, &p);
		if (rc == -EAGAIN) {
			if (again++ == 0) {
				assert_int_equal(write(pfd[1], z.data + first, z.len - first),
						 (ssize_t)(z.len - first));
				close(pfd[1]);
			}
			continue;
		}
		if (rc != 1)
			break;
		seen_append(&got, p.data, p.caplen);
		got.n++;
		got.ts_sum += p.ts_ns;
		got.off_sum += p.off;
	}
	assert_int_equal(rc, 0);
	assert_true(again >= 1);
	assert_true(got.n > 0);
	expect_same(&ref, &got);
	assert_int_equal(trace_rewind(t), -ESPIPE);
	trace_close(t);
	close(pfd[0]);
	free(got.copy);
	free(ref.copy);
	tb_free(&z);
	tb_free(&plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codecs_same_records),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_pipe_nonblock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
