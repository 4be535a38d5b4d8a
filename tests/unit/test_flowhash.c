// SPDX-License-Identifier: BSD-2-Clause
/*
 * The symmetric flow hash (replay/flowhash.h): both directions of every
 * kind of flow hash alike (TCP, UDP, SCTP over IPv4 and IPv6, with VLAN
 * tags and IPv6 extension headers, ICMP, fragments, non-IP by MAC pair);
 * different flows differ; flows spread evenly over 2 to 16 shards; short
 * frames are hashed without reading past their end (ASan build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/flowhash.h"

static const uint8_t MAC1[6] = { 0x02, 0, 0, 0, 0, 1 }, MAC2[6] = { 0x02, 0, 0, 0, 0, 2 };

struct ep {
	uint8_t addr[16];
	uint16_t port;
};

/* A frame from @s to @d: Ethernet (+@vlans tags), IPv@ver, protocol @proto, ports, @frag flags. */
static uint32_t build(uint8_t *f, int ver, uint8_t proto, const struct ep *s, const struct ep *d, int vlans,
		      int frag, int ext)
{
	uint32_t n = 0;

	memcpy(f, s->addr[15] & 1 ? MAC1 : MAC2, 6);
	memcpy(f + 6, s->addr[15] & 1 ? MAC2 : MAC1, 6);
	n = 12;
	for (int i = 0; i < vlans; i++) {
		f[n++] = i ? 0x81 : 0x88;
		f[n++] = i ? 0x00 : 0xa8;
		f[n++] = 0;
		f[n++] = (uint8_t)(10 + i);
	}
	f[n++] = ver == 4 ? 0x08 : 0x86;
	f[n++] = ver == 4 ? 0x00 : 0xdd;
	if (ver == 4) {
		memset(f + n, 0, 20);
		f[n] = 0x45;
		f[n + 6] = frag ? 0x20 : 0x40; /* MF, or DF */
		f[n + 8] = 64;
		f[n + 9] = proto;
		memcpy(f + n + 12, s->addr + 12, 4);
		memcpy(f + n + 16, d->addr + 12, 4);
		n += 20;
	} else {
		memset(f + n, 0, 40);
		f[n] = 0x60;
		f[n + 6] = ext ? 0 : (frag ? 44 : proto); /* hop-by-hop first if ext */
		f[n + 7] = 64;
		memcpy(f + n + 8, s->addr, 16);
		memcpy(f + n + 24, d->addr, 16);
		n += 40;
		if (ext) {
			memset(f + n, 0, 16);
			f[n] = frag ? 44 : proto;
			f[n + 1] = 1; /* 16 bytes */
			n += 16;
		}
		if (frag) {
			memset(f + n, 0, 8);
			f[n] = proto;
			f[n + 3] = 1; /* M */
			n += 8;
		}
	}
	f[n++] = (uint8_t)(s->port >> 8);
	f[n++] = (uint8_t)s->port;
	f[n++] = (uint8_t)(d->port >> 8);
	f[n++] = (uint8_t)d->port;
	memset(f + n, 0xab, 20);
	return n + 20;
}

static struct ep ep4(uint32_t a, uint16_t port)
{
	struct ep e = { .port = port };

	e.addr[12] = (uint8_t)(a >> 24);
	e.addr[13] = (uint8_t)(a >> 16);
	e.addr[14] = (uint8_t)(a >> 8);
	e.addr[15] = (uint8_t)a;
	return e;
}

static struct ep ep6(uint32_t a, uint16_t port)
{
	struct ep e = ep4(a, port);

	e.addr[0] = 0x20;
	e.addr[1] = 0x01;
	e.addr[2] = 0x0d;
	e.addr[3] = 0xb8;
	return e;
}

static uint32_t hash_dir(int ver, uint8_t proto, struct ep s, struct ep d, int vlans, int frag, int ext)
{
	uint8_t f[256];

	return flowhash(f, build(f, ver, proto, &s, &d, vlans, frag, ext));
}

