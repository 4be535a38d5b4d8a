// SPDX-License-Identifier: BSD-2-Clause
/*
 * csumcheck: verify every IPv4 header, TCP, UDP, ICMP and ICMPv6 checksum in
 * a trace.  Written apart from src/edit/ on purpose, so that it checks the
 * edit chain rather than agreeing with it.
 *
 *   csumcheck [--zero-frag-payload] TRACE
 *
 * Frames whose datagram is not all there (captured short, or a fragment) have
 * their L4 checksum skipped and counted.  With --zero-frag-payload (traces
 * made with --pad-payload, where every payload byte is zero) the first
 * fragment of a UDP datagram is verified too, with the length its UDP header
 * states.  Exit 0 when every verified checksum is right, printing the counts;
 * 1 at the first wrong one (named by frame and protocol); 2 on a usage or
 * read error.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "replay/trace.h"

static uint32_t sum16(uint32_t s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s += (i & 1) ? b[i] : (uint32_t)b[i] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static unsigned be16(const uint8_t *b)
{
	return (unsigned)b[0] << 8 | b[1];
}

static uint64_t verified, skipped;

/* 0 good or not checkable, 1 bad. */
static int check_l4(uint64_t n, const uint8_t *d, uint32_t caplen, uint32_t l3, int v6, uint8_t proto,
		    uint32_t l4, uint32_t l4len, bool have_all)
{
	uint32_t s = 0;
	const char *name = proto == 6 ? "TCP" : proto == 17 ? "UDP" : proto == 1 ? "ICMP" : "ICMPv6";

	if (proto != 6 && proto != 17 && proto != 1 && proto != 58)
		return 0;
	if (!have_all) {
		skipped++;
		return 0;
	}
	if (proto == 17 && !v6 && l4 + 8 <= caplen && !d[l4 + 6] && !d[l4 + 7])
		return 0; /* IPv4 UDP without a checksum */
	/* RFC 768: a UDP datagram is as long as its length field says, which may be less than
	 * the IP payload (--fixhdrlen extends the IP length over Ethernet padding). */
	if (proto == 17 && l4 + 8 <= caplen && be16(d + l4 + 4) >= 8 && be16(d + l4 + 4) < l4len)
		l4len = be16(d + l4 + 4);
	if (proto != 1) {
		uint8_t ph[8] = { 0, 0, (uint8_t)(l4len >> 8), (uint8_t)l4len, 0, 0, 0, proto };

		if (v6) {
			s = sum16(s, d + l3 + 8, 32);
			ph[0] = (uint8_t)(l4len >> 24);
			ph[1] = (uint8_t)(l4len >> 16);
			s = sum16(s, ph, 8);
		} else {
			s = sum16(s, d + l3 + 12, 8);
			s += proto + l4len;
		}
	}
	/* Bytes past the capture count as zeros (only reached with --zero-frag-payload). */
	s = sum16(s, d + l4, l4 + l4len <= caplen ? l4len : caplen - l4);
	if (fold(s) != 0xffff) {
		printf("frame %" PRIu64 ": %s checksum wrong\n", n, name);
		return 1;
	}
	verified++;
	return 0;
}

int main(int argc, char **argv)
{
	bool zero_frag = false;
	struct trace *t = NULL;
	uint64_t n = 0;
	struct pkt p;
	int rc, i = 1;

	if (argc > 1 && !strcmp(argv[1], "--zero-frag-payload")) {
		zero_frag = true;
		i++;
	}
	if (argc - i != 1) {
		fprintf(stderr, "usage: csumcheck [--zero-frag-payload] TRACE\n");
		return 2;
	}
	if (trace_open(&t, argv[i], NULL) < 0) {
		fprintf(stderr, "csumcheck: %s\n", trace_strerror(t));
		trace_close(t);
		return 2;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		const uint8_t *d = p.data;
		uint32_t c = p.caplen, off = 12, l3, l4, end;
		unsigned type;
		uint8_t proto;
		bool frag = false, first = true;

		n++;
		if (c < 14)
			continue;
		type = be16(d + off);
		while ((type == 0x8100 || type == 0x88a8) && off + 6 <= c) {
			off += 4;
			type = be16(d + off);
		}
		l3 = off + 2;
		if (type == 0x0800 && l3 + 20 <= c && d[l3] >> 4 == 4) {
			uint32_t ihl = (d[l3] & 15u) * 4;

			if (ihl < 20 || l3 + ihl > c)
				continue;
			if (fold(sum16(0, d + l3, ihl)) != 0xffff) {
				printf("frame %" PRIu64 ": IPv4 header checksum wrong\n", n);
				goto bad;
			}
			verified++;
			frag = be16(d + l3 + 6) & 0x3fff;
			first = !(be16(d + l3 + 6) & 0x1fff);
			proto = d[l3 + 9];
			l4 = l3 + ihl;
			end = l3 + be16(d + l3 + 2);
			if (!first)
				continue;
			if (frag && zero_frag && proto == 17 && l4 + 8 <= c) {
				if (check_l4(n, d, c, l3, 0, proto, l4, be16(d + l4 + 4), true))
					goto bad;
				continue;
			}
			if (check_l4(n, d, c, l3, 0, proto, l4, end - l4, !frag && end <= c && end >= l4))
				goto bad;
		} else if (type == 0x86dd && l3 + 40 <= c && d[l3] >> 4 == 6) {
			proto = d[l3 + 6];
			l4 = l3 + 40;
			end = l3 + 40 + be16(d + l3 + 4);
			while ((proto == 0 || proto == 43 || proto == 60 || proto == 44) && l4 + 8 <= c) {
				if (proto == 44) {
					frag = true;
					first = !(be16(d + l4 + 2) & 0xfff8);
				}
				uint32_t len = proto == 44 ? 8 : (d[l4 + 1] + 1u) * 8;

				proto = d[l4];
				l4 += len;
			}
			if (!first)
				continue;
			if (frag && zero_frag && proto == 17 && l4 + 8 <= c) {
				if (check_l4(n, d, c, l3, 1, proto, l4, be16(d + l4 + 4), true))
					goto bad;
				continue;
			}
			if (check_l4(n, d, c, l3, 1, proto, l4, end - l4,
				     !frag && end <= c && l4 <= end && l4 + 8 <= c))
				goto bad;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "csumcheck: %s\n", trace_strerror(t));
		trace_close(t);
		return 2;
	}
	printf("%" PRIu64 " checksums right in %" PRIu64 " frames (%" PRIu64 " L4 checksums not checkable)\n",
	       verified, n, skipped);
	trace_close(t);
	return 0;
bad:
	trace_close(t);
	return 1;
}
