// SPDX-License-Identifier: BSD-2-Clause
/*
 * edcheck: checks of edited traces against their input, for the golden tests.
 *
 *   edcheck mac6 INPUT OURS [DMAC|-] [SMAC|-]
 *       Every IPv6 frame of OURS carries DMAC and SMAC (or, for "-" or when
 *       left out, the MACs of the same frame of INPUT); a frame whose IPv6
 *       destination is multicast carries that group's MAC (33:33 and its
 *       last 32 bits) instead of DMAC.  The golden tests use
 *       it where tcprewrite 4.4.3 cannot be the reference (it overwrites the
 *       MACs of IPv6 frames).
 *   edcheck padlen INPUT OURS
 *       Every frame of OURS is as long as the same frame of INPUT was on the
 *       wire (--pad-payload).
 *
 * Both traces must hold the same number of frames.  Exit 0 printing what was
 * checked, 1 at the first frame that is wrong, 2 on a usage or read error.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "replay/trace.h"

static bool parse_mac(const char *s, uint8_t m[6])
{
	unsigned v[6];

	if (!strcmp(s, "-"))
		return false;
	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return false;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return true;
}

/* Is @p IPv6 over Ethernet?  *@l3 is where its IPv6 header starts. */
static bool is_ipv6(const struct pkt *p, uint32_t *l3)
{
	uint32_t off = 12;
	uint16_t type;

	while (!pkt_get_be16(p, off, &type) && (type == 0x8100 || type == 0x88a8))
		off += 4;
	*l3 = off + 2;
	return !pkt_get_be16(p, off, &type) && type == 0x86dd;
}

int main(int argc, char **argv)
{
	struct trace *in = NULL, *ours = NULL;
	uint8_t dmac[6], smac[6];
	bool has_d = false, has_s = false, mac6;
	uint8_t group[6];
	uint32_t l3;
	uint64_t n = 0, checked = 0;
	int status = 2;

	if (argc < 4 || (strcmp(argv[1], "mac6") && strcmp(argv[1], "padlen")) ||
	    (!strcmp(argv[1], "padlen") && argc != 4) || argc > 6) {
		fprintf(stderr, "usage: edcheck mac6 INPUT OURS [DMAC|-] [SMAC|-] | edcheck padlen INPUT OURS\n");
		return 2;
	}
	mac6 = !strcmp(argv[1], "mac6");
	if (argc > 4)
		has_d = parse_mac(argv[4], dmac);
	if (argc > 5)
		has_s = parse_mac(argv[5], smac);
	if (trace_open(&in, argv[2], NULL) < 0 || trace_open(&ours, argv[3], NULL) < 0) {
		fprintf(stderr, "edcheck: %s\n", trace_strerror(ours ? ours : in));
		goto out;
	}
	for (;;) {
		struct pkt a, b;
		int ra = trace_next(in, &a), rb = trace_next(ours, &b);

		if (ra < 0 || rb < 0) {
			fprintf(stderr, "edcheck: %s\n", trace_strerror(ra < 0 ? in : ours));
			goto out;
		}
		if (!ra && !rb)
			break;
		n++;
		status = 1;
		if (ra != rb) {
			printf("frame %" PRIu64 ": one trace ends here\n", n);
			goto out;
		}
		if (!mac6) {
			if (b.caplen != a.wirelen) {
				printf("frame %" PRIu64 ": %u bytes, but %u on the wire in the input\n", n,
				       b.caplen, a.wirelen);
				goto out;
			}
			checked++;
			continue;
		}
		if (!is_ipv6(&b, &l3) || b.caplen < 12 || a.caplen < 12)
			continue;
		/* tcprewrite 4.6 (and replay) give a multicast destination its group's MAC, RFC 2464, 7. */
		if (l3 + 40 <= b.caplen && b.data[l3 + 24] == 0xff) {
			memcpy(group, (const uint8_t[]){ 0x33, 0x33 }, 2);
			memcpy(group + 2, b.data + l3 + 36, 4);
		}
		if (memcmp(b.data, l3 + 40 <= b.caplen && b.data[l3 + 24] == 0xff ? group : has_d ? dmac : a.data, 6) ||
		    memcmp(b.data + 6, has_s ? smac : a.data + 6, 6)) {
			printf("frame %" PRIu64 ": wrong MAC address\n", n);
			goto out;
		}
		checked++;
	}
	if (mac6)
		printf("%" PRIu64 " IPv6 frames' MACs right\n", checked);
	else
		printf("%" PRIu64 " frames at their wire length\n", checked);
	status = 0;
out:
	trace_close(in);
	trace_close(ours);
	return status;
}
