// SPDX-License-Identifier: BSD-2-Clause
/*
 * Impairment traces (replay/impair.h): the text parser and its errors (line
 * and column), the binary round trip, the reader's refusals, repeat and
 * default in the engine, and the bounds of corruption.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/impair.h"

static char path[] = "/tmp/test_impair.XXXXXX";
static char err[1024];
static struct impair_action act, act2;

/* Write @len bytes to a fresh temporary file named in path. */
static void put_file(const void *data, size_t len)
{
	int fd;

	strcpy(path, "/tmp/test_impair.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void put_text(const char *s)
{
	put_file(s, strlen(s));
}

static int parse(const char *line)
{
	return impair_action_parse(line, &act, err, sizeof(err));
}

static void test_parse_actions(void **state)
{
	(void)state;
	assert_int_equal(parse("pass"), 0);
	assert_false(act.drop);
	assert_int_equal(act.delay_ns, 0);
	assert_int_equal(parse("drop"), 0);
	assert_true(act.drop);
	assert_int_equal(parse("delay 10ms"), 0);
	assert_int_equal(act.delay_ns, 10000000);
	assert_int_equal(parse("delay 7"), 0);
	assert_int_equal(act.delay_ns, 7);
	assert_int_equal(parse("delay 3us"), 0);
	assert_int_equal(act.delay_ns, 3000);
	assert_int_equal(parse("delay 2s"), 0);
	assert_int_equal(act.delay_ns, 2000000000ULL);
	assert_int_equal(parse("  delay 5ms dup 3 1ms 2ms  # the third copy leaves with the packet"), 0);
	assert_int_equal(act.delay_ns, 5000000);
	assert_int_equal(act.ndup, 3);
	assert_int_equal(act.dup_delay_ns[0], 1000000);
	assert_int_equal(act.dup_delay_ns[1], 2000000);
	assert_int_equal(act.dup_delay_ns[2], 5000000);
	assert_int_equal(parse("corrupt bits 3,17 byte 40 random 2 dup 1"), 0);
	assert_int_equal(act.ncorrupt, 4);
	assert_int_equal(act.corrupt[0].kind, IMPAIR_CORRUPT_BIT);
	assert_int_equal(act.corrupt[0].pos, 3);
	assert_int_equal(act.corrupt[1].pos, 17);
	assert_int_equal(act.corrupt[2].kind, IMPAIR_CORRUPT_BYTE);
	assert_int_equal(act.corrupt[2].pos, 40);
	assert_int_equal(act.corrupt[3].kind, IMPAIR_CORRUPT_RANDOM);
	assert_int_equal(act.corrupt[3].pos, 2);
	assert_int_equal(act.ndup, 1);
	assert_int_equal(act.dup_delay_ns[0], 0);
}

/* Each bad line names the column of what is wrong. */
static void test_parse_errors(void **state)
{
	static const struct { const char *line, *msg; } cases[] = {
		{ "bogus", "column 1: unknown action 'bogus'" },
		{ "delay", "column 6: expected a delay" },
		{ "delay 10xs", "column 9: unknown unit 'xs'" },
		{ "delay x", "column 7: expected a delay (e.g. 10ms), not 'x'" },
		{ "delay 3601s", "column 7: delay '3601s' is too large" },
		{ "delay 99999999999999999999", "column 7: delay '99999999999999999999' is too large" },
		{ "delay 1ms delay 2ms", "column 11: a second 'delay'" },
		{ "drop delay 1ms", "column 6: 'drop' cannot be combined" },
		{ "delay 1ms drop", "column 11: 'drop' cannot be combined" },
		{ "dup 0", "column 5: 'dup 0' makes no copy" },
		{ "dup 256", "column 5: a number of copies 256 is too large (at most 255)" },
		{ "dup 2 1ms 2ms 3ms", "column 15: unknown action '3ms'" },
		{ "corrupt", "column 8: expected bits, bytes or random" },
		{ "corrupt bits 3,,4", "column 16: expected a bit number" },
		{ "corrupt bits 1073741824", "column 14: a bit number 1073741824 is too large" },
		{ "corrupt random 0", "column 16: 'random 0' corrupts nothing" },
		{ "corrupt blah", "column 9: expected bits, bytes or random after 'corrupt', not 'blah'" },
		{ "   ", "column 4: empty action" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse(cases[i].line);

		if (rc != -EINVAL || !strstr(err, cases[i].msg))
			fail_msg("'%s': rc %d, '%s', expected '%s'", cases[i].line, rc, err,
				 cases[i].msg);
	}
}

static void test_reader_text_errors(void **state)
{
	struct impair_reader *r;
	int rc;

	(void)state;
	put_text("# comment\npass\n\ndelay 1ms\ndelay 2 parsecs\n");
	assert_int_equal(impair_reader_open(&r, path), 0);
	assert_int_equal(impair_reader_fmt(r), IMPAIR_FMT_TEXT);
	assert_int_equal(impair_reader_next(r, &act), 1);
	assert_int_equal(impair_reader_next(r, &act), 1);
	assert_int_equal(act.delay_ns, 1000000);
	rc = impair_reader_next(r, &act);
	assert_int_equal(rc, -EBADMSG);
	assert_non_null(strstr(impair_reader_strerror(r), "line 5, column 9: unknown action 'parsecs'"));
	impair_reader_close(r);
	unlink(path);

	/* A NUL byte and an overlong line are refused with their line. */
	put_file("pass\nde\0lay\n", 12);
	assert_int_equal(impair_reader_open(&r, path), 0);
	assert_int_equal(impair_reader_next(r, &act), 1);
	assert_int_equal(impair_reader_next(r, &act), -EBADMSG);
	assert_non_null(strstr(impair_reader_strerror(r), "line 2, column 3: a NUL byte"));
	impair_reader_close(r);
	unlink(path);

	char *big = malloc(IMPAIR_LINE_MAX + 10);

	assert_non_null(big);
	memset(big, ' ', IMPAIR_LINE_MAX + 9);
	memcpy(big, "pass\n", 5);
	big[IMPAIR_LINE_MAX + 9] = 0;
	put_text(big);
	free(big);
	assert_int_equal(impair_reader_open(&r, path), 0);
	assert_int_equal(impair_reader_next(r, &act), 1);
	assert_int_equal(impair_reader_next(r, &act), -EBADMSG);
	assert_non_null(strstr(impair_reader_strerror(r), "line 2: longer than"));
	impair_reader_close(r);
	unlink(path);
}

static void fill_random_action(struct impair_action *a, unsigned i)
{
	impair_action_pass(a);
	switch (i % 6) {
	case 0:
		break;
	case 1:
		a->drop = true;
		break;
	case 2:
		a->delay_ns = (uint64_t)i * 7919; /* narrow ns */
		break;
	case 3:
		a->delay_ns = (uint64_t)i * 1000000007ULL % IMPAIR_DELAY_MAX; /* often wide */
		break;
	case 4:
		a->delay_ns = (uint64_t)i * 1000;
		a->ndup = (uint8_t)(1 + i % 255);
		for (unsigned k = 0; k < a->ndup; k++)
			a->dup_delay_ns[k] = k % 2 ? (uint64_t)k * 1000000 : 123456789012ULL + k;
		break;
	case 5:
		a->ncorrupt = (uint8_t)(1 + i % 255);
		for (unsigned k = 0; k < a->ncorrupt; k++) {
			a->corrupt[k].kind = (enum impair_corrupt_kind)(k % 3);
			a->corrupt[k].pos = k * 1000 + 1;
		}
		a->ndup = 1;
		a->dup_delay_ns[0] = IMPAIR_DELAY_MAX;
		break;
	}
}

static bool same_action(const struct impair_action *a, const struct impair_action *b)
{
	if (a->drop != b->drop || a->delay_ns != b->delay_ns || a->ndup != b->ndup ||
	    a->ncorrupt != b->ncorrupt)
		return false;
	for (unsigned k = 0; k < a->ndup; k++)
		if (a->dup_delay_ns[k] != b->dup_delay_ns[k])
			return false;
	for (unsigned k = 0; k < a->ncorrupt; k++)
		if (a->corrupt[k].kind != b->corrupt[k].kind || a->corrupt[k].pos != b->corrupt[k].pos)
			return false;
	return true;
}

/* Write N actions in @fmt, read them back, compare; 20000 of them cross the reader's window. */
static void round_trip(enum impair_fmt fmt)
{
	const unsigned n = 20000;
	struct impair_reader *r;
	FILE *f;
	int fd;

	strcpy(path, "/tmp/test_impair.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(impair_write_header(f, fmt), 0);
	for (unsigned i = 0; i < n; i++) {
		fill_random_action(&act, i);
		assert_int_equal(impair_write(f, fmt, &act), 0);
	}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(impair_reader_open(&r, path), 0);
	assert_int_equal(impair_reader_fmt(r), fmt);
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < n; i++) {
			int rc = impair_reader_next(r, &act2);

			if (rc != 1)
				fail_msg("action %u: %d %s", i, rc, impair_reader_strerror(r));
			fill_random_action(&act, i);
			if (!same_action(&act, &act2))
				fail_msg("action %u differs after the round trip", i);
		}
		assert_int_equal(impair_reader_next(r, &act2), 0);
		assert_int_equal(impair_reader_rewind(r), 0);
	}
	impair_reader_close(r);
	unlink(path);
}

static void test_round_trip_bin(void **state)
{
	(void)state;
	round_trip(IMPAIR_FMT_BIN);
}

static void test_round_trip_text(void **state)
{
	(void)state;
	round_trip(IMPAIR_FMT_TEXT);
}

/* The 32-bit words themselves, as documented in replay/impair.h. */
static void test_bin_layout(void **state)
{
	static const uint8_t want[] = {
		'R', 'P', 'I', 'M', 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x00, 0x10,                 /* drop */
		0x0a, 0x00, 0x00, 0x08,                 /* delay 10ms: value 10, unit 2 */
		0x00, 0x00, 0x00, 0x2c,                 /* wide delay, EXT */
		0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* 0x400000001 ns, low word first */
		0x01, 0x01, 0x00, 0x00,                 /* 1 copy, 1 corruption */
		0x05, 0x00, 0x00, 0x04,                 /* copy: 5us */
		0x03, 0x00, 0x00, 0x80,                 /* random 3 */
	};
	uint8_t got[sizeof(want) + 8];
	FILE *f = fmemopen(got, sizeof(got), "wb");

	(void)state;
	assert_non_null(f);
	assert_int_equal(impair_write_header(f, IMPAIR_FMT_BIN), 0);
	assert_int_equal(parse("drop"), 0);
	assert_int_equal(impair_write(f, IMPAIR_FMT_BIN, &act), 0);
	assert_int_equal(parse("delay 10ms"), 0);
	assert_int_equal(impair_write(f, IMPAIR_FMT_BIN, &act), 0);
	assert_int_equal(parse("delay 17179869185 dup 1 5us corrupt random 3"), 0);
	assert_int_equal(impair_write(f, IMPAIR_FMT_BIN, &act), 0);
	assert_int_equal(ftell(f), (long)sizeof(want));
	fclose(f);
	assert_memory_equal(got, want, sizeof(want));
}

static void expect_bin_error(const uint8_t *words, size_t len, const char *msg)
{
	uint8_t buf[64] = { 'R', 'P', 'I', 'M', 1, 0, 4, 0 };
	struct impair_reader *r;
	int rc;

	memcpy(buf + IMPAIR_HDR_LEN, words, len);
	put_file(buf, IMPAIR_HDR_LEN + len);
	assert_int_equal(impair_reader_open(&r, path), 0);
	do
		rc = impair_reader_next(r, &act);
	while (rc == 1);
	if (rc != -EBADMSG || !strstr(impair_reader_strerror(r), msg))
		fail_msg("rc %d '%s', expected '%s'", rc, impair_reader_strerror(r), msg);
	impair_reader_close(r);
	unlink(path);
}

static void test_bin_errors(void **state)
{
	struct impair_reader *r;

	(void)state;
	expect_bin_error((const uint8_t[]){ 0, 0, 0, 0x40 }, 4, "action 1 at offset 0x10: reserved bits");
	expect_bin_error((const uint8_t[]){ 0, 0, 0, 0, 1, 0, 0, 0x10 }, 8,
			 "action 2 at offset 0x14: 'drop' with other bits set");
	expect_bin_error((const uint8_t[]){ 0, 0, 0, 0x20 }, 4, "action 1 at offset 0x10 cut short");
	expect_bin_error((const uint8_t[]){ 0, 0, 0, 0x20, 0, 0, 0, 0 }, 8,
			 "no copies and no corruptions");
	expect_bin_error((const uint8_t[]){ 0, 0, 0, 0x20, 0, 1, 0, 0, 0, 0, 0, 0xc0 }, 12,
			 "unknown corruption kind 3");
	expect_bin_error((const uint8_t[]){ 0, 0, 0, 0x0c, 0, 0, 0, 0, 0, 0, 0, 1 }, 12,
			 "delay above 3600s");
	expect_bin_error((const uint8_t[]){ 0, 0, 0 }, 3, "action 1 at offset 0x10 cut short");

	put_file("RPIM\2\0\4\0\0\0\0\0\0\0\0\0", 16);
	assert_int_equal(impair_reader_open(&r, path), -EBADMSG);
	assert_non_null(strstr(impair_reader_strerror(r), "format version 2 is not supported"));
	impair_reader_close(r);
	unlink(path);
	put_file("RPIM\1\0", 6);
	assert_int_equal(impair_reader_open(&r, path), -EBADMSG);
	assert_non_null(strstr(impair_reader_strerror(r), "binary header cut short"));
	impair_reader_close(r);
	unlink(path);
}

static struct impair *open_engine(const char *text, uint64_t repeat, const char *dflt)
{
	struct impair_cfg cfg = { .repeat = repeat, .seed = 42 };
	struct impair *im;

	put_text(text);
	cfg.path = path;
	assert_int_equal(impair_action_parse(dflt, &cfg.dflt, err, sizeof(err)), 0);
	if (impair_open(&im, &cfg, 1, err, sizeof(err)) < 0)
		fail_msg("impair_open: %s", err);
	return im;
}

static void test_repeat_default(void **state)
{
	struct impair *im;
	const struct impair_stats *st;

	(void)state;
	/* Two passes over "drop, delay 1ms", then the default (delay 7us) forever. */
	im = open_engine("drop\ndelay 1ms\n", 2, "delay 7us");
	for (int i = 0; i < 4; i++) {
		assert_int_equal(impair_next(im, NULL, 0, &act), 1);
		assert_int_equal(act.src, IMPAIR_SRC_TRACE);
		assert_int_equal(act.drop, i % 2 == 0);
		assert_int_equal(act.delay_ns, i % 2 ? 1000000 : 0);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(impair_next(im, NULL, 0, &act), 1);
		assert_int_equal(act.src, IMPAIR_SRC_DEFAULT);
		assert_false(act.drop);
		assert_int_equal(act.delay_ns, 7000);
	}
	st = impair_stats(im);
	assert_int_equal(st->actions, 7);
	assert_int_equal(st->from_trace, 4);
	assert_int_equal(st->from_default, 3);
	assert_int_equal(st->passes, 2);
	assert_int_equal(st->dropped, 2);
	assert_int_equal(st->delayed, 5);
	assert_int_equal(st->passed, 0);
	impair_close(im);
	unlink(path);

	/* Repeat 0 is forever: 1000 actions from a 3-line trace, none from the default. */
	im = open_engine("pass\ndup 1\ndrop\n", 0, "drop");
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(impair_next(im, NULL, 0, &act), 1);
		assert_int_equal(act.src, IMPAIR_SRC_TRACE);
		assert_int_equal(act.ndup, i % 3 == 1);
	}
	st = impair_stats(im);
	assert_int_equal(st->from_default, 0);
	assert_int_equal(st->passes, 333);
	assert_int_equal(st->passed, 334);
	assert_int_equal(st->duplicated, 333);
	assert_int_equal(st->copies, 333);
	impair_close(im);
	unlink(path);

	/* An empty trace with repeat 0 does not spin: the default at once. */
	im = open_engine("# nothing\n", 0, "drop");
	assert_int_equal(impair_next(im, NULL, 0, &act), 1);
	assert_int_equal(act.src, IMPAIR_SRC_DEFAULT);
	assert_true(act.drop);
	impair_close(im);
	unlink(path);
}

static void test_open_refusals(void **state)
{
	struct impair_cfg cfg[2] = { { .repeat = 1 }, { .repeat = 1 } };
	struct impair *im = (struct impair *)1;

	(void)state;
	put_text("pass\npass\ndelay 1zs\n");
	cfg[0].path = cfg[1].path = path;
	impair_action_pass(&cfg[0].dflt);
	/* The whole trace is checked at open: line 3 fails before any packet. */
	assert_int_equal(impair_open(&im, cfg, 1, err, sizeof(err)), -EBADMSG);
	assert_null(im);
	if (!strstr(err, "line 3, column 8: unknown unit 'zs'"))
		fail_msg("%s", err);
	/* Not "only one trace, no filter" (-ENOTSUP) any more: the per-flow sources take several. */
	assert_int_equal(impair_open(&im, cfg, 0, err, sizeof(err)), -EINVAL);
	unlink(path);
	put_text("pass\n");
	cfg[1].filter = "udp port";
	impair_action_pass(&cfg[1].dflt);
	assert_int_equal(impair_open(&im, cfg, 2, err, sizeof(err)), -EINVAL);
	assert_null(im);
	if (!strstr(err, "impairment trace /tmp/test_impair.") || !strstr(err, "filter 'udp port': "))
		fail_msg("%s", err);
	cfg[1].filter = NULL;
	cfg[1].path = NULL;
	assert_int_equal(impair_open(&im, cfg, 2, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "impairment model 2: neither a trace nor a model"))
		fail_msg("%s", err);
	unlink(path);
}

/* An Ethernet/IPv4 frame with protocol @proto, ports 1000 -> @dport for UDP and TCP. */
static struct pkt frame(uint8_t *buf, uint8_t proto, uint16_t dport)
{
	struct pkt p = { .data = buf, .caplen = 54, .wirelen = 54, .linktype = LINKTYPE_ETHERNET };

	memset(buf, 0, 54);
	buf[12] = 0x08;
	buf[14] = 0x45;
	buf[17] = 40;
	buf[22] = 64;
	buf[23] = proto;
	buf[26] = 10, buf[29] = 1;
	buf[30] = 10, buf[33] = 2;
	buf[34] = 1000 >> 8, buf[35] = 1000 & 0xff;
	buf[36] = (uint8_t)(dport >> 8), buf[37] = (uint8_t)dport;
	return p;
}

static void test_flows(void **state)
{
	char pa[sizeof(path)], pb[sizeof(path)];
	struct impair_cfg cfg[3] = { { .repeat = 0 }, { .repeat = 1 }, { .repeat = 0 } };
	struct impair *im;
	uint8_t udp[54], tcp[54], dns[54], icmp[54];
	struct pkt pu = frame(udp, 17, 9), pt = frame(tcp, 6, 80), pd = frame(dns, 17, 53),
		   pi = frame(icmp, 1, 0);
	const struct impair_stats *st;

	(void)state;
	put_text("drop\ndelay 1ms\n");
	strcpy(pa, path);
	put_text("dup 1\n");
	strcpy(pb, path);
	put_text("delay 5us\n");
	/* DNS first (it is UDP too: the first matching source wins), then UDP, then TCP. */
	cfg[0].path = path;
	cfg[0].filter = "udp port 53";
	cfg[1].path = pa;
	cfg[1].filter = "udp";
	cfg[2].path = pb;
	cfg[2].filter = "tcp";
	for (int i = 0; i < 3; i++)
		impair_action_pass(&cfg[i].dflt);
	cfg[1].dflt.delay_ns = 3;
	if (impair_open(&im, cfg, 3, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(impair_next(im, &pu, 0, &act), 1);
	assert_true(act.drop);
	assert_int_equal(impair_next(im, &pt, 0, &act), 1);
	assert_int_equal(act.ndup, 1);
	assert_int_equal(impair_next(im, &pi, 0, &act), 0); /* no flow: untouched */
	assert_int_equal(impair_next(im, &pd, 0, &act), 1);
	assert_int_equal(act.delay_ns, 5000);
	assert_int_equal(act.src, IMPAIR_SRC_TRACE);
	assert_int_equal(impair_next(im, &pu, 0, &act), 1); /* the UDP trace's second action */
	assert_false(act.drop);
	assert_int_equal(act.delay_ns, 1000000);
	assert_int_equal(impair_next(im, &pu, 0, &act), 1); /* one pass only: its default */
	assert_int_equal(act.src, IMPAIR_SRC_DEFAULT);
	assert_int_equal(act.delay_ns, 3);
	assert_int_equal(impair_next(im, &pt, 0, &act), 1); /* TCP's trace repeats forever */
	assert_int_equal(act.ndup, 1);
	assert_int_equal(act.src, IMPAIR_SRC_TRACE);
	/* Another link type matches no filter. */
	pu.linktype = 113;
	assert_int_equal(impair_next(im, &pu, 0, &act), 0);
	assert_int_equal(impair_next(im, NULL, 0, &act), 0);
	st = impair_stats(im);
	assert_int_equal(st->packets, 9);
	assert_int_equal(st->unmatched, 3);
	assert_int_equal(st->actions, 6);
	assert_int_equal(st->from_trace, 5);
	assert_int_equal(st->from_default, 1);
	assert_int_equal(st->dropped, 1);
	assert_int_equal(st->duplicated, 2);
	assert_int_equal(st->delayed, 3);
	assert_int_equal(st->delay.count, 3);
	assert_int_equal(st->delay.max, 1000000);
	impair_close(im);
	unlink(path);
	unlink(pa);
	unlink(pb);
}

static void test_corrupt_bounds(void **state)
{
	struct impair *im;
	uint8_t buf[8 + 4], ref[sizeof(buf)];
	const struct impair_stats *st;

	(void)state;
	im = open_engine("pass\n", 1, "pass");
	/* Frame of 8 bytes inside a 12-byte buffer: nothing past byte 7 may change. */
	memset(buf, 0x55, sizeof(buf));
	memcpy(ref, buf, sizeof(buf));
	assert_int_equal(parse("corrupt bits 0,63,64 bytes 7,8,1000000"), 0);
	assert_int_equal(impair_corrupt_apply(im, &act, buf, 8), 1 + 1 + 8);
	ref[0] ^= 0x80;
	ref[7] ^= 0x01;
	ref[7] ^= 0xff;
	assert_memory_equal(buf, ref, sizeof(buf));
	st = impair_stats(im);
	assert_int_equal(st->corrupt_outside, 3);
	assert_int_equal(st->corrupted, 1);
	assert_int_equal(st->bits_flipped, 10);

	/* Random bits stay inside the frame; an empty frame is counted outside. */
	assert_int_equal(parse("corrupt random 20"), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(impair_corrupt_apply(im, &act, buf, 3), 20);
	for (size_t i = 3; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(impair_corrupt_apply(im, &act, buf, 0), 0);
	assert_int_equal(st->corrupt_outside, 4);
	/* A huge K costs no more draws than the frame has bits. */
	assert_int_equal(parse("corrupt random 1073741823"), 0);
	assert_int_equal(impair_corrupt_apply(im, &act, buf, 2), 16);
	/* One random bit changes exactly one bit. */
	assert_int_equal(parse("corrupt random 1"), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(impair_corrupt_apply(im, &act, buf, 5), 1);
	unsigned ones = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		ones += (unsigned)__builtin_popcount(buf[i]);
	assert_int_equal(ones, 1);
	impair_close(im);
	unlink(path);
}

static void test_write_refuses(void **state)
{
	char buf[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	impair_action_pass(&act);
	act.drop = true;
	act.delay_ns = 1;
	assert_int_equal(impair_write(f, IMPAIR_FMT_TEXT, &act), -EINVAL);
	impair_action_pass(&act);
	act.delay_ns = IMPAIR_DELAY_MAX + 1;
	assert_int_equal(impair_write(f, IMPAIR_FMT_BIN, &act), -EINVAL);
	fclose(f);
}

/*
 * A trace that is a FIFO with no writer: refused at once, naming it (open()
 * used to wait for a writer forever).  A device: refused the same way.
 */
static void test_fifo_refused(void **state)
{
	char fifo[64] = "/tmp/test_impair.fifo.XXXXXX";
	struct impair_cfg cfg = { .repeat = 1 };
	struct impair_reader *r;
	struct impair *im;

	(void)state;
	assert_non_null(mkdtemp(fifo));
	strcat(fifo, "/f");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(impair_reader_open(&r, fifo), -EINVAL);
	assert_non_null(strstr(impair_reader_strerror(r), "/f: not a regular file"));
	impair_reader_close(r);
	cfg.path = fifo;
	impair_action_pass(&cfg.dflt);
	assert_int_equal(impair_open(&im, &cfg, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/f: not a regular file"));
	cfg.path = "/dev/zero";
	assert_int_equal(impair_open(&im, &cfg, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/dev/zero: not a regular file"));
	assert_int_equal(unlink(fifo), 0);
	*strrchr(fifo, '/') = '\0';
	assert_int_equal(rmdir(fifo), 0);
}

/*
 * The check of a long trace at open stops once the stop flag is set, within
 * a read of it: the reader fails with -EINTR naming the offset, and
 * impair_open() leaves the check unfinished and returns 1, for a run that is
 * to stop -- so a bad action at the end of 16 MiB of "pass" words is not
 * reached, where without the flag it fails the open.  A text trace of
 * comments only, its check cut short, is found empty when the run reads
 * it: the default action, not an endless search for one.
 */
static void test_open_stops(void **state)
{
	static const uint8_t bad[4] = { 0, 0, 0, 0x40 }; /* reserved bits set */
	static const char hdr[IMPAIR_HDR_LEN] = "RPIM\1\0\4";
	struct impair_cfg cfg = { .repeat = 0 };
	volatile sig_atomic_t stop = 1;
	struct impair_reader *r;
	struct impair *im;
	uint64_t n = 0;
	size_t len = 8 << 20;
	char *text;
	int fd, rc;

	(void)state;
	put_file(hdr, sizeof(hdr));
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bad, 4, IMPAIR_HDR_LEN + (16 << 20)), 4);
	close(fd);
	assert_int_equal(impair_reader_open(&r, path), 0);
	impair_reader_set_stop(r, &stop);
	while ((rc = impair_reader_next(r, &act)) == 1)
		n++;
	assert_int_equal(rc, -EINTR);
	assert_true(n < (16 << 20) / 4);
	assert_non_null(strstr(impair_reader_strerror(r), "interrupted while it was read, at offset 0x"));
	impair_reader_close(r);
	impair_action_pass(&cfg.dflt);
	cfg.dflt.drop = true;
	cfg.path = path;
	cfg.stop = &stop;
	if ((rc = impair_open(&im, &cfg, 1, err, sizeof(err))) != 1)
		fail_msg("impair_open with the stop flag set: %d: %s", rc, err);
	assert_int_equal(impair_next(im, NULL, 0, &act), 1);
	assert_int_equal(act.src, IMPAIR_SRC_TRACE);
	impair_close(im);
	stop = 0;
	assert_int_equal(impair_open(&im, &cfg, 1, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "reserved bits 30..31 set"));
	unlink(path);

	text = malloc(len);
	assert_non_null(text);
	for (size_t i = 0; i < len; i += 2)
		memcpy(text + i, "#\n", 2);
	put_file(text, len);
	free(text);
	for (stop = 1; stop >= 0; stop--) {
		if ((rc = impair_open(&im, &cfg, 1, err, sizeof(err))) != stop)
			fail_msg("impair_open, stop flag %d: %d: %s", (int)stop, rc, err);
		assert_int_equal(impair_next(im, NULL, 0, &act), 1);
		assert_int_equal(act.src, IMPAIR_SRC_DEFAULT);
		assert_true(act.drop);
		impair_close(im);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_actions),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_reader_text_errors),
		cmocka_unit_test(test_round_trip_bin),
		cmocka_unit_test(test_round_trip_text),
		cmocka_unit_test(test_bin_layout),
		cmocka_unit_test(test_bin_errors),
		cmocka_unit_test(test_repeat_default),
		cmocka_unit_test(test_open_refusals),
		cmocka_unit_test(test_flows),
		cmocka_unit_test(test_corrupt_bounds),
		cmocka_unit_test(test_write_refuses),
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_open_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