static void test_symmetric(void **state)
{
	static const uint8_t protos[] = { 6, 17, 132, 1, 47 };

	(void)state;
	for (int ver = 4; ver <= 6; ver += 2)
		for (size_t p = 0; p < sizeof(protos); p++)
			for (int vlans = 0; vlans <= 2; vlans++)
				for (int frag = 0; frag <= 1; frag++)
					for (int ext = 0; ext <= (ver == 6); ext++)
						for (uint32_t i = 0; i < 200; i++) {
							struct ep a = ver == 4 ? ep4(0x0a000000 + i * 7919, (uint16_t)(1024 + i))
									       : ep6(0x0a000000 + i * 7919, (uint16_t)(1024 + i));
							struct ep b = ver == 4 ? ep4(0xc0a80001 + i, 80)
									       : ep6(0xc0a80001 + i, 80);

							assert_int_equal(hash_dir(ver, protos[p], a, b, vlans, frag, ext),
									 hash_dir(ver, protos[p], b, a, vlans, frag, ext));
						}
	/* Same address both ends, ports swapped (a host talking to itself). */
	assert_int_equal(hash_dir(4, 6, ep4(1, 1000), ep4(1, 2000), 0, 0, 0),
			 hash_dir(4, 6, ep4(1, 2000), ep4(1, 1000), 0, 0, 0));
}

static void test_flows_differ(void **state)
{
	uint32_t base;

	(void)state;
	base = hash_dir(4, 6, ep4(0x0a000001, 1234), ep4(0x0a000002, 80), 0, 0, 0);
	assert_int_not_equal(base, hash_dir(4, 6, ep4(0x0a000001, 1235), ep4(0x0a000002, 80), 0, 0, 0));
	assert_int_not_equal(base, hash_dir(4, 6, ep4(0x0a000003, 1234), ep4(0x0a000002, 80), 0, 0, 0));
	assert_int_not_equal(base, hash_dir(4, 17, ep4(0x0a000001, 1234), ep4(0x0a000002, 80), 0, 0, 0));
	assert_int_not_equal(base, hash_dir(6, 6, ep6(0x0a000001, 1234), ep6(0x0a000002, 80), 0, 0, 0));
	/* A port pair swapped between the two ends is another flow. */
	assert_int_not_equal(hash_dir(4, 6, ep4(1, 1000), ep4(2, 2000), 0, 0, 0),
			     hash_dir(4, 6, ep4(1, 2000), ep4(2, 1000), 0, 0, 0));
	/* VLAN tags do not change the flow. */
	assert_int_equal(base, hash_dir(4, 6, ep4(0x0a000001, 1234), ep4(0x0a000002, 80), 2, 0, 0));
	/* IPv6 extension headers do not change the flow. */
	assert_int_equal(hash_dir(6, 17, ep6(5, 53), ep6(6, 999), 0, 0, 0),
			 hash_dir(6, 17, ep6(5, 53), ep6(6, 999), 0, 0, 1));
	/* Fragments hash by addresses: the ports do not matter, the protocol does. */
	assert_int_equal(hash_dir(4, 17, ep4(5, 53), ep4(6, 999), 0, 1, 0),
			 hash_dir(4, 17, ep4(5, 1), ep4(6, 2), 0, 1, 0));
	assert_int_equal(hash_dir(6, 17, ep6(5, 53), ep6(6, 999), 0, 1, 1),
			 hash_dir(6, 17, ep6(5, 1), ep6(6, 2), 0, 1, 0));
	/* ICMP has no ports: the bytes after the header are not taken for them. */
	assert_int_equal(hash_dir(4, 1, ep4(5, 0x0800), ep4(6, 1), 0, 0, 0),
			 hash_dir(4, 1, ep4(5, 0), ep4(6, 7), 0, 0, 0));
}

static void test_non_ip(void **state)
{
	uint8_t f[64] = { 0 }, g[64] = { 0 };

	(void)state;
	memcpy(f, MAC1, 6);
	memcpy(f + 6, MAC2, 6);
	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	memcpy(g, MAC2, 6);
	memcpy(g + 6, MAC1, 6);
	g[12] = 0x08;
	g[13] = 0x06;
	g[20] = 0x77; /* a different payload: the same flow */
	assert_int_equal(flowhash(f, 60), flowhash(g, 60));
	g[13] = 0x35; /* another EtherType: another flow */
	assert_int_not_equal(flowhash(f, 60), flowhash(g, 60));
	/* An IPv4 EtherType with a header too short for IPv4: by MAC pair, symmetric still. */
	f[13] = g[13] = 0x00;
	assert_int_equal(flowhash(f, 20), flowhash(g, 20));
}

/*
 * Later IPv6 fragments of one datagram go together: what follows their
 * fragment header is data, even when the header's next header is an
 * extension header (destination options may be in the fragmentable part),
 * so two of them with other data hash alike.
 */
