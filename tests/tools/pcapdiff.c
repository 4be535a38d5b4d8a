// SPDX-License-Identifier: BSD-2-Clause
/*
 * pcapdiff: compare two traces frame by frame with the project's readers.
 *
 *   pcapdiff [--linktype] [--ts | --ts-us | --ts-rel] [--skip-mac6] [--wirelen] [--except N,M,...] [--l3] A B
 *
 * --ts-rel compares each frame's offset from its file's first frame, to the
 * ns: what two -w runs of the same traffic, started at different times,
 * must agree on.
 * --wirelen compares each frame's wire length too (the pcap record's len):
 * a -w output must keep the length a short capture recorded, as tcprewrite
 * does.  Without it, a -w file compares equal to what a capture on the far
 * side got, which holds only the bytes sent.
 * --except leaves out the frames numbered (from 1): golden tests name the
 * frames a reference tool gets wrong, and why, instead of giving up on the file.
 * --skip-mac6 leaves out the 12 MAC address bytes of IPv6 frames (EtherType
 * 86dd, after any VLAN tags): tcprewrite 4.4.3 overwrites both MACs of every
 * IPv6 frame with 33:33 and the low 32 bits of the IPv6 addresses, so golden
 * comparisons with it check those bytes separately.
 * --l3 compares only the IP packets: each Ethernet frame's header and VLAN
 * tags are skipped and its padding cut at the IP length (what a layer-3
 * replay, --method raw, keeps of a frame).
 *
 * Exit 0 when both hold the same frames (bytes and captured lengths) in the
 * same order -- and, with --ts, the same timestamps (--ts-us: to the
 * microsecond; --ts-rel: the same offsets from each file's first frame, to
 * the ns, as two -w runs of the same traffic started at different times
 * have) -- printing "N frames identical"; exit 1 at the first difference,
 * described on one line; exit 2 on a usage or read error.  Frames of other
 * link types are compared as the readers convert them to Ethernet; with
 * --linktype, as recorded, and both files must have the same link type
 * (what a -w run with --dlt raw, user or hdlc writes).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/trace.h"

static int usage(void)
{
	fprintf(stderr, "usage: pcapdiff [--linktype] [--ts | --ts-us | --ts-rel] [--skip-mac6] [--wirelen] "
		"[--except N,M,...] [--l3] A B\n");
	return 2;
}

/* Narrow an Ethernet frame's view to its IP packet; frames without one are left whole. */
static void l3_view(struct pkt *p)
{
	uint32_t o = 12;
	uint16_t type, len;

	if (pkt_get_be16(p, o, &type))
		return;
	while ((type == 0x8100 || type == 0x88a8) && !pkt_get_be16(p, o + 4, &type))
		o += 4;
	o += 2;
	if (type == 0x0800 && !pkt_get_be16(p, o + 2, &len))
		;
	else if (type == 0x86dd && !pkt_get_be16(p, o + 4, &len))
		len = (uint16_t)(len + 40);
	else
		return;
	if (len > p->caplen - o)
		return;
	p->data += o;
	p->caplen = len;
}

/* Is this an IPv6 frame (behind any 802.1Q/802.1ad tags)? */
static bool is_ipv6(const struct pkt *p)
{
	uint32_t off = 12;
	uint16_t type;

	while (!pkt_get_be16(p, off, &type) && (type == 0x8100 || type == 0x88a8))
		off += 4;
	return !pkt_get_be16(p, off, &type) && type == 0x86dd;
}

