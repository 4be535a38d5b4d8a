// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fragroute (replay/frag.h).  The rule parser: a file of every module
 * read, comments and blank lines skipped; a negative size, an unknown
 * module and each module's bad arguments refused in one line naming the
 * file, the line and the rule; the rules replay does not apply named.
 * The modules over one frame: ip_frag over IPv4 (offsets, MF, DF cleared,
 * header checksums, the payload put back together) and IPv6 (a Fragment
 * header), with an overlap; tcp_seg (sequence numbers, checksums);
 * order, dup, drop, ip_ttl, ip_tos, ip6_qos; a frame not IP refused as
 * such; the same seed giving the same frames.
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

#include "replay/frag.h"
#include "replay/pkt.h"

static struct frag_rules rules;
static uint8_t work[1u << 20];
static struct frag_out out = { .buf = work, .cap = sizeof(work) };
static uint8_t frame[2048];

static uint32_t sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (; n > 1; p += 2, n -= 2)
		s += get_be16(p);
	if (n)
		s += (uint32_t)p[0] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static int parse(const char *text, char *err, size_t errlen)
{
	return frag_parse(text, strlen(text), "rules.txt", &rules, err, errlen);
}

/* Ethernet + IPv4 (DF set) + TCP (ACK|PSH) with @pay payload bytes 0, 1, 2, ...; its length. */
static uint32_t tcp4(uint32_t pay)
{
	uint8_t *ip = frame + 14, *th = ip + 20;

	memset(frame, 0, sizeof(frame));
	put_be16(frame + 12, 0x0800);
	ip[0] = 0x45;
	put_be16(ip + 2, 40 + pay);
	put_be16(ip + 4, 0x1234);
	put_be16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	put_be16(th, 1234);
	put_be16(th + 2, 80);
	th[4] = 0x10; /* sequence 0x10000000 */
	th[12] = 5 << 4;
	th[13] = 0x18;
	for (uint32_t i = 0; i < pay; i++)
		th[20 + i] = (uint8_t)i;
	return 14 + 40 + pay;
}

/* Ethernet + IPv6 + UDP with @pay payload bytes; its length. */
static uint32_t udp6(uint32_t pay)
{
	uint8_t *ip = frame + 14, *uh = ip + 40;

	memset(frame, 0, sizeof(frame));
	put_be16(frame + 12, 0x86dd);
	ip[0] = 0x60;
	put_be16(ip + 4, 8 + pay);
	ip[6] = 17;
	ip[7] = 64;
	ip[8] = 0x20, ip[23] = 1;
	ip[24] = 0x20, ip[39] = 2;
	put_be16(uh + 4, 8 + pay);
	for (uint32_t i = 0; i < pay; i++)
		uh[8 + i] = (uint8_t)(i * 7);
	return 14 + 40 + 8 + pay;
}

static void apply_ok(const char *text, uint32_t len, uint64_t seed, int want)
{
	char err[512];
	uint64_t s = seed;

	assert_true(parse(text, err, sizeof(err)) >= 0);
	assert_int_equal(frag_apply(&rules, frame, len, &s, &out), want);
}

static const uint8_t *fr(unsigned i)
{
	return work + out.off[i];
}

static void test_parse_valid(void **state)
{
	static const char text[] =
		"# every module\n\nip_frag 24\nip_frag 16 old\ntcp_seg 8 new\n"
		"order reverse\norder random\ndup first 50\ndrop last 10\ndelay random 5\n"
		"ip_ttl 9\nip_tos 0x10\nip6_qos 2e 12345\necho hello   world\nprint\n"
		"ip_chaff dup\ntcp_chaff paws\nip_opt lsrr 4 10.0.0.1 10.0.0.2\n"
		"ip_opt raw 44 4 01 02\ntcp_opt mss 536\ntcp_opt raw 1e 4 00 00\n"
		"IP6_OPT route 1 2001:db8::1\r\n   \n  # indented\n"
		"ip6_opt raw 3a 00 00 00 00 00 00";
	char err[512] = "";

	(void)state;
	assert_int_equal(parse(text, err, sizeof(err)), 21);
	assert_int_equal(rules.r[0].mod, FRAG_IP_FRAG);
	assert_int_equal(rules.r[0].n, 24);
	assert_int_equal(rules.r[0].line, 3);
	assert_int_equal(rules.r[1].kind, FRAG_OVERLAP_OLD);
	assert_int_equal(rules.r[2].mod, FRAG_TCP_SEG);
	assert_int_equal(rules.r[2].kind, FRAG_OVERLAP_NEW);
	assert_int_equal(rules.r[5].mod, FRAG_DUP);
	assert_int_equal(rules.r[5].n, 50);
	assert_int_equal(rules.r[9].n, 0x10);
	assert_int_equal(rules.r[10].n2, 0x12345);
	assert_string_equal(rules.r[11].text, "hello world");
	assert_int_equal(rules.r[15].len, 8);
	assert_memory_equal(rules.r[16].data, "\x44\x04\x01\x02", 4);
	assert_int_equal(rules.r[19].mod, FRAG_IP6_OPT);
	assert_int_equal(rules.r[19].len, 16);
	assert_int_equal(rules.r[20].line, 25);
	assert_int_equal(parse("", err, sizeof(err)), 0);
	assert_int_equal(parse("# nothing\n\n", err, sizeof(err)), 0);
}

