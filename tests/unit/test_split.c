// SPDX-License-Identifier: BSD-2-Clause
/*
 * The direction classifier (--split) on packets built here, mode by mode,
 * with tcpprep 4.6's surprises, and the tcpprep cache reader on cache images
 * built here bit by bit: good files, and each way a file can be wrong.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/split.h"

static uint8_t frames[16][128];
static unsigned nframes;

/* Ethernet source MAC ends in @mac; IPv4 a.b.c.@s -> 192.0.2.@d; @proto with ports/flags. */
static struct pkt v4(uint8_t mac, uint8_t s, uint8_t d, uint8_t proto, uint16_t sport,
		     uint16_t dport, uint8_t flags)
{
	uint8_t *b = frames[nframes++ % 16];
	struct pkt p = { .data = b, .caplen = 14 + 20 + 20, .wirelen = 54, .linktype = 1 };

	memset(b, 0, 128);
	b[0] = 2, b[5] = 0xee;
	b[6] = 2, b[11] = mac;
	b[12] = 0x08, b[13] = 0x00;
	b[14] = 0x45, b[23] = proto;
	b[26] = 192, b[27] = 0, b[28] = 2, b[29] = s;
	b[30] = 192, b[31] = 0, b[32] = 2, b[33] = d;
	b[34] = (uint8_t)(sport >> 8), b[35] = (uint8_t)sport;
	b[36] = (uint8_t)(dport >> 8), b[37] = (uint8_t)dport;
	if (proto == 6)
		b[47] = flags;
	else if (proto == 17)
		b[45] = flags; /* DNS flags, second byte (RA, Z, RCODE) */
	else if (proto == 1)
		b[34] = 3, b[35] = flags; /* ICMP unreachable, code @flags */
	return p;
}

/* IPv6 2001:db8::@s -> 2001:db8::@d, TCP with @flags; @frag puts a fragment header first. */
static struct pkt v6(uint8_t s, uint8_t d, uint16_t dport, uint8_t flags, bool frag)
{
	uint8_t *b = frames[nframes++ % 16];
	struct pkt p = { .data = b, .caplen = 14 + 40 + 8 + 20, .wirelen = 82, .linktype = 1 };
	unsigned l4 = 54;

	memset(b, 0, 128);
	b[12] = 0x86, b[13] = 0xdd;
	b[14] = 0x60;
	b[20] = frag ? 44 : 6;
	b[22] = 0x20, b[23] = 0x01, b[24] = 0x0d, b[25] = 0xb8, b[37] = s;
	b[38] = 0x20, b[39] = 0x01, b[40] = 0x0d, b[41] = 0xb8, b[53] = d;
	if (frag) {
		b[54] = 6;
		b[57] = 1; /* M: first fragment */
		l4 += 8;
	}
	b[l4 + 2] = (uint8_t)(dport >> 8), b[l4 + 3] = (uint8_t)dport;
	b[l4 + 13] = flags;
	return p;
}

static struct pkt arp(void)
{
	uint8_t *b = frames[nframes++ % 16];
	struct pkt p = { .data = b, .caplen = 42, .wirelen = 42, .linktype = 1 };

	memset(b, 0, 128);
	b[6] = 2, b[11] = 0x0a;
	b[12] = 0x08, b[13] = 0x06;
	return p;
}

static struct split *open_ok(const char *mode)
{
	struct split *s;
	char err[256];

	assert_int_equal(split_open(&s, mode, err, sizeof(err)), 0);
	return s;
}

/* Pass one over @n packets if the mode wants it, then the side of each into @side. */
static int run(struct split *s, struct pkt *p, unsigned n, int *side)
{
	if (split_needs_pass(s)) {
		for (unsigned i = 0; i < n; i++) {
			int rc = split_learn(s, &p[i]);

			if (rc < 0)
				return rc;
		}
		if (split_learn_done(s) < 0)
			return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++)
		side[i] = split_classify(s, &p[i]);
	return 0;
}

