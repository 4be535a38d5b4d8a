// SPDX-License-Identifier: BSD-2-Clause
/*
 * -v/--verbose's writer (src/stats/decode.c): the pcap stream tcpdump reads,
 * byte for byte (header, then records with the record time and the bytes
 * as given); a reader that goes away (EPIPE) stops the decoding with a
 * warning and nothing else; ARGS split at blanks; tcpdump not on PATH
 * refused with one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/decode.h"
#include "replay/log.h"

static char err[512];

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static size_t read_all(int fd, uint8_t *b, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap && (r = read(fd, b + n, cap - n)) > 0)
		n += (size_t)r;
	return n;
}

static void test_stream_bytes(void **state)
{
	static uint8_t got[4096];
	uint8_t f1[60], f2[1514];
	struct pkt p1 = { .data = f1, .caplen = sizeof(f1), .wirelen = sizeof(f1),
			  .ts_ns = 1700000000ull * 1000000000ull + 123456789ull };
	/* Cut short by the capture: caplen bytes go, the record keeps the wire length. */
	struct pkt p2 = { .data = f2, .caplen = 100, .wirelen = sizeof(f2), .ts_ns = 5ull * 1000000000ull + 7 };
	struct decode *d;
	int p[2];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(f1); i++)
		f1[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(f2); i++)
		f2[i] = (uint8_t)(0xff - i);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(decode_open_fd(&d, p[1], err, sizeof(err)), 0);
	decode_pkt(d, &p1);
	decode_pkt(d, &p2);
	assert_false(decode_stopped(d));
	assert_int_equal(decode_finish(d, err, sizeof(err)), 0); /* closes the write end */
	n = read_all(p[0], got, sizeof(got));
	close(p[0]);
	assert_int_equal(n, DECODE_HDR_BYTES + DECODE_REC_BYTES + 60 + DECODE_REC_BYTES + 100);
	/* The header: nanosecond pcap 2.4, snap length the pipeline's limit, Ethernet. */
	assert_int_equal(le32(got), 0xa1b23c4du);
	assert_int_equal(le32(got + 4), 2u | 4u << 16);
	assert_int_equal(le32(got + 8), 0);
	assert_int_equal(le32(got + 12), 0);
	assert_int_equal(le32(got + 16), PKT_FRAME_MAX_BYTES);
	assert_int_equal(le32(got + 20), 1);
	/* Record 1: the record time in seconds and nanoseconds, lengths, the bytes. */
	assert_int_equal(le32(got + 24), 1700000000u);
	assert_int_equal(le32(got + 28), 123456789u);
	assert_int_equal(le32(got + 32), 60);
	assert_int_equal(le32(got + 36), 60);
	assert_memory_equal(got + 40, f1, 60);
	/* Record 2. */
	assert_int_equal(le32(got + 100), 5);
	assert_int_equal(le32(got + 104), 7);
	assert_int_equal(le32(got + 108), 100);
	assert_int_equal(le32(got + 112), 1514);
	assert_memory_equal(got + 116, f2, 100);
}

/* The reader went away: one warning, decoding stops, later packets are not written (no SIGPIPE death). */
static void test_epipe_stops(void **state)
{
	uint8_t f[64] = { 0 };
	struct pkt pk = { .data = f, .caplen = sizeof(f), .wirelen = sizeof(f), .ts_ns = 1 };
	char logbuf[1024], *first;
	FILE *logf = tmpfile();
	int saved = dup(STDERR_FILENO), p[2];
	struct decode *d;
	size_t n;

	(void)state;
	assert_non_null(logf);
	log_init("replay", LOG_LVL_WARN);
	fflush(stderr);
	assert_true(dup2(fileno(logf), STDERR_FILENO) >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(decode_open_fd(&d, p[1], err, sizeof(err)), 0);
	decode_pkt(d, &pk);
	assert_false(decode_stopped(d));
	close(p[0]);
	decode_pkt(d, &pk);
	assert_true(decode_stopped(d));
	decode_pkt(d, &pk); /* stopped: nothing happens, no second warning */
	assert_true(decode_stopped(d));
	assert_int_equal(decode_finish(d, err, sizeof(err)), 0);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(logf);
	n = fread(logbuf, 1, sizeof(logbuf) - 1, logf);
	logbuf[n] = 0;
	fclose(logf);
	assert_string_equal(logbuf,
			    "replay: warning: -v: tcpdump stopped reading (it exited?): decoding stops, sending goes on\n");
	first = strstr(logbuf, "decoding stops");
	assert_null(strstr(first + 1, "decoding stops"));
}

static void test_split_args(void **state)
{
	char b[64], *argv[4];

	(void)state;
	strcpy(b, "  -e\t-x  -s 96 ");
	assert_int_equal(decode_split_args(b, argv, 4), -1); /* four words, room for three */
	strcpy(b, " -e\t-x ");
	assert_int_equal(decode_split_args(b, argv, 4), 2);
	assert_string_equal(argv[0], "-e");
	assert_string_equal(argv[1], "-x");
	assert_null(argv[2]);
	strcpy(b, "   ");
	assert_int_equal(decode_split_args(b, argv, 4), 0);
	assert_null(argv[0]);
}

/* Without tcpdump on PATH: -ENOENT and one line that says what to do. */
static void test_no_tcpdump(void **state)
{
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	struct decode *d = (struct decode *)&d;

	(void)state;
	setenv("PATH", "/nonexistent-hverb", 1);
	assert_int_equal(decode_start(&d, "-e", err, sizeof(err)), -ENOENT);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	assert_null(d);
	assert_string_equal(err, "-v decodes with tcpdump, which is not on PATH: install tcpdump (or drop -v)");
	assert_int_equal(decode_finish(NULL, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_bytes),
		cmocka_unit_test(test_epipe_stops),
		cmocka_unit_test(test_split_args),
		cmocka_unit_test(test_no_tcpdump),
	};

	signal(SIGPIPE, SIG_IGN); /* as replay's main() */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
