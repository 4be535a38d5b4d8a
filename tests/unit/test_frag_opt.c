// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fragroute's option and chaff modules (replay/frag.h).  ip_opt, tcp_opt
 * and ip6_opt: the option's bytes where fragroute puts them (after the
 * header's own, NOPs before them to a 4-byte boundary), the lengths, the
 * checksums; a header with no room left alone; frames dup made share
 * their bytes, yet each gets one option.  ip_chaff and tcp_chaff: which
 * frame is the chaff, that it is the invalid kind its rule says, that the
 * real packet is unchanged and in its place, and that a seed repeats the
 * chaff's random bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay/frag.h"
#include "replay/pkt.h"

static struct frag_rules rules;
static uint8_t work[1u << 20];
static struct frag_out out = { .buf = work, .cap = sizeof(work) };
static uint8_t frame[2048];
/* The real packet as the rules see it (checksums made right) and its length. */
static uint8_t ref[2048];
static uint32_t ref_len;

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

static const uint8_t *fr(unsigned i)
{
	return work + out.off[i];
}

/* Ethernet + IPv4 + TCP (ACK|PSH) with @pay payload bytes; its length. */
static uint32_t tcp4(uint32_t pay)
{
	uint8_t *ip = frame + 14, *th = ip + 20;

	memset(frame, 0, sizeof(frame));
	put_be16(frame + 12, 0x0800);
	ip[0] = 0x45;
	put_be16(ip + 2, 40 + pay);
	put_be16(ip + 4, 0x1234);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	put_be16(th, 1234);
	put_be16(th + 2, 80);
	th[4] = 0x10;
	th[11] = 0x07;
	th[12] = 5 << 4;
	th[13] = 0x18;
	put_be16(th + 14, 8192);
	for (uint32_t i = 0; i < pay; i++)
		th[20 + i] = (uint8_t)(i + 1);
	return 14 + 40 + pay;
}

/* Ethernet + IPv6 + @nh (UDP or TCP) header and @pay payload bytes; its length. */
static uint32_t ip6(uint8_t nh, uint32_t pay)
{
	uint8_t *ip = frame + 14, *l4 = ip + 40;
	uint32_t hl = nh == 6 ? 20 : 8;

	memset(frame, 0, sizeof(frame));
	put_be16(frame + 12, 0x86dd);
	ip[0] = 0x60;
	put_be16(ip + 4, hl + pay);
	ip[6] = nh;
	ip[7] = 64;
	ip[8] = 0x20, ip[23] = 1;
	ip[24] = 0x20, ip[39] = 2;
	put_be16(l4, 1000);
	put_be16(l4 + 2, 53);
	if (nh == 6) {
		l4[12] = 5 << 4;
		l4[13] = 0x10;
	} else {
		put_be16(l4 + 4, 8 + pay);
	}
	for (uint32_t i = 0; i < pay; i++)
		l4[hl + i] = (uint8_t)(i * 7);
	return 14 + 40 + hl + pay;
}