static void test_bad_modes(void **state)
{
	static const char *const bad[] = {
		"", "firsts", "cidr", "cidr:", "cidr:1.2.3.4/33", "cidr:foo", "cidr:1.2.3.0/24,",
		"cidr:1.2.3.0/", "cidr:,1.2.3.4", "cidr:2001:db8::/129", "mac:", "mac:02:00:00:00:00",
		"mac:02:00:00:00:00:0g", "mac:02:00:00:00:00:01:02", "regex:1", "CLIENT",
		/* A prefix length in decimal only: "/010" is 8 to tcpreplay, "/ 8" is no number. */
		"cidr:10.0.0.0/010", "cidr:10.0.0.0/08", "cidr:10.0.0.0/ 8", "cidr:10.0.0.0/+8",
	};
	char err[256];
	struct split *s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(split_open(&s, bad[i], err, sizeof(err)), -EINVAL);
		assert_null(s);
		assert_true(strstr(err, "--split") != NULL);
	}
	for (int m = 0; m < SPLIT_MODE_MAX; m++) {
		const char *name = split_mode_name((enum split_mode)m);
		char mode[64];

		snprintf(mode, sizeof(mode), "%s%s", name,
			 m == SPLIT_CIDR ? ":10.0.0.0/8" : m == SPLIT_MAC ? ":02:00:00:00:00:01" : "");
		s = open_ok(mode);
		assert_int_equal(split_mode(s), m);
		assert_int_equal(split_needs_pass(s),
				 m == SPLIT_CLIENT || m == SPLIT_SERVER || m == SPLIT_BRIDGE || m == SPLIT_ROUTER);
		split_close(s);
	}
	split_close(NULL);
}

static void test_first(void **state)
{
	struct pkt p[] = {
		arp(),
		v4(0x0a, 10, 11, 17, 1000, 53, 0), /* .10 first a source: client */
		v4(0x0b, 11, 10, 17, 53, 1000, 0), /* .11 first a destination: server */
		v4(0x0b, 11, 12, 6, 80, 2000, 0),  /* a server stays one */
		v4(0x0c, 12, 11, 6, 2000, 80, 0),  /* .12 was a destination first */
		v4(0x0d, 13, 10, 6, 1, 2, 0),      /* .13 new, as a source: client */
	};
	int side[6], want[] = { 2, 1, 2, 2, 2, 1 };
	struct split *s = open_ok("first");

	(void)state;
	assert_int_equal(run(s, p, 6, side), 0);
	assert_memory_equal(side, want, sizeof(want));
	split_close(s);
}

static void test_cidr(void **state)
{
	struct pkt p[] = {
		v4(1, 10, 11, 6, 1, 2, 0), v4(1, 11, 10, 6, 1, 2, 0), v4(1, 200, 10, 6, 1, 2, 0),
		v6(0x0a, 0x0b, 80, 2, false), v6(0x0b, 0x0a, 80, 2, false), arp(),
	};
	int side[6];
	/* tcpprep -c: the *source* in a network goes out the primary; ARP the secondary. */
	int want[] = { 1, 2, 1, 1, 2, 2 };
	struct split *s = open_ok("cidr:192.0.2.10/32,192.0.2.128/25,2001:db8::a");

	(void)state;
	assert_int_equal(run(s, p, 6, side), 0);
	assert_memory_equal(side, want, sizeof(want));
	split_close(s);
	s = open_ok("cidr:0.0.0.0/0");
	assert_int_equal(run(s, p, 6, side), 0);
	assert_int_equal(side[0], 1);
	assert_int_equal(side[3], 2); /* an IPv4 network never holds an IPv6 source */
	split_close(s);
}

