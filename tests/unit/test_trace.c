// SPDX-License-Identifier: BSD-2-Clause
/* Reader tests on traces built in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/trace.h"
#include "tracebuf.h"

#define SEC0 1700000000u

static struct trace *open_buf(const struct tracebuf *b, int expect)
{
	struct trace *t = NULL;
	int rc = trace_open_mem(&t, "mem.pcap", b->data, b->len, NULL);

	assert_int_equal(rc, expect);
	assert_non_null(t);
	return t;
}

/* The same three frames in each of the four encodings read back identically. */
static void check_encoding(uint32_t magic, bool swap)
{
	struct tracebuf b = { .swap = swap };
	uint32_t scale = magic == PCAP_NSEC ? 1 : 1000;
	uint8_t f[3][100];
	struct trace *t;
	struct pkt p;

	tb_pcap_header(&b, magic, 65535, 1);
	for (unsigned i = 0; i < 3; i++) {
		tb_frame(f[i], 60 + 20 * i, i);
		tb_pcap_record(&b, SEC0 + i, (250000 * i * 1000) / scale, 60 + 20 * i, 60 + 20 * i,
			       f[i]);
	}
	t = open_buf(&b, 0);
	assert_string_equal(trace_format_name(t), "pcap");
	assert_int_equal(trace_linktype(t), 1);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.caplen, 60 + 20 * i);
		assert_int_equal(p.wirelen, 60 + 20 * i);
		assert_memory_equal(p.data, f[i], p.caplen);
		assert_int_equal(p.ts_ns, (uint64_t)(SEC0 + i) * 1000000000ull + 250000000ull * i);
		assert_int_equal(p.recno, i + 1);
		assert_int_equal(p.linktype, 1);
		assert_int_equal(p.flags, 0);
	}
	assert_int_equal(p.off, 24 + 16 + 60 + 16 + 80);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, NULL), 0);
	trace_close(t);
	tb_free(&b);
}

static void test_usec_le(void **state)
{
	(void)state;
	check_encoding(PCAP_USEC, false);
}

static void test_usec_be(void **state)
{
	(void)state;
	check_encoding(PCAP_USEC, true);
}

static void test_nsec_le(void **state)
{
	(void)state;
	check_encoding(PCAP_NSEC, false);
}

static void test_nsec_be(void **state)
{
	(void)state;
	check_encoding(PCAP_NSEC, true);
}

static void test_modified_format(void **state)
{
	struct tracebuf b = { 0 };
	uint8_t extra[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t f[64];
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_frame(f, sizeof(f), 9);
	tb_pcap_header(&b, PCAP_MOD, 65535, 1);
	tb_u32(&b, SEC0);
	tb_u32(&b, 5);
	tb_u32(&b, sizeof(f));
	tb_u32(&b, sizeof(f));
	tb_bytes(&b, extra, sizeof(extra)); /* ifindex, protocol, pkt_type, pad */
	tb_bytes(&b, f, sizeof(f));
	t = open_buf(&b, 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_memory_equal(p.data, f, sizeof(f));
	assert_int_equal(p.ts_ns, (uint64_t)SEC0 * 1000000000ull + 5000);
	assert_int_equal(trace_next(t, &p), 0);
	trace_close(t);
	tb_free(&b);
}

static void expect_open_error(const void *buf, size_t len, int err, const char *needle)
{
	struct trace *t = NULL;

	assert_int_equal(trace_open_mem(&t, "bad.pcap", buf, len, NULL), err);
	assert_non_null(strstr(trace_strerror(t), needle));
	assert_non_null(strstr(trace_strerror(t), "bad.pcap: "));
	trace_close(t);
}

static void test_header_errors(void **state)
{
	struct tracebuf b = { 0 };
	static const uint8_t junk[24] = "this is not a pcap file";
	static const uint8_t ng[] = { 0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a };

	(void)state;
	expect_open_error("", 0, -EINVAL, "empty file");
	expect_open_error("\xd4\xc3\xb2", 3, -EINVAL, "too short");
	expect_open_error(junk, sizeof(junk), -EINVAL, "unknown magic 0x74686973");
	/* pcapng is read now (test_trace_pcapng.c); this is only its first 12 bytes. */
	expect_open_error(ng, sizeof(ng), -EINVAL, "truncated pcapng section header");
	tb_pcap_header(&b, PCAP_USEC, 65535, 1);
	expect_open_error(b.data, 10, -EINVAL, "truncated pcap file header (10 of 24 bytes)");
	b.data[4] = 3; /* version 3.4 */
	expect_open_error(b.data, b.len, -EINVAL, "unsupported pcap version 3.4");
	tb_free(&b);
}

static void test_absurd_caplen(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t;
	struct pkt p;
	uint8_t big[300000];

	(void)state;
	memset(big, 0xab, sizeof(big));
	tb_pcap_header(&b, PCAP_USEC, 65535, 1);
	tb_pcap_record(&b, SEC0, 0, 60, 60, NULL);
	tb_pcap_record(&b, SEC0, 1, 300000, 300000, big);
	t = open_buf(&b, 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), -EINVAL);
	assert_string_equal(trace_strerror(t),
			    "mem.pcap: record 2 at offset 0x64: captured length 300000 is absurd (limit 262144); the file is corrupt");
	trace_close(t);
	tb_free(&b);
}

static void test_odd_lengths_warn(void **state)
{
	struct tracebuf b = { 0 };
	const char *first;
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 64, 1);
	tb_pcap_record(&b, SEC0, 0, 100, 100, NULL); /* caplen above snaplen */
	tb_pcap_record(&b, SEC0, 1, 60, 50, NULL);   /* caplen above wirelen (within the snap length) */
	tb_pcap_record(&b, SEC0, 2, 40, 1000, NULL); /* truncated capture: fine, flagged */
	t = open_buf(&b, 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.caplen, 100);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.caplen, 60);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.caplen, 40);
	assert_int_equal(p.wirelen, 1000);
	assert_int_equal(p.flags, PKT_F_TRUNCATED);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, &first), 2);
	assert_string_equal(first,
			    "mem.pcap: record 1 at offset 0x18: captured length 100 exceeds the snap length 64");
	trace_close(t);
	tb_free(&b);
}

