// SPDX-License-Identifier: BSD-2-Clause
/*
 * -e/--endpoints: its parser (IPv4 a:b, IPv6 [a]:[b], bad input), the
 * rewrite by direction (edit_chain_set_side(): side 1 client to server,
 * side 2 the reverse), ARP requests and replies by role, the other address
 * family left alone, --skipbroadcast, checksums equal to a full
 * recomputation, and the option checks that exclude the address maps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/edit.h"

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint32_t sum(const uint8_t *b, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i < n; i += 2)
		s += (uint32_t)(b[i] << 8 | (i + 1 < n ? b[i + 1] : 0));
	return s;
}

/* Ethernet + IPv4 + UDP @src -> @dst, 12 payload bytes, valid checksums; returns the length. */
static size_t udp4(uint8_t *b, const uint8_t src[4], const uint8_t dst[4])
{
	static const uint8_t hdr[] = {
		2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0, 0, 40, 0, 1, 0, 0, 64, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x03, 0xe8, 0, 53, 0, 20, 0, 0,
	};
	size_t n = sizeof(hdr) + 12;
	uint16_t c;

	memcpy(b, hdr, sizeof(hdr));
	memcpy(b + 26, src, 4);
	memcpy(b + 30, dst, 4);
	for (size_t i = sizeof(hdr); i < n; i++)
		b[i] = (uint8_t)(i * 5);
	c = (uint16_t)~fold(sum(b + 14, 20));
	b[24] = (uint8_t)(c >> 8), b[25] = (uint8_t)c;
	c = (uint16_t)~fold(sum(b + 26, 8) + 17 + 20 + sum(b + 34, 20));
	b[40] = (uint8_t)(c >> 8), b[41] = (uint8_t)c;
	return n;
}

static bool udp4_ok(const uint8_t *b)
{
	return fold(sum(b + 14, 20)) == 0xffff && fold(sum(b + 26, 8) + 17 + 20 + sum(b + 34, 20)) == 0xffff;
}

/* Ethernet + IPv6 + UDP @src -> @dst, 8 payload bytes, valid checksum. */
static size_t udp6(uint8_t *b, const uint8_t src[16], const uint8_t dst[16])
{
	static const uint8_t hdr[] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x86, 0xdd,
				       0x60, 0, 0, 0, 0, 16, 17, 64 };
	uint16_t c;

	memset(b, 0, 78);
	memcpy(b, hdr, sizeof(hdr));
	memcpy(b + 22, src, 16);
	memcpy(b + 38, dst, 16);
	b[54] = 0x10, b[55] = 0x00, b[56] = 0, b[57] = 53, b[58] = 0, b[59] = 16;
	for (int i = 62; i < 70; i++)
		b[i] = (uint8_t)i;
	c = (uint16_t)~fold(sum(b + 22, 32) + 17 + 16 + sum(b + 54, 16));
	b[60] = (uint8_t)(c >> 8), b[61] = (uint8_t)c;
	return 70;
}

static bool udp6_ok(const uint8_t *b)
{
	return fold(sum(b + 22, 32) + 17 + 16 + sum(b + 54, 16)) == 0xffff;
}

/* Ethernet + ARP (IPv4) @op, sender @spa, target @tpa. */
static size_t arp(uint8_t *b, uint8_t op, const uint8_t spa[4], const uint8_t tpa[4])
{
	static const uint8_t hdr[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06,
				       0, 1, 8, 0, 6, 4, 0, 0, 2, 0, 0, 0, 0, 1 };

	memset(b, 0, 60);
	memcpy(b, hdr, sizeof(hdr));
	b[21] = op;
	memcpy(b + 28, spa, 4);
	memcpy(b + 38, tpa, 4);
	return 60;
}

static const uint8_t A4[4] = { 192, 0, 2, 10 }, B4[4] = { 192, 0, 2, 11 };
static const uint8_t C4[4] = { 10, 1, 1, 1 }, S4[4] = { 10, 2, 2, 2 };
static const uint8_t A6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a };
static const uint8_t B6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x0b };
static const uint8_t C6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t S6[16] = { 0xfd, 0x00, [15] = 2 };

static struct edit_cfg cfg_ep(const char *arg)
{
	struct edit_cfg c = EDIT_CFG_DEFAULTS;
	char err[256];

	assert_int_equal(edit_parse_endpoints(&c.endpoints, arg, err, sizeof(err)), 0);
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), 0);
	assert_true(edit_cfg_any(&c));
	assert_true(edit_cfg_wants_side(&c));
	return c;
}

/* Run one packet through a fresh chain with side @side; the edited bytes are copied to @out. */
static int run(const struct edit_cfg *c, uint8_t *b, size_t n, int side, uint8_t *out)
{
	struct edit_chain *ch;
	struct pkt p = { .data = b, .caplen = (uint32_t)n, .wirelen = (uint32_t)n,
			 .linktype = LINKTYPE_ETHERNET, .recno = 1 };
	int rc;

	assert_int_equal(edit_chain_new(&ch, c), 0);
	edit_chain_set_side(ch, side);
	rc = edit_chain_apply(ch, &p);
	assert_int_equal(p.caplen, n);
	memcpy(out, p.data, n);
	edit_chain_free(ch);
	return rc;
}