/* Is frame @n in the comma-separated list @list? */
static bool excepted(const char *list, uint64_t n)
{
	const char *s = list;

	for (;;) {
		char *end;
		unsigned long long v = strtoull(s, &end, 10);

		if (end == s)
			return false;
		if (v == n)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

int main(int argc, char **argv)
{
	uint64_t ts_div = 0, n = 0, skipped = 0, t0a = 0, t0b = 0;
	bool skip_mac6 = false, l3 = false, rel = false, wirelen = false;
	const char *except = NULL;
	struct trace *a = NULL, *b = NULL;
	struct trace_cfg cfg = { 0 };
	int status = 2, i = 1;

	if (argc > i && !strcmp(argv[i], "--linktype")) {
		cfg.keep_linktype = true;
		i++;
	}
	if (argc > i && !strcmp(argv[i], "--ts")) {
		ts_div = 1;
		i++;
	} else if (argc > i && !strcmp(argv[i], "--ts-us")) {
		ts_div = 1000;
		i++;
	} else if (argc > i && !strcmp(argv[i], "--ts-rel")) {
		ts_div = 1;
		rel = true;
		i++;
	}
	if (argc > i && !strcmp(argv[i], "--skip-mac6")) {
		skip_mac6 = true;
		i++;
	}
	if (argc > i && !strcmp(argv[i], "--wirelen")) {
		wirelen = true;
		i++;
	}
	if (argc > i + 1 && !strcmp(argv[i], "--except")) {
		except = argv[i + 1];
		i += 2;
	}
	if (argc > i && !strcmp(argv[i], "--l3")) {
		l3 = true;
		i++;
	}
	if (argc - i != 2)
		return usage();
	if (trace_open(&a, argv[i], cfg.keep_linktype ? &cfg : NULL) < 0 ||
	    trace_open(&b, argv[i + 1], cfg.keep_linktype ? &cfg : NULL) < 0) {
		fprintf(stderr, "pcapdiff: %s\n", trace_strerror(b ? b : a));
		goto out;
	}
	if (cfg.keep_linktype && trace_linktype(a) != trace_linktype(b)) {
		printf("link type %u vs %u\n", trace_linktype(a), trace_linktype(b));
		status = 1;
		goto out;
	}
	for (;;) {
		struct pkt pa, pb;
		int ra = trace_next(a, &pa), rb = trace_next(b, &pb);

		if (ra < 0 || rb < 0) {
			fprintf(stderr, "pcapdiff: %s\n", trace_strerror(ra < 0 ? a : b));
			goto out;
		}
		if (!ra && !rb)
			break;
		n++;
		status = 1;
		if (n == 1 && rel && ra == 1 && rb == 1) {
			t0a = pa.ts_ns;
			t0b = pb.ts_ns;
		}
		if (except && excepted(except, n))
			continue;
		if (l3 && ra == 1 && rb == 1) {
			l3_view(&pa);
			l3_view(&pb);
		}
		if (ra != rb) {
			printf("%s has %" PRIu64 " frames, %s has more\n", ra ? argv[i + 1] : argv[i],
			       n - 1, ra ? argv[i] : argv[i + 1]);
			goto out;
		}
		if (pa.caplen != pb.caplen) {
			printf("frame %" PRIu64 ": %u bytes vs %u bytes\n", n, pa.caplen, pb.caplen);
			goto out;
		}
		if (wirelen && pa.wirelen != pb.wirelen) {
			printf("frame %" PRIu64 ": wire length %u vs %u\n", n, pa.wirelen, pb.wirelen);
			goto out;
		}
		if (memcmp(pa.data, pb.data, pa.caplen)) {
			uint32_t k = 0;

			if (skip_mac6 && pa.caplen > 12 && is_ipv6(&pa) &&
			    !memcmp(pa.data + 12, pb.data + 12, pa.caplen - 12)) {
				skipped++;
				continue;
			}
			while (pa.data[k] == pb.data[k])
				k++;
			printf("frame %" PRIu64 ": byte %u differs (0x%02x vs 0x%02x)\n", n, k,
			       pa.data[k], pb.data[k]);
			goto out;
		}
		if (ts_div && (pa.ts_ns - t0a) / ts_div != (pb.ts_ns - t0b) / ts_div) {
			printf("frame %" PRIu64 ": timestamp %" PRIu64 " ns vs %" PRIu64 " ns\n", n,
			       pa.ts_ns, pb.ts_ns);
			goto out;
		}
	}
	if (skipped)
		printf("%" PRIu64 " frames identical (MACs of %" PRIu64 " IPv6 frames not compared)\n", n,
		       skipped);
	else
		printf("%" PRIu64 " frames identical\n", n);
	status = 0;
out:
	trace_close(a);
	trace_close(b);
	return status;
}