static void test_port(void **state)
{
	struct pkt p[] = {
		v4(1, 10, 11, 6, 40000, 80, 0),   /* to a port below 1024 */
		v4(1, 11, 10, 6, 80, 40000, 0),   /* from one */
		v4(1, 10, 11, 17, 5000, 1023, 0), v4(1, 10, 11, 17, 5000, 1024, 0),
		v4(1, 10, 11, 1, 0, 0, 3),        /* ICMP: no port */
		v6(0x0a, 0x0b, 443, 2, false),    v6(0x0a, 0x0b, 443, 2, true), arp(),
	};
	int side[8], want[] = { 1, 2, 1, 2, 2, 1, 2, 2 };
	struct split *s = open_ok("port");

	(void)state;
	assert_int_equal(run(s, p, 8, side), 0);
	assert_memory_equal(side, want, sizeof(want));
	split_close(s);
}

static void test_mac(void **state)
{
	struct pkt p[] = { v4(0x0a, 10, 11, 6, 1, 2, 0), v4(0x0b, 11, 10, 6, 1, 2, 0), arp(),
			   v4(0x0c, 12, 10, 6, 1, 2, 0) };
	int side[4], want[] = { 1, 2, 1, 1 }; /* ARP from a listed MAC too: mac mode looks at no IP */
	struct split *s = open_ok("mac:02:00:00:00:00:0a,02:00:00:00:00:0C");

	(void)state;
	assert_int_equal(run(s, p, 4, side), 0);
	assert_memory_equal(side, want, sizeof(want));
	split_close(s);
}

/* A TCP handshake .10 -> .11, a packet from an address with no role (.12), IPv6, ARP. */
static void handshake(struct pkt *p)
{
	p[0] = v4(1, 10, 11, 6, 40000, 80, 0x02);
	p[1] = v4(1, 11, 10, 6, 80, 40000, 0x12);
	p[2] = v4(1, 10, 11, 6, 40000, 80, 0x10);
	p[3] = v4(1, 12, 10, 17, 7, 7, 0);
	p[4] = v6(0x0a, 0x0b, 80, 0x02, false);
	p[5] = v6(0x0b, 0x0a, 80, 0x12, false);
	p[6] = arp();
}

static void test_auto_modes(void **state)
{
	struct pkt p[7];
	int side[7];
	/* Every IPv6 packet gets one side: tcpprep keeps all IPv6 addresses in one node, here a
	 * client (one SYN, one SYN+ACK: not twice as many answers). */
	int client[] = { 1, 2, 1, 1, 1, 1, 2 };
	int server[] = { 1, 2, 1, 2, 1, 1, 2 };
	int bridge[] = { 1, 2, 1, 2, 1, 1, 2 };
	struct split *s;

	(void)state;
	handshake(p);
	s = open_ok("client");
	assert_int_equal(split_learn_done(s), 0);
	assert_int_equal(split_classify(s, &p[3]), 1); /* nothing learned: every address unknown */
	split_close(s);
	s = open_ok("client");
	assert_int_equal(run(s, p, 7, side), 0);
	assert_memory_equal(side, client, sizeof(client));
	split_close(s);
	s = open_ok("server");
	assert_int_equal(run(s, p, 7, side), 0);
	assert_memory_equal(side, server, sizeof(server));
	split_close(s);
	s = open_ok("bridge");
	assert_int_equal(run(s, p, 7, side), 0);
	assert_memory_equal(side, bridge, sizeof(bridge));
	split_close(s);
}