static void test_truncated_tail(void **state)
{
	struct tracebuf b = { 0 };
	const char *first;
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 65535, 1);
	tb_pcap_record(&b, SEC0, 0, 60, 60, NULL);
	tb_pcap_record(&b, SEC0, 1, 60, 60, NULL);
	/* Cut the second record's data short: a capture killed mid-write. */
	t = open_buf(&(struct tracebuf){ .data = b.data, .len = b.len - 10 }, 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, &first), 1);
	assert_non_null(strstr(first, "record 2 at offset 0x64: truncated record (50 of 60"));
	trace_close(t);

	/* Cut inside the second record header. */
	t = open_buf(&(struct tracebuf){ .data = b.data, .len = 24 + 16 + 60 + 7 }, 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, &first), 1);
	assert_non_null(strstr(first, "truncated record header (7 of 16 bytes)"));
	trace_close(t);
	tb_free(&b);
}

static void test_rewind(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	tb_pcap_record(&b, SEC0, 7, 60, 60, NULL);
	tb_pcap_record(&b, SEC0 + 1, 8, 61, 61, NULL);
	t = open_buf(&b, 0);
	for (int pass = 0; pass < 3; pass++) {
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.recno, 1);
		assert_int_equal(p.ts_ns, (uint64_t)SEC0 * 1000000000ull + 7);
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.caplen, 61);
		assert_int_equal(trace_next(t, &p), 0);
		assert_int_equal(trace_rewind(t), 0);
	}
	trace_close(t);
	tb_free(&b);
}

static void test_fcs_stripped(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t;
	struct pkt p;

	(void)state;
	/* Link type 1 with the F bit and an FCS length of 2 16-bit words (4 bytes). */
	tb_pcap_header(&b, PCAP_USEC, 65535, 1u | 0x04000000u | 2u << 28);
	tb_pcap_record(&b, SEC0, 0, 64, 64, NULL);
	t = open_buf(&b, 0);
	assert_int_equal(trace_linktype(t), 1);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.caplen, 60);
	assert_int_equal(p.wirelen, 60);
	trace_close(t);
	tb_free(&b);
}

static void test_empty_trace(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 65535, 1);
	t = open_buf(&b, 0);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, NULL), 0);
	trace_close(t);
	tb_free(&b);
}

static void test_open_file_errors(void **state)
{
	struct trace *t = NULL;

	(void)state;
	assert_int_equal(trace_open(&t, "/nonexistent/x.pcap", NULL), -ENOENT);
	assert_string_equal(trace_strerror(t), "/nonexistent/x.pcap: cannot open: No such file or directory");
	trace_close(t);
	assert_int_equal(trace_open(&t, "/", NULL), -EISDIR);
	assert_string_equal(trace_strerror(t), "/: is a directory, not a trace");
	trace_close(t);
	trace_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usec_le),
		cmocka_unit_test(test_usec_be),
		cmocka_unit_test(test_nsec_le),
		cmocka_unit_test(test_nsec_be),
		cmocka_unit_test(test_modified_format),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_absurd_caplen),
		cmocka_unit_test(test_odd_lengths_warn),
		cmocka_unit_test(test_truncated_tail),
		cmocka_unit_test(test_rewind),
		cmocka_unit_test(test_fcs_stripped),
		cmocka_unit_test(test_empty_trace),
		cmocka_unit_test(test_open_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