/* tcpreplay's fragroute_negsize and fragroute_badrules, and each module's bad arguments. */
static void test_parse_refused(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "ip_frag -8\n", "rules.txt: line 1: 'ip_frag -8': the fragment size" },
		{ "tcp_seg -1\n", "rules.txt: line 1: 'tcp_seg -1': the segment size" },
		{ "ip_frag 24\nfragment 8\n", "rules.txt: line 2: 'fragment 8': unknown module" },
		{ "ip_frag 7", "multiple of 8" },
		{ "ip_frag 8x", "multiple of 8" },
		{ "ip_frag 8 sideways", "the overlap" },
		{ "ip_frag", "takes a fragment size" },
		{ "tcp_seg 0", "the segment size" },
		{ "dup first 0", "probability" },
		{ "dup first 101", "probability" },
		{ "drop middle 5", "first, last or random" },
		{ "drop first", "takes first" },
		{ "delay first 0", "milliseconds" },
		{ "ip_ttl 0", "TTL" },
		{ "ip_ttl 256", "TTL" },
		{ "ip_tos 256", "TOS" },
		{ "order sideways", "random or reverse" },
		{ "print now", "no arguments" },
		{ "echo", "text" },
		{ "ip_chaff 256", "TTL from 0 to 255" },
		{ "tcp_chaff 0", "TTL from 1 to 255" },
		{ "ip_opt raw 44 5 01 02", "length" },
		{ "ip_opt lsrr 3 10.0.0.1", "pointer" },
		{ "ip_opt ssrr 4 10.0.0.256", "IPv4 addresses" },
		{ "tcp_opt mss 0", "MSS" },
		{ "tcp_opt wscale 1 2", "one value" },
		{ "ip6_opt route 2 2001:db8::1", "segment count" },
		{ "ip6_opt route 1 10.0.0.1", "IPv6 addresses" },
		{ "ip6_opt raw 3a 00", "8-byte units" },
		{ "ip6_qos 100 0", "traffic class" },
		{ "ip6_qos 0 100000", "flow label" },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(bad[i].text, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].want) || strncmp(err, "rules.txt: line ", 16) ||
		    strchr(err, '\n'))
			fail_msg("'%s': %s", bad[i].text, err);
	}
}