/* tcpprep reads some fields in host byte order: keep what it does on little-endian hosts. */
static void test_auto_byte_order(void **state)
{
	struct pkt p[3];
	int side[3];
	struct split *s;

	(void)state;
	/* Source port 5120 (0x1400) is tcpprep's "ftp-data, ignore"; port 20 is not. */
	p[0] = v4(1, 10, 11, 6, 5120, 80, 0x12);
	p[1] = v4(1, 11, 10, 6, 20, 80, 0x12);
	p[2] = v4(1, 12, 10, 6, 1, 1, 0);
	s = open_ok("client");
	assert_int_equal(run(s, p, 3, side), 0);
	assert_int_equal(side[0], 1); /* its SYN+ACK ignored: unknown, a client in client mode */
	assert_int_equal(side[1], 2); /* a server */
	split_close(s);
	/* To port 53: an answer when RA (0x80 of the second flags byte) is set, QR ignored. */
	p[0] = v4(1, 10, 11, 17, 1000, 53, 0x80);
	p[1] = v4(1, 11, 10, 17, 1000, 53, 0x00);
	/* From port 53: an answer unless the flags are exactly 00 80. */
	p[2] = v4(1, 12, 10, 17, 53, 1000, 0x00);
	s = open_ok("server");
	assert_int_equal(run(s, p, 3, side), 0);
	assert_int_equal(side[0], 2);
	assert_int_equal(side[1], 1);
	assert_int_equal(side[2], 2);
	split_close(s);
	/* An ICMP port unreachable makes its source a server; another code does not. */
	p[0] = v4(1, 10, 11, 1, 0, 0, 3);
	p[1] = v4(1, 11, 10, 1, 0, 0, 1);
	s = open_ok("client");
	assert_int_equal(run(s, p, 2, side), 0);
	assert_int_equal(side[0], 2);
	assert_int_equal(side[1], 1);
	split_close(s);
}

static void test_router(void **state)
{
	struct pkt p[7];
	int side[7], client[] = { 1, 2, 1, 1, 1, 1, 2 };
	struct split *s;

	(void)state;
	/* The lowest address (by last octet first) is .10, a client: tcpprep gives up. */
	handshake(p);
	s = open_ok("router");
	assert_int_equal(run(s, p, 7, side), -EINVAL);
	assert_true(strstr(split_strerror(s), "valid list of servers") != NULL);
	split_close(s);
	/* Reversed roles: .10 the server, so it works, and gives client mode's sides. */
	p[0] = v4(1, 11, 10, 6, 40000, 80, 0x02);
	p[1] = v4(1, 10, 11, 6, 80, 40000, 0x12);
	p[2] = v4(1, 11, 10, 6, 40000, 80, 0x10);
	p[3] = v4(1, 12, 10, 17, 7, 7, 0);
	s = open_ok("router");
	assert_int_equal(run(s, p, 7, side), 0);
	assert_memory_equal(side, client, sizeof(client));
	split_close(s);
}

static void test_auto_truncated(void **state)
{
	struct pkt p = v4(1, 10, 11, 6, 1, 2, 0x02);
	struct split *s = open_ok("client");

	(void)state;
	p.caplen = 14 + 20 + 10; /* TCP header cut: tcpprep aborts on the trace */
	assert_int_equal(split_learn(s, &p), -EINVAL);
	assert_true(strstr(split_strerror(s), "too short") != NULL);
	split_close(s);
}

/* A version-04 cache image: header, @comment, @n packets with sides @side (0/1/2). */
static size_t cache_image(uint8_t *b, const char *comment, uint64_t n, const int *side)
{
	size_t clen = strlen(comment), off = 24 + clen;

	memset(b, 0, 24 + clen + n / 4 + 1);
	memcpy(b, "tcpprep", 8);
	memcpy(b + 8, "04", 2);
	for (int i = 0; i < 8; i++)
		b[12 + i] = (uint8_t)(n >> (56 - 8 * i));
	b[21] = 4;
	b[22] = (uint8_t)(clen >> 8), b[23] = (uint8_t)clen;
	memcpy(b + 24, comment, clen);
	for (uint64_t i = 0; i < n; i++) {
		unsigned bit = (unsigned)(i % 4) * 2;

		if (side[i])
			b[off + i / 4] |= (uint8_t)(1u << (bit + 1));
		if (side[i] == 1)
			b[off + i / 4] |= (uint8_t)(1u << bit);
	}
	return off + n / 4 + (n % 4 != 0);
}