static void rules_are(const char *text)
{
	char err[512];

	if (frag_parse(text, strlen(text), "rules.txt", &rules, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(frag_rules_applied(&rules, err, sizeof(err)), 0);
}

static int apply(const char *text, uint32_t len, uint64_t seed)
{
	uint64_t s = seed;

	rules_are(text);
	return frag_apply(&rules, frame, len, &s, &out);
}

/* ref: the frame as the rules take it (checksums right), through a rule that changes nothing. */
static void take_ref(uint32_t len)
{
	assert_int_equal(apply("ip_tos 0\n", len, 1), 1);
	ref_len = out.len[0];
	memcpy(ref, fr(0), ref_len);
}

/* Whether the TCP, UDP or ICMP checksum of the IPv4 (@v6 false) or IPv6 packet in frame @f is right. */
static bool l4_ok(const uint8_t *f, bool v6)
{
	const uint8_t *ip = f + 14;
	uint32_t hl = v6 ? 40 : (ip[0] & 15u) * 4, len = v6 ? get_be16(ip + 4) : get_be16(ip + 2) - hl;
	uint8_t proto = ip[v6 ? 6 : 9];
	uint32_t ph = proto == 1 ? 0 : v6 ? sum(ip + 8, 32, 0) + proto + len : sum(ip + 12, 8, 0) + proto + len;

	return fold(sum(ip + hl, len, ph)) == 0xffff;
}

static bool ip4_ok(const uint8_t *f)
{
	return fold(sum(f + 14, (f[14] & 15u) * 4, 0)) == 0xffff;
}

static void test_ip_opt(void **state)
{
	uint32_t len = tcp4(10);
	const uint8_t *ip;

	(void)state;
	take_ref(len);
	/* 11 bytes of LSRR after one NOP: a 32-byte header. */
	assert_int_equal(apply("ip_opt lsrr 4 10.9.9.1 10.9.9.2\n", len, 1), 1);
	ip = fr(0) + 14;
	assert_int_equal(out.len[0], len + 12);
	assert_int_equal(ip[0], 0x48);
	assert_int_equal(get_be16(ip + 2), 32 + 30);
	assert_memory_equal(ip + 20, "\x01\x83\x0b\x04\x0a\x09\x09\x01\x0a\x09\x09\x02", 12);
	assert_memory_equal(ip + 32, ref + 34, 30);
	assert_true(ip4_ok(fr(0)));
	/* The TCP checksum over the header's destination, as fragroute's. */
	assert_true(l4_ok(fr(0), false));
	assert_int_equal(apply("ip_opt ssrr 8 10.9.9.1\n", len, 1), 1);
	assert_memory_equal(fr(0) + 34, "\x01\x89\x07\x08\x0a\x09\x09\x01", 8);
	assert_int_equal(apply("ip_opt raw 94 4 00 00\n", len, 1), 1);
	assert_int_equal(fr(0)[14], 0x46);
	assert_memory_equal(fr(0) + 34, "\x94\x04\x00\x00", 4);
	assert_true(ip4_ok(fr(0)));
	/* 40 bytes of option fill the header: a second finds no room and leaves the packet as it was. */
	{
		char text[256] = "ip_opt raw 44 28";

		for (int i = 0; i < 38; i++)
			strcat(text, " 00");
		strcat(text, "\nip_opt raw 94 4 00 00\n");
		assert_int_equal(apply(text, len, 1), 1);
	}
	assert_int_equal(fr(0)[14], 0x4f);
	assert_int_equal(fr(0)[34], 0x44);
	assert_int_equal(out.len[0], len + 40);
	/* Not IPv4: as it was. */
	len = ip6(17, 20);
	take_ref(len);
	assert_int_equal(apply("ip_opt raw 94 4 00 00\n", len, 1), 1);
	assert_int_equal(out.len[0], ref_len);
	assert_memory_equal(fr(0), ref, ref_len);
}

static void test_tcp_opt(void **state)
{
	uint32_t len = tcp4(10);
	const uint8_t *th;

	(void)state;
	take_ref(len);
	assert_int_equal(apply("tcp_opt mss 1400\n", len, 1), 1);
	th = fr(0) + 34;
	assert_int_equal(out.len[0], len + 4);
	assert_int_equal(th[12], 6 << 4);
	assert_memory_equal(th + 20, "\x02\x04\x05\x78", 4);
	assert_memory_equal(th + 24, ref + 54, 10);
	assert_int_equal(get_be16(fr(0) + 16), 20 + 24 + 10);
	assert_true(ip4_ok(fr(0)));
	assert_true(l4_ok(fr(0), false));
	/* wscale as RFC 7323 spells it: 3 bytes, one NOP before. */
	assert_int_equal(apply("tcp_opt wscale 7\n", len, 1), 1);
	assert_memory_equal(fr(0) + 54, "\x01\x03\x03\x07", 4);
	assert_int_equal(apply("tcp_opt raw 22 3 05\ntcp_opt mss 536\n", len, 1), 1);
	assert_int_equal(fr(0)[34 + 12], 7 << 4);
	assert_memory_equal(fr(0) + 54, "\x01\x22\x03\x05\x02\x04\x02\x18", 8);
	assert_true(l4_ok(fr(0), false));
	/* IPv6: after the TCP header, the payload length grown. */
	len = ip6(6, 12);
	assert_int_equal(apply("tcp_opt mss 1220\n", len, 1), 1);
	assert_int_equal(get_be16(fr(0) + 18), 20 + 4 + 12);
	assert_memory_equal(fr(0) + 74, "\x02\x04\x04\xc4", 4);
	assert_true(l4_ok(fr(0), true));
	/* Not TCP: as it was (fragroute writes TCP options into a UDP header). */
	len = ip6(17, 12);
	take_ref(len);
	assert_int_equal(apply("tcp_opt mss 1220\n", len, 1), 1);
	assert_int_equal(out.len[0], ref_len);
	assert_memory_equal(fr(0), ref, ref_len);
}

static void test_ip6_opt(void **state)
{
	uint32_t len = ip6(17, 20);
	const uint8_t *ip;

	(void)state;
	take_ref(len);
	assert_int_equal(apply("ip6_opt route 2 2001:db8::a 2001:db8::b\n", len, 1), 1);
	ip = fr(0) + 14;
	assert_int_equal(out.len[0], len + 40);
	assert_int_equal(ip[6], 43);
	assert_int_equal(get_be16(ip + 4), 28 + 40);
	assert_memory_equal(ip + 40, "\x11\x04\x00\x02\x00\x00\x00\x00\x20\x01\x0d\xb8", 12);
	assert_int_equal(ip[40 + 8 + 15], 0x0a);
	assert_int_equal(ip[40 + 24 + 15], 0x0b);
	/* The UDP header and payload follow, their checksum as it was (fragroute's). */
	assert_memory_equal(ip + 80, ref + 54, 28);
	assert_int_equal(apply("ip6_opt raw 3c 01 04 00 00 00 00\n", len, 1), 1);
	ip = fr(0) + 14;
	assert_int_equal(ip[6], 0x3c);
	assert_int_equal(get_be16(ip + 4), 28 + 8);
	assert_memory_equal(ip + 40, "\x11\x00\x01\x04\x00\x00\x00\x00", 8);
	assert_memory_equal(ip + 48, ref + 54, 28);
	/* Not IPv6: as it was. */
	len = tcp4(10);
	take_ref(len);
	assert_int_equal(apply("ip6_opt raw 3c 01 04 00 00 00 00\n", len, 1), 1);
	assert_memory_equal(fr(0), ref, ref_len);
}

/* dup's two frames share their bytes: each still gets the option once. */
static void test_opt_after_dup(void **state)
{
	uint32_t len = tcp4(10);

	(void)state;
	assert_int_equal(apply("dup first 100\nip_opt raw 94 4 00 00\ntcp_opt mss 1400\n", len, 1), 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(out.len[i], len + 8);
		assert_int_equal(fr(i)[14], 0x46);
		assert_int_equal(fr(i)[38 + 12], 6 << 4);
	}
}

/*
 * The real frame (equal to ref) and the chaff among two frames: the chaff's
 * index; it goes first when its byte at @order_at is even.
 */
static unsigned chaff_of_two(uint32_t order_at)
{
	bool r0 = out.len[0] == ref_len && !memcmp(fr(0), ref, ref_len);
	bool r1 = out.len[1] == ref_len && !memcmp(fr(1), ref, ref_len);
	unsigned chaff = r0 ? 1 : 0;

	/* Exactly one is the real packet, unchanged. */
	assert_true(r0 != r1);
	assert_int_equal(chaff == 0, !(fr(chaff)[order_at] & 1));
	return chaff;
}

static void test_ip_chaff(void **state)
{
	uint32_t len = tcp4(100);
	const uint8_t *c;
	uint8_t first[2048];
	unsigned k;

	(void)state;
	take_ref(len);
	assert_int_equal(apply("ip_chaff dup\n", len, 3), 2);
	k = chaff_of_two(34);
	c = fr(k);
	/* The IP header as it was; the transport bytes random, their checksum wrong. */
	assert_int_equal(out.len[k], ref_len);
	assert_memory_equal(c, ref, 34);
	assert_memory_not_equal(c + 34, ref + 34, 20);
	assert_false(l4_ok(c, false));
	memcpy(first, c, out.len[k]);
	/* The same seed: the same chaff; another: other bytes. */
	assert_int_equal(apply("ip_chaff dup\n", len, 3), 2);
	assert_memory_equal(fr(chaff_of_two(34)), first, ref_len);
	assert_int_equal(apply("ip_chaff dup\n", len, 4), 2);
	assert_memory_not_equal(fr(chaff_of_two(34)) + 34, first + 34, 20);
	/* opt: 4 more bytes of IPv4 option. */
	assert_int_equal(apply("ip_chaff opt\n", len, 3), 2);
	k = chaff_of_two(38);
	c = fr(k);
	assert_int_equal(out.len[k], ref_len + 4);
	assert_int_equal(c[14], 0x46);
	assert_int_equal(get_be16(c + 16), get_be16(ref + 16) + 4);
	assert_true(ip4_ok(c));
	assert_false(l4_ok(c, false));
	/* A TTL: the chaff's, its header checksum right. */
	assert_int_equal(apply("ip_chaff 3\n", len, 3), 2);
	c = fr(chaff_of_two(34));
	assert_int_equal(c[22], 3);
	assert_true(ip4_ok(c));
	assert_false(l4_ok(c, false));
	/* IPv6: the chaff's hop limit (fragroute sets the real packet's). */
	len = ip6(17, 40);
	take_ref(len);
	assert_int_equal(apply("ip_chaff 2\n", len, 9), 2);
	c = fr(chaff_of_two(54));
	assert_int_equal(c[21], 2);
	assert_false(l4_ok(c, true));
	/* opt over IPv6: no chaff, as fragroute. */
	assert_int_equal(apply("ip_chaff opt\n", len, 9), 1);
	/* Fragments carry no transport header: none gets chaff. */
	len = tcp4(100);
	assert_int_equal(apply("ip_frag 24\nip_chaff dup\n", len, 1), 5);
}

/* The chaff of tcp_chaff @kind over tcp4(100), seed @seed: checked as the real packet's neighbour. */
static const uint8_t *tcp_chaff(const char *kind, uint64_t seed, uint32_t want_len)
{
	char text[64];
	unsigned k;

	snprintf(text, sizeof(text), "tcp_chaff %s\n", kind);
	assert_int_equal(apply(text, ref_len, seed), 2);
	k = chaff_of_two(50);
	assert_int_equal(out.len[k], want_len);
	assert_true(ip4_ok(fr(k)));
	return fr(k);
}

static void test_tcp_chaff(void **state)
{
	const uint8_t *c;

	(void)state;
	take_ref(tcp4(100));
	c = tcp_chaff("cksum", 1, ref_len);
	assert_memory_equal(c + 34, ref + 34, 16);
	assert_memory_not_equal(c + 54, ref + 54, 100);
	assert_false(l4_ok(c, false));
	c = tcp_chaff("null", 1, ref_len);
	assert_int_equal(c[47], 0);
	assert_true(l4_ok(c, false));
	/* paws: its options gone, NOP, NOP and a timestamp of 0, 0 in their place. */
	c = tcp_chaff("paws", 1, ref_len + 12);
	assert_int_equal(c[46], 8 << 4);
	assert_memory_equal(c + 54, "\x01\x01\x08\x0a\0\0\0\0\0\0\0\0", 12);
	assert_int_equal(get_be16(c + 16), get_be16(ref + 16) + 12);
	assert_true(l4_ok(c, false));
	/* rexmit: the same sequence, other bytes. */
	c = tcp_chaff("rexmit", 1, ref_len);
	assert_memory_equal(c + 34, ref + 34, 16);
	assert_memory_not_equal(c + 54, ref + 54, 100);
	assert_true(l4_ok(c, false));
	c = tcp_chaff("seq", 1, ref_len);
	assert_int_equal(get_be32(c + 38), 666);
	assert_int_equal(get_be32(c + 42), 666);
	assert_true(l4_ok(c, false));
	/* syn: SYN alone, no payload, no acknowledgment. */
	c = tcp_chaff("syn", 1, 54);
	assert_int_equal(c[47], 0x02);
	assert_int_equal(get_be32(c + 42), 0);
	assert_int_equal(get_be16(c + 16), 40);
	assert_true(l4_ok(c, false));
	c = tcp_chaff("5", 1, ref_len);
	assert_int_equal(c[22], 5);
	assert_true(l4_ok(c, false));
	/* No payload, or no ACK: no chaff. */
	assert_int_equal(apply("tcp_chaff rexmit\n", tcp4(0), 1), 1);
	tcp4(10);
	frame[47] = 0x02;
	assert_int_equal(apply("tcp_chaff rexmit\n", 64, 1), 1);
	/* IPv6: the hop limit and the payload length. */
	take_ref(ip6(6, 30));
	assert_int_equal(apply("tcp_chaff syn\n", ref_len, 2), 2);
	c = fr(chaff_of_two(70));
	assert_int_equal(get_be16(c + 18), 20);
	assert_true(l4_ok(c, true));
}

/*
 * Over many seeds the chaff's random checksum is sometimes the right one
 * (1 in 65536), or 0 (no UDP checksum): it is never left so.
 */
static void test_chaff_always_invalid(void **state)
{
	static const struct {
		const char *rules;
		bool v6;
		uint32_t order_at;
	} kinds[] = {
		{ "tcp_chaff cksum\n", false, 50 },
		{ "ip_chaff dup\n", false, 34 },
		{ "ip_chaff dup\n", true, 54 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		take_ref(kinds[k].v6 ? ip6(17, 1) : tcp4(3));
		rules_are(kinds[k].rules);
		for (uint64_t seed = 0; seed < 300000; seed++) {
			uint64_t s = seed;

			assert_int_equal(frag_apply(&rules, frame, ref_len, &s, &out), 2);
			if (l4_ok(fr(chaff_of_two(kinds[k].order_at)), kinds[k].v6))
				fail_msg("%s seed %llu: the chaff's checksum is right", kinds[k].rules,
					 (unsigned long long)seed);
		}
	}
}

static void test_refused(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(frag_parse("ip_opt raw 1 2\n", 15, "r", &rules, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "one byte"));
	assert_int_equal(frag_parse("tcp_opt raw 0 2\n", 16, "r", &rules, err, sizeof(err)), -EINVAL);
	assert_int_equal(frag_parse("print\n", 6, "r", &rules, err, sizeof(err)), 1);
	assert_int_equal(frag_rules_applied(&rules, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "line 1: print"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip_opt),
		cmocka_unit_test(test_tcp_opt),
		cmocka_unit_test(test_ip6_opt),
		cmocka_unit_test(test_opt_after_dup),
		cmocka_unit_test(test_ip_chaff),
		cmocka_unit_test(test_tcp_chaff),
		cmocka_unit_test(test_chaff_always_invalid),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