static void test_parse_limits(void **state)
{
	char *text = malloc(65 * 8 + 1), err[512];
	size_t at = 0;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 65; i++)
		at += (size_t)sprintf(text + at, "print\n");
	assert_int_equal(parse(text, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 65"));
	text[64 * 6] = '\0';
	assert_int_equal(parse(text, err, sizeof(err)), 64);
	free(text);
	assert_true(frag_load("/nonexistent/rules.txt", &rules, err, sizeof(err)) == -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/rules.txt"));
}

static void test_load(void **state)
{
	char path[] = "/tmp/test_frag_XXXXXX", err[512];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ip_frag 24\nip_ttl 3\n", 20), 20);
	close(fd);
	assert_int_equal(frag_load(path, &rules, err, sizeof(err)), 2);
	assert_int_equal(frag_rules_applied(&rules, err, sizeof(err)), 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ip_ttl 3\necho hi\n", 17), 17);
	close(fd);
	assert_int_equal(frag_load(path, &rules, err, sizeof(err)), 2);
	assert_int_equal(frag_rules_applied(&rules, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "line 2: echo"));
	unlink(path);
}

/* Each IPv4 fragment's header checksum, and the payload put back together. */
static void check_frags4(unsigned n, uint32_t pay_len, const uint8_t *orig_l4)
{
	uint8_t whole[2048];
	uint32_t have = 0;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *ip = fr(i) + 14;
		uint32_t off = (get_be16(ip + 6) & 0x1fff) * 8u, len = get_be16(ip + 2) - 20u;

		assert_int_equal(out.len[i], 14 + 20 + len);
		assert_int_equal(fold(sum(ip, 20, 0)), 0xffff);
		assert_int_equal(get_be16(ip + 4), 0x1234);
		assert_int_equal(get_be16(ip + 6) & 0x4000, 0); /* DF cleared */
		assert_int_equal(!!(get_be16(ip + 6) & 0x2000), i + 1 < n);
		assert_int_equal(off, have);
		memcpy(whole + off, ip + 20, len);
		have += len;
	}
	assert_int_equal(have, pay_len);
	assert_memory_equal(whole + 20, orig_l4 + 20, pay_len - 20);
}

static void test_ip_frag4(void **state)
{
	uint32_t len = tcp4(100);
	uint8_t l4[120];

	(void)state;
	memcpy(l4, frame + 34, sizeof(l4));
	/* The first fragment holds the TCP header whole: 24 bytes, then 8 each: 1 + 12. */
	apply_ok("ip_frag 8\n", len, 1, 13);
	assert_int_equal(out.len[0], 14 + 20 + 24);
	check_frags4(13, 120, l4);
	/* The TCP checksum the first fragment carries is the whole segment's. */
	{
		uint8_t seg[120];
		const uint8_t *ip = frame + 14;
		uint32_t s;

		memcpy(seg, l4, 120);
		for (unsigned i = 0; i < 13; i++) {
			const uint8_t *fip = fr(i) + 14;

			memcpy(seg + (get_be16(fip + 6) & 0x1fff) * 8u, fip + 20, get_be16(fip + 2) - 20u);
		}
		s = sum(ip + 12, 8, 0) + 6 + 120;
		assert_int_equal(fold(sum(seg, 120, s)), 0xffff);
	}
	apply_ok("ip_frag 64\n", len, 1, 2);
	check_frags4(2, 120, l4);
	/* A payload shorter than one fragment is left whole. */
	apply_ok("ip_frag 128\n", len, 1, 1);
	assert_int_equal(out.len[0], len);
	assert_int_equal(get_be16(fr(0) + 14 + 6), 0x4000);
}

static void test_ip_frag_overlap(void **state)
{
	uint32_t len = tcp4(100);

	(void)state;
	/*
	 * 24 at 0, then each piece at an odd offset (24/8 = 3, 40/8 = 5, ...)
	 * with two more after it twice over: 8 at 32, then 16 at 24; five
	 * such, then 8 at 104 and 8 at 112: 13 frames.
	 */
	apply_ok("ip_frag 8 new\n", len, 1, 13);
	{
		const uint8_t *a = fr(1) + 14, *b = fr(2) + 14;

		assert_int_equal((get_be16(a + 6) & 0x1fff) * 8, 32);
		assert_int_equal(get_be16(a + 2), 28);
		assert_int_equal((get_be16(b + 6) & 0x1fff) * 8, 24);
		assert_int_equal(get_be16(b + 2), 36);
		/* new: the later fragment carries the true bytes of both pieces. */
		assert_memory_equal(b + 20, frame + 34 + 24, 16);
	}
	apply_ok("ip_frag 8 old\n", len, 1, 13);
	{
		const uint8_t *a = fr(1) + 14, *b = fr(2) + 14;

		/* old: the first sent carries the true bytes of the second piece. */
		assert_memory_equal(a + 20, frame + 34 + 32, 8);
		assert_memory_equal(b + 20, frame + 34 + 24, 8);
	}
}

static void test_ip_frag6(void **state)
{
	uint32_t len = udp6(100), have = 0;
	uint8_t whole[108];
	uint32_t id;

	(void)state;
	apply_ok("ip_frag 32\n", len, 5, 4);
	id = get_be32(fr(0) + 14 + 40 + 4);
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *ip = fr(i) + 14, *fh = ip + 40;
		uint32_t n = get_be16(ip + 4) - 8u;

		assert_int_equal(ip[6], 44);
		assert_int_equal(fh[0], 17);
		assert_int_equal(get_be16(fh + 2) & ~7u, have);
		assert_int_equal(get_be16(fh + 2) & 1, i < 3);
		assert_int_equal(get_be32(fh + 4), id);
		assert_int_equal(out.len[i], 14 + 48 + n);
		memcpy(whole + have, fh + 8, n);
		have += n;
	}
	assert_int_equal(have, 108);
	assert_memory_equal(whole + 8, frame + 14 + 48, 100);
}

static void test_tcp_seg(void **state)
{
	uint32_t len = tcp4(100), seq = 0x10000000;

	(void)state;
	apply_ok("tcp_seg 30\n", len, 1, 4);
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *ip = fr(i) + 14, *th = ip + 20;
		uint32_t n = get_be16(ip + 2) - 40u;

		assert_int_equal(n, i < 3 ? 30 : 10);
		assert_int_equal(get_be32(th + 4), seq);
		assert_int_equal(fold(sum(ip, 20, 0)), 0xffff);
		assert_int_equal(fold(sum(th, 20 + n, sum(ip + 12, 8, 0) + 6 + 20 + n)), 0xffff);
		assert_memory_equal(th + 20, frame + 54 + (seq - 0x10000000), n);
		seq += n;
	}
	/* Not ACK: left whole. */
	frame[14 + 20 + 13] = 0x02;
	apply_ok("tcp_seg 30\n", len, 1, 1);
	/*
	 * With an overlap: the segment ahead first (random bytes), then one over
	 * both (the true bytes, new); at 0, 20, 40 and 60, then 80 and 90 alone.
	 */
	tcp4(100);
	apply_ok("tcp_seg 10 new\n", len, 1, 10);
	assert_int_equal(get_be32(fr(0) + 38), 0x10000000 + 10);
	assert_int_equal(get_be16(fr(0) + 16) - 40, 10);
	assert_int_equal(get_be32(fr(1) + 38), 0x10000000);
	assert_int_equal(get_be16(fr(1) + 16) - 40, 20);
	assert_memory_equal(fr(1) + 54, frame + 54, 20);
	assert_int_equal(get_be32(fr(2) + 38), 0x10000000 + 30);
	assert_int_equal(get_be32(fr(3) + 38), 0x10000000 + 20);
	assert_int_equal(get_be32(fr(9) + 38), 0x10000000 + 90);
}