static void test_ipv6_later_fragments(void **state)
{
	struct ep a = ep6(5, 0), b = ep6(6, 0);
	uint8_t f[128], g[128];
	uint32_t n = build(f, 6, 60, &a, &b, 0, 1, 0);

	(void)state;
	/* The fragment header: next header 60, offset 185 (a later fragment). */
	f[14 + 40] = 60;
	f[14 + 40 + 2] = 0x05;
	f[14 + 40 + 3] = 0xc8;
	memset(f + 14 + 48, 0x11, 32);
	memcpy(g, f, sizeof(g));
	memset(g + 14 + 48, 0x3b, 32);
	n = 14 + 48 + 32;
	assert_int_equal(flowhash(f, n), flowhash(g, n));
	/* ...and with the ends swapped. */
	memcpy(g + 14 + 8, f + 14 + 24, 16);
	memcpy(g + 14 + 24, f + 14 + 8, 16);
	assert_int_equal(flowhash(f, n), flowhash(g, n));
}

/* Flows spread evenly: over N shards each gets its share within a few standard deviations. */
static void test_distribution(void **state)
{
	static const unsigned ns[] = { 2, 3, 4, 8, 16 };
	enum { FLOWS = 20000 };
	unsigned cnt[16];

	(void)state;
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		unsigned n = ns[k];
		double exp = (double)FLOWS / n, chi = 0;

		memset(cnt, 0, sizeof(cnt));
		for (uint32_t i = 0; i < FLOWS; i++) {
			/* Realistic flows: a few servers, many client ports. */
			uint32_t h = hash_dir(4, 6, ep4(0x0a000000 + i % 251, (uint16_t)(32768 + i % 28000)),
					      ep4(0xc0a80000 + i % 7, i % 2 ? 443 : 80), 0, 0, 0);
			unsigned s = flowhash_shard(h, n);

			assert_true(s < n);
			cnt[s]++;
		}
		for (unsigned s = 0; s < n; s++)
			chi += (cnt[s] - exp) * (cnt[s] - exp) / exp;
		/* chi-square with n-1 degrees of freedom: 40 is far beyond p = 0.001 for n <= 16 */
		if (chi > 40)
			fail_msg("%u shards: chi-square %.1f", n, chi);
	}
	assert_int_equal(flowhash_shard(0xffffffffu, 4), 3);
	assert_int_equal(flowhash_shard(0, 4), 0);
	assert_int_equal(flowhash_shard(0x12345678u, 1), 0);
}

/* Every prefix of a frame hashes without reading past it (ASan catches a read beyond the copy). */
static void test_short_frames(void **state)
{
	uint8_t f[256];
	struct ep a = ep6(1, 1), b = ep6(2, 2);
	uint32_t n = build(f, 6, 6, &a, &b, 2, 1, 1);

	(void)state;
	for (uint32_t len = 0; len <= n; len++) {
		uint8_t *c = malloc(len ? len : 1);

		assert_non_null(c);
		memcpy(c, f, len);
		(void)flowhash(c, len);
		free(c);
	}
	/* An extension header claiming more than the frame has. */
	f[12 + 8 + 2 + 40 + 1] = 255;
	(void)flowhash(f, n);
}

/*
 * The hash itself does not change: which thread sends a flow (and so which
 * queue it leaves by) is the same from one version to the next, and the
 * IPv4 path, serialised straight from the header, gives what the general
 * key does.  The values are the general path's (before the IPv4 one).
 */
