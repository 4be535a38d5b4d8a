// SPDX-License-Identifier: BSD-2-Clause
/*
 * genframes: well-formed TCP, ICMP, ICMPv6 and IPv6 traces for replay's
 * tests, built with libnet (which lays out the headers and computes every
 * length and checksum), written as classic pcap with libpcap.  gentrace
 * (scripts/gentrace.c) keeps the hand-written bytes for deliberately
 * malformed records and the fixed layouts the golden tests pin down.
 *
 *   genframes tcp|icmp|icmp6|ipv6 -o OUT [--count N] [--size BYTES] [--gap-us US]
 *
 * Frame f: 02:00:00:00:00:01 -> 02:00:00:00:00:02; IPv4 198.18.0.1 ->
 * 198.19.0.1, IPv6 2001:db8::1 -> 2001:db8::2 (documentation addresses,
 * RFC 5737 and RFC 3849); the payload is the 64-bit big-endian f, then bytes
 * counting up.  tcp: a PSH|ACK segment, port 1024 -> 80, sequence numbers
 * advancing by the payload; icmp, icmp6: echo requests, id 1, sequence f;
 * ipv6: UDP over IPv6, 1024 -> 9.  Timestamps from 2024-01-01T00:00:00Z,
 * --gap-us apart (default 1000).  --size is the Ethernet frame's length
 * (default: the smallest frame that holds the headers and 8 payload bytes,
 * or 60).
 */
#include <errno.h>
#include <getopt.h>
#include <libnet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_TCP, K_ICMP, K_ICMP6, K_IPV6 };

static const char *const kinds[] = { "tcp", "icmp", "icmp6", "ipv6" };

/* Bytes of headers above Ethernet for each kind. */
static const uint32_t l3l4[] = {
	[K_TCP] = LIBNET_IPV4_H + LIBNET_TCP_H,
	[K_ICMP] = LIBNET_IPV4_H + LIBNET_ICMPV4_ECHO_H,
	[K_ICMP6] = LIBNET_IPV6_H + LIBNET_ICMPV6_ECHO_H,
	[K_IPV6] = LIBNET_IPV6_H + LIBNET_UDP_H,
};

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: genframes tcp|icmp|icmp6|ipv6 -o OUT [--count N] [--size BYTES] [--gap-us US]\n"
		   "Well-formed frames built by libnet (lengths and checksums), as classic pcap.\n");
	return rc;
}

static struct libnet_in6_addr in6(const char *s)
{
	struct libnet_in6_addr a;

	inet_pton(AF_INET6, s, &a);
	return a;
}