static void test_queue_rules(void **state)
{
	uint32_t len = tcp4(100);
	uint32_t first;

	(void)state;
	apply_ok("ip_frag 64\norder reverse\n", len, 1, 2);
	assert_int_equal(get_be16(fr(0) + 20) & 0x1fff, 64 / 8);
	assert_int_equal(get_be16(fr(1) + 20) & 0x1fff, 0);
	apply_ok("ip_frag 64\ndup first 100\n", len, 1, 3);
	assert_int_equal(out.len[0], out.len[1]);
	assert_memory_equal(fr(0), fr(1), out.len[0]);
	apply_ok("ip_frag 64\ndrop last 100\n", len, 1, 1);
	assert_int_equal(get_be16(fr(0) + 20) & 0x1fff, 0);
	apply_ok("drop first 100\n", len, 1, 0);
	apply_ok("ip_ttl 9\nip_tos 0x2e\n", len, 1, 1);
	assert_int_equal(fr(0)[14 + 8], 9);
	assert_int_equal(fr(0)[14 + 1], 0x2e);
	assert_int_equal(fold(sum(fr(0) + 14, 20, 0)), 0xffff);
	len = udp6(40);
	apply_ok("ip_ttl 9\nip6_qos 2e 12345\n", len, 1, 1);
	assert_int_equal(fr(0)[14 + 7], 9);
	assert_int_equal(get_be32(fr(0) + 14), 6u << 28 | 0x2eu << 20 | 0x12345);
	/* A probability: about half of many frames are dropped at 50%. */
	len = tcp4(10);
	first = 0;
	{
		uint64_t s = 42;
		char err[256];

		assert_int_equal(parse("drop first 50\n", err, sizeof(err)), 1);
		for (int i = 0; i < 1000; i++)
			first += frag_apply(&rules, frame, len, &s, &out) == 0;
	}
	assert_in_range(first, 400, 620);
}

static void test_seeded(void **state)
{
	uint32_t len = tcp4(200);
	uint8_t a[4096];
	uint32_t alen[64];
	int n;

	uint64_t s = 77;
	char err[256];

	(void)state;
	assert_int_equal(parse("ip_frag 16 new\norder random\n", err, sizeof(err)), 2);
	n = frag_apply(&rules, frame, len, &s, &out);
	/* 24 at 0, six pieces twice over, the last 4 bytes: 14 frames. */
	assert_int_equal(n, 14);
	for (int i = 0, at = 0; i < n; at += (int)out.len[i], i++) {
		alen[i] = out.len[i];
		memcpy(a + at, fr((unsigned)i), out.len[i]);
	}
	apply_ok("ip_frag 16 new\norder random\n", len, 77, n);
	for (int i = 0, at = 0; i < n; at += (int)out.len[i], i++) {
		assert_int_equal(out.len[i], alen[i]);
		assert_memory_equal(fr((unsigned)i), a + at, alen[i]);
	}
}

static void test_not_ip(void **state)
{
	uint64_t s = 1;
	char err[256];

	(void)state;
	memset(frame, 0, 64);
	put_be16(frame + 12, 0x0806);
	assert_int_equal(parse("ip_frag 8\n", err, sizeof(err)), 1);
	assert_int_equal(frag_apply(&rules, frame, 60, &s, &out), -EPROTONOSUPPORT);
	put_be16(frame + 12, 0x0800);
	frame[14] = 0x44;
	assert_int_equal(frag_apply(&rules, frame, 60, &s, &out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_ip_frag4),
		cmocka_unit_test(test_ip_frag_overlap),
		cmocka_unit_test(test_ip_frag6),
		cmocka_unit_test(test_tcp_seg),
		cmocka_unit_test(test_queue_rules),
		cmocka_unit_test(test_seeded),
		cmocka_unit_test(test_not_ip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