static void test_known_values(void **state)
{
	static const struct {
		int ver, vlans, frag, ext;
		uint8_t proto;
		uint32_t sa, da;
		uint16_t sp, dp;
		uint32_t hash;
	} v[] = {
		{ 4, 0, 0, 0, 6, 0x0a000001, 0x0a000002, 1234, 80, 0x918d4a02 },
		{ 4, 0, 0, 0, 6, 0x0a000002, 0x0a000001, 80, 1234, 0x918d4a02 },
		{ 4, 2, 0, 0, 17, 0xc0a80001, 0x0a000001, 53, 4000, 0x337dceab },
		{ 4, 0, 1, 0, 17, 0xc0a80001, 0x0a000001, 53, 4000, 0xce21bc38 },
		{ 4, 0, 0, 0, 1, 0xc0a80001, 0x0a000001, 0x0800, 1, 0x83638c79 },
		{ 4, 0, 0, 0, 132, 7, 7, 2000, 1000, 0xcbe8108c },
		{ 4, 1, 0, 0, 136, 0xffffffff, 0, 1, 65535, 0xb20b485e },
		{ 6, 0, 0, 0, 6, 0x0a000001, 0x0a000002, 1234, 80, 0xe88799c9 },
		{ 6, 2, 1, 1, 17, 5, 6, 53, 999, 0x4c300b03 },
	};
	uint8_t f[64] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct ep s = v[i].ver == 4 ? ep4(v[i].sa, v[i].sp) : ep6(v[i].sa, v[i].sp);
		struct ep d = v[i].ver == 4 ? ep4(v[i].da, v[i].dp) : ep6(v[i].da, v[i].dp);
		uint32_t h = hash_dir(v[i].ver, v[i].proto, s, d, v[i].vlans, v[i].frag, v[i].ext);

		if (h != v[i].hash)
			fail_msg("row %zu: hash 0x%08x, expected 0x%08x", i, h, v[i].hash);
	}
	/* An IPv4 header with options: the ports follow them. */
	{
		struct ep s = ep4(0x0a000001, 1234), d = ep4(0x0a000002, 80);
		uint8_t g[128];
		uint32_t n = build(g, 4, 6, &s, &d, 0, 0, 0), h;

		memmove(g + 14 + 24, g + 14 + 20, n - 14 - 20);
		memset(g + 14 + 20, 1, 4); /* four NOP options */
		g[14] = 0x46;
		h = flowhash(g, n + 4);
		/* ...and hash as without options: the same flow. */
		if (h != 0x918d4a02)
			fail_msg("options: hash 0x%08x, expected 0x%08x", h, 0x918d4a02u);
		/* Cut inside the ports: by addresses. */
		h = flowhash(g, 14 + 24 + 3);
		if (h != 0xa75cca0b)
			fail_msg("cut ports: hash 0x%08x, expected 0x%08x", h, 0xa75cca0b);
	}
	/* ARP, by MAC pair; an IPv4 EtherType with too short a header, likewise; a runt. */
	memcpy(f, MAC1, 6);
	memcpy(f + 6, MAC2, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	assert_int_equal(flowhash(f, 60), 0xca8831b3);
	f[13] = 0x00;
	f[14] = 0x45;
	assert_int_equal(flowhash(f, 33), 0xd5c95638);
	assert_int_equal(flowhash(f, 10), 0x3959638b);
}

/*
 * --threads: each shard index from 0 to n - 1 is used, both directions of a
 * flow (and every packet of it) land in one shard for every n, and the shard
 * of a hash only ever splits as n grows in proportion (the top bits decide):
 * with n = 1 everything is shard 0.
 */
static void test_shard_assignment(void **state)
{
	(void)state;
	for (unsigned n = 1; n <= 64; n++) {
		uint64_t seen = 0;

		for (uint32_t i = 0; i < 4000; i++) {
			struct ep a = ep4(0x0a000000 + i * 2654435761u % 65521, (uint16_t)(1024 + i % 30000));
			struct ep b = ep4(0xc0a80001 + i % 13, (uint16_t)(i % 3 ? 443 : 53));
			uint32_t h = hash_dir(4, i % 2 ? 6 : 17, a, b, (int)(i % 3), 0, 0);
			unsigned s = flowhash_shard(h, n);

			assert_true(s < n);
			assert_int_equal(s, flowhash_shard(hash_dir(4, i % 2 ? 6 : 17, b, a, (int)(i % 3), 0, 0), n));
			seen |= 1ull << s;
			if (n == 1)
				assert_int_equal(s, 0);
			/* Doubling the threads splits each shard in two: shard s of n becomes 2s or 2s + 1 of 2n. */
			if (n <= 32)
				assert_int_equal(flowhash_shard(h, 2 * n) / 2, s);
		}
		assert_int_equal(seen, n == 64 ? UINT64_MAX : (1ull << n) - 1);
	}
	/* Exact: the top bits of the hash, scaled. */
	assert_int_equal(flowhash_shard(0x80000000u, 2), 1);
	assert_int_equal(flowhash_shard(0x7fffffffu, 2), 0);
	assert_int_equal(flowhash_shard(0xc0000000u, 4), 3);
	assert_int_equal(flowhash_shard(0xbfffffffu, 4), 2);
	assert_int_equal(flowhash_shard(0x55555556u, 3), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_flows_differ),
		cmocka_unit_test(test_non_ip),
		cmocka_unit_test(test_ipv6_later_fragments),
		cmocka_unit_test(test_distribution),
		cmocka_unit_test(test_short_frames),
		cmocka_unit_test(test_shard_assignment),
		cmocka_unit_test(test_known_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