/* Frame @f of @kind with @payload_s payload bytes into @l; the frame's bytes in *@pkt. */
static int build(libnet_t *l, enum kind kind, uint64_t f, uint8_t *payload, uint32_t payload_s)
{
	static const uint8_t smac[6] = { 2, 0, 0, 0, 0, 1 }, dmac[6] = { 2, 0, 0, 0, 0, 2 };
	uint32_t src4 = htonl(0xc6120001), dst4 = htonl(0xc6130001); /* 198.18.0.1, 198.19.0.1 */
	uint16_t seq = (uint16_t)f, etype = ETHERTYPE_IP;
	libnet_ptag_t t = 0;

	switch (kind) {
	case K_TCP:
		t = libnet_build_tcp(1024, 80, (uint32_t)(1 + f * payload_s), 1, TH_PUSH | TH_ACK, 65535,
				     0, 0, (uint16_t)(LIBNET_TCP_H + payload_s), payload, payload_s, l, 0);
		if (t != -1)
			t = libnet_build_ipv4((uint16_t)(l3l4[kind] + payload_s), 0, seq, 0x4000, 64,
					      IPPROTO_TCP, 0, src4, dst4, NULL, 0, l, 0);
		break;
	case K_ICMP:
		t = libnet_build_icmpv4_echo(ICMP_ECHO, 0, 0, 1, seq, payload, payload_s, l, 0);
		if (t != -1)
			t = libnet_build_ipv4((uint16_t)(l3l4[kind] + payload_s), 0, seq, 0, 64,
					      IPPROTO_ICMP, 0, src4, dst4, NULL, 0, l, 0);
		break;
	case K_ICMP6:
		t = libnet_build_icmpv6_echo(ICMP6_ECHO_REQUEST, 0, 0, 1, seq, payload, payload_s, l, 0);
		if (t != -1)
			t = libnet_build_ipv6(0, 0, (uint16_t)(LIBNET_ICMPV6_ECHO_H + payload_s),
					      IPPROTO_ICMPV6, 64, in6("2001:db8::1"), in6("2001:db8::2"),
					      NULL, 0, l, 0);
		etype = ETHERTYPE_IPV6;
		break;
	case K_IPV6:
		t = libnet_build_udp(1024, 9, (uint16_t)(LIBNET_UDP_H + payload_s), 0, payload, payload_s,
				     l, 0);
		if (t != -1)
			t = libnet_build_ipv6(0, 0, (uint16_t)(LIBNET_UDP_H + payload_s), IPPROTO_UDP, 64,
					      in6("2001:db8::1"), in6("2001:db8::2"), NULL, 0, l, 0);
		etype = ETHERTYPE_IPV6;
		break;
	}
	if (t != -1)
		t = libnet_build_ethernet(dmac, smac, etype, NULL, 0, l, 0);
	return t == -1 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "count", required_argument, NULL, 'n' }, { "size", required_argument, NULL, 's' },
		{ "gap-us", required_argument, NULL, 'g' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char errbuf[LIBNET_ERRBUF_SIZE];
	unsigned long long count = 100, size = 0, gap_us = 1000;
	const char *out = NULL;
	enum kind kind = K_TCP;
	uint8_t payload[65536];
	pcap_dumper_t *d;
	uint32_t payload_s;
	libnet_t *l;
	pcap_t *p;
	int c, k = -1;

	if (argc < 2)
		return usage(stderr, 2);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout, 0);
	for (int i = 0; i < 4; i++)
		if (!strcmp(argv[1], kinds[i]))
			k = i;
	if (k < 0) {
		fprintf(stderr, "genframes: '%s' is not tcp, icmp, icmp6 or ipv6\n", argv[1]);
		return 2;
	}
	kind = (enum kind)k;
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:", lopts, NULL)) != -1) {
		char *end = NULL;

		switch (c) {
		case 'o': out = optarg; break;
		case 'n': count = strtoull(optarg, &end, 10); break;
		case 's': size = strtoull(optarg, &end, 10); break;
		case 'g': gap_us = strtoull(optarg, &end, 10); break;
		case 'h': return usage(stdout, 0);
		default: return usage(stderr, 2);
		}
		if (end && (*end || !*optarg)) {
			fprintf(stderr, "genframes: '%s' is not a number\n", optarg);
			return 2;
		}
	}
	if (!out || optind != argc)
		return usage(stderr, 2);
	if (!size)
		size = LIBNET_ETH_H + l3l4[kind] + 8 < 60 ? 60 : LIBNET_ETH_H + l3l4[kind] + 8;
	if (size < LIBNET_ETH_H + l3l4[kind] + 8 || size > LIBNET_ETH_H + 65535 - 8) {
		fprintf(stderr, "genframes: --size %llu: a %s frame holds %u to %u bytes\n", size,
			kinds[kind], LIBNET_ETH_H + l3l4[kind] + 8, LIBNET_ETH_H + 65535 - 8);
		return 2;
	}
	payload_s = (uint32_t)(size - LIBNET_ETH_H - l3l4[kind]);

	/* LIBNET_NONE: build only, no socket, no privileges. */
	l = libnet_init(LIBNET_NONE, NULL, errbuf);
	if (!l) {
		fprintf(stderr, "genframes: libnet: %s\n", errbuf);
		return 1;
	}
	p = pcap_open_dead(DLT_EN10MB, 65535);
	d = p ? pcap_dump_open(p, out) : NULL;
	if (!d) {
		fprintf(stderr, "genframes: %s: %s\n", out, p ? pcap_geterr(p) : "out of memory");
		return 1;
	}
	for (uint64_t f = 0; f < count; f++) {
		uint64_t us = f * gap_us;
		struct pcap_pkthdr h = {
			.ts = { .tv_sec = (time_t)(1704067200 + us / 1000000), .tv_usec = (suseconds_t)(us % 1000000) },
		};
		uint8_t *pkt;
		uint32_t len;

		for (uint32_t i = 0; i < payload_s; i++)
			payload[i] = i < 8 ? (uint8_t)(f >> (56 - 8 * i)) : (uint8_t)(i - 8);
		/* Coalescing the header blocks fills in their lengths and checksums. */
		if (build(l, kind, f, payload, payload_s) < 0 ||
		    libnet_pblock_coalesce(l, &pkt, &len) < 0) {
			fprintf(stderr, "genframes: libnet: %s\n", libnet_geterror(l));
			pcap_dump_close(d);
			remove(out);
			return 1;
		}
		h.caplen = h.len = len;
		pcap_dump((u_char *)d, &h, pkt);
		free(pkt);
		libnet_clear_packet(l);
	}
	if (pcap_dump_flush(d) < 0 || ferror(pcap_dump_file(d))) {
		fprintf(stderr, "genframes: %s: %s\n", out, strerror(errno));
		pcap_dump_close(d);
		remove(out);
		return 1;
	}
	pcap_dump_close(d);
	pcap_close(p);
	libnet_destroy(l);
	return 0;
}
