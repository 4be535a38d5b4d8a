// SPDX-License-Identifier: BSD-2-Clause
/*
 * pcapfault: a copy of a trace with faults put in, for the receiver's
 * fault-injection tests.
 *
 *   pcapfault IN OUT [--drop N]... [--dup N]... [--swap N]...
 *
 * N is a record number of IN, from 1.  --drop leaves record N out, --dup
 * writes it twice in a row, --swap writes record N+1 before record N.  Each
 * record keeps its own timestamp and bytes.  OUT is a nanosecond pcap.
 * Exit 0 done, 1 read or write error, 2 usage error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/trace.h"

#define MAX_FAULTS 64

struct rec {
	uint8_t *data;
	uint32_t caplen, wirelen;
	uint64_t ts_ns;
};

static int usage(void)
{
	fprintf(stderr, "usage: pcapfault IN OUT [--drop N]... [--dup N]... [--swap N]...\n");
	return 2;
}

static int has(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int put(FILE *f, const struct rec *r)
{
	uint32_t h[4] = { (uint32_t)(r->ts_ns / 1000000000u), (uint32_t)(r->ts_ns % 1000000000u),
			  r->caplen, r->wirelen };

	return fwrite(h, sizeof(h), 1, f) == 1 && fwrite(r->data, 1, r->caplen, f) == r->caplen;
}

int main(int argc, char **argv)
{
	uint64_t drop[MAX_FAULTS], dup[MAX_FAULTS], swap[MAX_FAULTS];
	size_t nd = 0, nu = 0, ns = 0, n = 0, cap = 0;
	/* pcap file header: ns magic, version 2.4, snaplen 262144, Ethernet; host order. */
	const uint32_t hdr[6] = { 0xa1b23c4du, 2u | 4u << 16, 0, 0, TRACE_RECORD_MAX_BYTES, 1 };
	struct rec *recs = NULL;
	struct trace *t = NULL;
	struct pkt p;
	FILE *f = NULL;
	int rc, status = 1;

	if (argc < 3 || (argc - 3) % 2)
		return usage();
	for (int i = 3; i < argc; i += 2) {
		uint64_t v = strtoull(argv[i + 1], NULL, 10);

		if (!v || nd == MAX_FAULTS || nu == MAX_FAULTS || ns == MAX_FAULTS)
			return usage();
		if (!strcmp(argv[i], "--drop"))
			drop[nd++] = v;
		else if (!strcmp(argv[i], "--dup"))
			dup[nu++] = v;
		else if (!strcmp(argv[i], "--swap"))
			swap[ns++] = v;
		else
			return usage();
	}
	if (trace_open(&t, argv[1], NULL) < 0) {
		fprintf(stderr, "pcapfault: %s\n", t ? trace_strerror(t) : "out of memory");
		goto out;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		if (n == cap) {
			struct rec *r = realloc(recs, (cap = cap ? 2 * cap : 1024) * sizeof(*recs));

			if (!r)
				goto out;
			recs = r;
		}
		recs[n] = (struct rec){ .data = malloc(p.caplen ? p.caplen : 1), .caplen = p.caplen,
					.wirelen = p.wirelen, .ts_ns = p.ts_ns };
		if (!recs[n].data)
			goto out;
		memcpy(recs[n].data, p.data, p.caplen);
		n++;
	}
	if (rc < 0) {
		fprintf(stderr, "pcapfault: %s\n", trace_strerror(t));
		goto out;
	}
	for (size_t i = 0; i < ns; i++) {
		struct rec tmp;

		if (swap[i] >= n) {
			fprintf(stderr, "pcapfault: --swap %" PRIu64 ": %s has %zu records\n", swap[i],
				argv[1], n);
			goto out;
		}
		tmp = recs[swap[i] - 1];
		recs[swap[i] - 1] = recs[swap[i]];
		recs[swap[i]] = tmp;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(hdr, sizeof(hdr), 1, f) != 1) {
		perror(argv[2]);
		goto out;
	}
	/* Faults name records of IN: a swapped pair keeps its numbers for --drop and --dup. */
	for (size_t i = 0; i < n; i++) {
		uint64_t recno = i + 1;

		if (has(swap, ns, recno))
			recno = i + 2;
		else if (i && has(swap, ns, i))
			recno = i;
		if (has(drop, nd, recno))
			continue;
		if (!put(f, &recs[i]) || (has(dup, nu, recno) && !put(f, &recs[i]))) {
			perror(argv[2]);
			goto out;
		}
	}
	if (fclose(f) != 0) {
		f = NULL;
		perror(argv[2]);
		goto out;
	}
	f = NULL;
	status = 0;
out:
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++)
		free(recs[i].data);
	free(recs);
	trace_close(t);
	return status;
}