static void test_cache_good(void **state)
{
	int side[] = { 2, 2, 1, 2, 1, 0, 1, 2, 1 };
	uint8_t b[128];
	size_t len = cache_image(b, "-a client -i x.pcap", 9, side);
	struct split_cache *c;
	char err[256];

	(void)state;
	/* tcpprep 4.6's own bytes for dns.pcap -a client: 8 packets in 0xba 0xbb. */
	assert_int_equal(b[24 + 19], 0xba);
	assert_int_equal(split_cache_load(&c, b, len, err, sizeof(err)), 0);
	assert_int_equal(split_cache_count(c), 9);
	assert_string_equal(split_cache_comment(c), "-a client -i x.pcap");
	for (int i = 0; i < 9; i++)
		assert_int_equal(split_cache_side(c, (uint64_t)i + 1), side[i]);
	assert_int_equal(split_cache_side(c, 0), -ERANGE);
	assert_int_equal(split_cache_side(c, 10), -ERANGE);
	assert_int_equal(split_cache_check(c, 9, err, sizeof(err)), 0);
	/* Another trace: both counts named. */
	assert_int_equal(split_cache_check(c, 40, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "describes 9 packets"));
	assert_non_null(strstr(err, "the trace has 40"));
	split_cache_free(c);
	split_cache_free(NULL);
	/* No comment (tcpprep --no-arg-comment). */
	len = cache_image(b, "", 4, side);
	assert_int_equal(split_cache_load(&c, b, len, err, sizeof(err)), 0);
	assert_string_equal(split_cache_comment(c), "");
	assert_int_equal(split_cache_side(c, 4), 2);
	split_cache_free(c);
}

/*
 * tcpprep 4.6 -a with -x/-X: its first pass leaves a "don't send" entry for
 * every excluded packet ahead of the second pass's entries, and tcpreplay 4.6
 * reads the header's count of entries from the start (tcpprep --print-info
 * prints the sides below).  The data bytes are tcpprep 4.6's own for dns.pcap.
 */
static void expect_shifted(const char *comment, const uint8_t *data, size_t dlen,
			   const int *side, uint64_t extra)
{
	uint8_t b[128];
	size_t len = cache_image(b, comment, 8, side), clen = strlen(comment);
	struct split_cache *c;
	char err[512];

	memcpy(b + 24 + clen, data, dlen);
	len = 24 + clen + dlen;
	assert_int_equal(split_cache_load(&c, b, len, err, sizeof(err)), 0);
	assert_int_equal(split_cache_count(c), 8);
	assert_int_equal(split_cache_extra(c), extra);
	for (int i = 0; i < 8; i++)
		if (split_cache_side(c, (uint64_t)i + 1) != side[i])
			fail_msg("%s: packet %d: side %d, tcpreplay 4.6 uses %d", comment, i + 1,
				 split_cache_side(c, (uint64_t)i + 1), side[i]);
	assert_int_equal(split_cache_side(c, 9), -ERANGE);
	assert_int_equal(split_cache_check(c, 8, err, sizeof(err)), 0);
	assert_true(split_cache_warning(c, err, sizeof(err)));
	assert_non_null(strstr(err, "-x/-X"));
	split_cache_free(c);
}