static void test_parse(void **state)
{
	struct edit_endpoints ep;
	char err[256];
	static const char *const bad[] = {
		"", "10.0.0.1", "10.0.0.1:", ":10.0.0.1", "10.0.0.1:10.0.0.2:10.0.0.3",
		"10.0.0.0/8:10.0.0.2", "10.0.0.1:300.0.0.2", "[2001:db8::1]", "[2001:db8::1]:[::2",
		"[2001:db8::1]:::2", "[10.0.0.1]:[10.0.0.2]", "2001:db8::1:2001:db8::2",
		"[2001:db8::1/64]:[::2]", "[]:[]",
	};

	(void)state;
	assert_int_equal(edit_parse_endpoints(&ep, "10.1.1.1:10.2.2.2", err, sizeof(err)), 0);
	assert_int_equal(ep.family, 4);
	assert_memory_equal(ep.client, C4, 4);
	assert_memory_equal(ep.server, S4, 4);
	assert_int_equal(edit_parse_endpoints(&ep, "[2001:db8::1]:[fd00::2]", err, sizeof(err)), 0);
	assert_int_equal(ep.family, 6);
	assert_memory_equal(ep.client, C6, 16);
	assert_memory_equal(ep.server, S6, 16);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(edit_parse_endpoints(&ep, bad[i], err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
		assert_int_equal(ep.family, 0);
	}
	/* Bracketed IPv4 (which tcprewrite 4.6 takes and ignores): refused with the spelling that works. */
	assert_int_equal(edit_parse_endpoints(&ep, "[10.0.0.1]:[10.0.0.2]", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no brackets: 10.0.0.1:10.0.0.2"));
	assert_int_equal(ep.family, 0);
}

static void test_excludes_maps(void **state)
{
	struct edit_cfg c = EDIT_CFG_DEFAULTS;
	char err[256];

	(void)state;
	assert_int_equal(edit_parse_endpoints(&c.endpoints, "1.1.1.1:2.2.2.2", err, sizeof(err)), 0);
	assert_int_equal(edit_parse_pnat(&c.pnat, "1.0.0.0/8:2.0.0.0/8", err, sizeof(err)), 0);
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--endpoints"));
	c.pnat.n = 0;
	assert_int_equal(edit_parse_cidrmap(&c.dstipmap, "1.0.0.0/8:2.0.0.0/8", err, sizeof(err)), 0);
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
}

static void test_ipv4_by_direction(void **state)
{
	struct edit_cfg c = cfg_ep("10.1.1.1:10.2.2.2");
	uint8_t b[128], o[128];
	size_t n;

	(void)state;
	/* Side 1, client to server: source CLIENT, destination SERVER. */
	n = udp4(b, A4, B4);
	assert_int_equal(run(&c, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o + 26, C4, 4);
	assert_memory_equal(o + 30, S4, 4);
	assert_true(udp4_ok(o));
	/* Side 2: the reverse, whatever the packet's own addresses. */
	n = udp4(b, A4, B4);
	assert_int_equal(run(&c, b, n, 2, o), EDIT_KEEP);
	assert_memory_equal(o + 26, S4, 4);
	assert_memory_equal(o + 30, C4, 4);
	assert_true(udp4_ok(o));
	/* Nothing else changed. */
	assert_memory_equal(o, b, 24);
	assert_memory_equal(o + 34, b + 34, 6);
	assert_memory_equal(o + 42, b + 42, n - 42);
}

static void test_first_mode_without_side(void **state)
{
	struct edit_cfg c = cfg_ep("10.1.1.1:10.2.2.2");
	struct edit_chain *ch;
	uint8_t b[128];
	struct pkt p;
	size_t n;

	(void)state;
	/* No side given: the chain's first mode -- A first seen as a source is the client, so
	 * the reply B -> A is server to client. */
	assert_int_equal(edit_chain_new(&ch, &c), 0);
	n = udp4(b, A4, B4);
	p = (struct pkt){ .data = b, .caplen = (uint32_t)n, .wirelen = (uint32_t)n,
			  .linktype = LINKTYPE_ETHERNET, .recno = 1 };
	assert_int_equal(edit_chain_apply(ch, &p), EDIT_KEEP);
	assert_memory_equal(p.data + 26, C4, 4);
	n = udp4(b, B4, A4);
	p = (struct pkt){ .data = b, .caplen = (uint32_t)n, .wirelen = (uint32_t)n,
			  .linktype = LINKTYPE_ETHERNET, .recno = 2 };
	assert_int_equal(edit_chain_apply(ch, &p), EDIT_KEEP);
	assert_memory_equal(p.data + 26, S4, 4);
	assert_memory_equal(p.data + 30, C4, 4);
	/* A side given for one packet only holds for that packet. */
	edit_chain_set_side(ch, 2);
	n = udp4(b, A4, B4);
	p.recno = 3;
	p.data = b;
	assert_int_equal(edit_chain_apply(ch, &p), EDIT_KEEP);
	assert_memory_equal(p.data + 26, S4, 4);
	n = udp4(b, A4, B4);
	p.recno = 4;
	p.data = b;
	assert_int_equal(edit_chain_apply(ch, &p), EDIT_KEEP);
	assert_memory_equal(p.data + 26, C4, 4);
	edit_chain_free(ch);
}

static void test_ipv6_and_families(void **state)
{
	struct edit_cfg c6 = cfg_ep("[2001:db8::1]:[fd00::2]"), c4 = cfg_ep("10.1.1.1:10.2.2.2");
	uint8_t b[128], o[128];
	size_t n;

	(void)state;
	n = udp6(b, A6, B6);
	assert_true(udp6_ok(b));
	assert_int_equal(run(&c6, b, n, 2, o), EDIT_KEEP);
	assert_memory_equal(o + 22, S6, 16);
	assert_memory_equal(o + 38, C6, 16);
	assert_true(udp6_ok(o));
	/* IPv4 endpoints leave IPv6 alone, IPv6 endpoints IPv4 and ARP. */
	assert_int_equal(run(&c4, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o, b, n);
	n = udp4(b, A4, B4);
	assert_int_equal(run(&c6, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o, b, n);
	n = arp(b, 1, A4, B4);
	assert_int_equal(run(&c6, b, n, 2, o), EDIT_KEEP);
	assert_memory_equal(o, b, n);
}

static void test_arp_by_role(void **state)
{
	struct edit_cfg c = cfg_ep("10.1.1.1:10.2.2.2");
	uint8_t b[128], o[128];
	size_t n;

	(void)state;
	/* tcpprep puts ARP on side 2: a request asks "who-has SERVER tell CLIENT"... */
	n = arp(b, 1, A4, B4);
	assert_int_equal(run(&c, b, n, 2, o), EDIT_KEEP);
	assert_memory_equal(o + 28, C4, 4);
	assert_memory_equal(o + 38, S4, 4);
	/* ... and a reply says "SERVER is-at", to CLIENT. */
	n = arp(b, 2, B4, A4);
	assert_int_equal(run(&c, b, n, 2, o), EDIT_KEEP);
	assert_memory_equal(o + 28, S4, 4);
	assert_memory_equal(o + 38, C4, 4);
	/* Side 1 swaps the roles. */
	n = arp(b, 1, A4, B4);
	assert_int_equal(run(&c, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o + 28, S4, 4);
	assert_memory_equal(o + 38, C4, 4);
	/* Other opcodes (RARP 3) and short frames are left alone. */
	n = arp(b, 3, A4, B4);
	assert_int_equal(run(&c, b, n, 2, o), EDIT_KEEP);
	assert_memory_equal(o, b, n);
	n = arp(b, 1, A4, B4);
	assert_int_equal(run(&c, b, 40, 2, o), EDIT_KEEP);
	assert_memory_equal(o, b, 40);
}

static void test_skipbroadcast(void **state)
{
	struct edit_cfg c = cfg_ep("10.1.1.1:10.2.2.2");
	static const uint8_t mc[4] = { 239, 1, 2, 3 }, bc[4] = { 255, 255, 255, 255 };
	uint8_t b[128], o[128];
	size_t n;

	(void)state;
	c.skipbroadcast = true;
	n = udp4(b, A4, mc);
	assert_int_equal(run(&c, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o + 26, C4, 4);
	assert_memory_equal(o + 30, mc, 4);
	assert_true(udp4_ok(o));
	n = udp4(b, A4, bc);
	assert_int_equal(run(&c, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o + 30, bc, 4);
	/* Without it, multicast is rewritten like any address. */
	c.skipbroadcast = false;
	n = udp4(b, A4, mc);
	assert_int_equal(run(&c, b, n, 1, o), EDIT_KEEP);
	assert_memory_equal(o + 30, S4, 4);
}

static void test_truncated(void **state)
{
	struct edit_cfg c = cfg_ep("10.1.1.1:10.2.2.2");
	uint8_t b[128], o[128];
	size_t n = udp4(b, A4, B4);

	(void)state;
	/* Cut inside the IP header: nothing to rewrite, nothing read past the capture. */
	for (size_t cut = 0; cut < 34; cut++) {
		assert_int_equal(run(&c, b, cut, 1, o), EDIT_KEEP);
		assert_memory_equal(o, b, cut);
	}
	(void)n;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_excludes_maps),
		cmocka_unit_test(test_ipv4_by_direction),
		cmocka_unit_test(test_first_mode_without_side),
		cmocka_unit_test(test_ipv6_and_families),
		cmocka_unit_test(test_arp_by_role),
		cmocka_unit_test(test_skipbroadcast),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