static void test_cache_exclude(void **state)
{
	/* tcpprep -a first -X P:5,7 -i dns.pcap: 2 + 8 entries in 3 bytes. */
	static const uint8_t first_x[] = { 0xa0, 0x8b, 0x08 };
	static const int first_side[8] = { 0, 0, 2, 2, 1, 2, 0, 2 };
	/* tcpprep -a client -x P:2-3 -i dns.pcap: 6 + 8 entries in 4 bytes. */
	static const uint8_t client_x[] = { 0x00, 0x80, 0x03, 0x00 };
	static const int client_side[8] = { 0, 0, 0, 0, 0, 0, 0, 2 };
	int plain[8] = { 2, 2, 1, 2, 1, 2, 1, 2 };
	uint8_t b[128];
	struct split_cache *c;
	char err[512];

	(void)state;
	expect_shifted("-a first -X P:5,7 -i dns.pcap -o d.cache", first_x, sizeof(first_x), first_side, 1);
	expect_shifted("-a client -x P:2-3 -i dns.pcap -o d.cache", client_x, sizeof(client_x), client_side, 2);
	/* A plain cache warns of nothing. */
	assert_int_equal(split_cache_load(&c, b, cache_image(b, "-a client", 8, plain), err, sizeof(err)), 0);
	assert_int_equal(split_cache_extra(c), 0);
	assert_false(split_cache_warning(c, err, sizeof(err)));
	/* A cache tcpprep made through a BPF filter (-x F:) counts fewer packets: both counts named. */
	assert_int_equal(split_cache_check(c, 9, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "describes 8 packets, the trace has 9"));
	assert_non_null(strstr(err, "F:"));
	split_cache_free(c);
}

static void expect_refused(const uint8_t *b, size_t len, const char *why)
{
	struct split_cache *c = (struct split_cache *)1;
	char err[256] = "";

	assert_int_equal(split_cache_load(&c, b, len, err, sizeof(err)), -EINVAL);
	assert_null(c);
	if (!strstr(err, why))
		fail_msg("refused with '%s', expected '%s'", err, why);
}

static void test_cache_bad(void **state)
{
	int side[8] = { 1, 2, 1, 2, 1, 2, 1, 2 };
	uint8_t b[128], bad[128];
	size_t len = cache_image(b, "hi", 8, side);
	struct split_cache *c;
	char err[256];

	(void)state;
	expect_refused((const uint8_t *)"\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8, "not a tcpprep cache");
	expect_refused(b, 0, "not a tcpprep cache");
	expect_refused(b, 20, "header truncated");
	memcpy(bad, b, len);
	memcpy(bad + 8, "03", 2);
	expect_refused(bad, len, "version '03'");
	memcpy(bad, b, len);
	bad[21] = 8;
	expect_refused(bad, len, "packets per byte");
	memcpy(bad, b, len);
	memset(bad + 12, 0, 8);
	expect_refused(bad, len, "no packets");
	memcpy(bad, b, len);
	bad[23] = 200;
	expect_refused(bad, len, "comment");
	memcpy(bad, b, len);
	memset(bad + 12, 0xff, 8); /* a count far beyond the data: nothing allocated from it */
	expect_refused(bad, len, "holds 2 data bytes");
	expect_refused(b, len - 1, "holds 1 data bytes");
	/*
	 * A third data byte fits tcpprep -a with -x/-X (up to 4 bytes for 8
	 * packets), but then entry 1 must be a first-pass "don't send": here it
	 * is sent, so the file is not what tcpprep writes.  (The old reader
	 * refused every byte past ceil(count / 4); this one takes those.)
	 */
	memcpy(bad, b, len);
	bad[len] = 0;
	expect_refused(bad, len + 1, "entry 1 (byte 26) is not the \"don't send\"");
	/* Past twice the count's entries tcpprep cannot have written it. */
	memset(bad + len, 0, 3);
	expect_refused(bad, len + 3, "holds 5 data bytes");
	assert_int_equal(split_cache_read(&c, "/nonexistent/x.cache", err, sizeof(err)), -ENOENT);
	assert_null(c);
	assert_non_null(strstr(err, "/nonexistent/x.cache"));
	assert_int_equal(split_cache_read(&c, "/", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_modes),
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_cidr),
		cmocka_unit_test(test_port),
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_auto_modes),
		cmocka_unit_test(test_auto_byte_order),
		cmocka_unit_test(test_router),
		cmocka_unit_test(test_auto_truncated),
		cmocka_unit_test(test_cache_good),
		cmocka_unit_test(test_cache_bad),
		cmocka_unit_test(test_cache_exclude),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
