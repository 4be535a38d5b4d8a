// SPDX-License-Identifier: BSD-2-Clause
/*
 * edit_bench: the edit chain's cost per packet, nothing else.  Reads a trace
 * into memory, builds the chain from replay's own edit options, and runs
 * every packet through edit_chain_apply() N times, timing the loop.
 *
 *   edit_bench [-n PASSES] TRACE [replay edit options, --prep FILE]
 *
 * Prints "ns_per_pkt=X pkts=N".  Under callgrind, use
 * --toggle-collect=edit_chain_apply to count the chain's instructions only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/edit.h"
#include "replay/opts.h"
#include "replay/trace.h"

int main(int argc, char **argv)
{
	long passes = 200;
	char *av[64] = { "replay", "-w", "/dev/null" };
	int ac = 3, i = 1;
	struct opts o;
	char err[512];
	struct trace *t = NULL;
	struct edit_chain *c = NULL;
	struct edit_prep *prep = NULL;
	struct pkt *pk = NULL;
	size_t n = 0, cap = 0;
	struct timespec a, b;
	struct pkt p;
	uint64_t kept = 0;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		passes = atol(argv[2]);
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: edit_bench [-n PASSES] TRACE [edit options]\n");
		return 2;
	}
	for (int k = i + 1; k < argc && ac < 62; k++)
		av[ac++] = argv[k];
	av[ac++] = argv[i];
	if (opts_parse(&o, ac, av, err, sizeof(err)) < 0) {
		fprintf(stderr, "edit_bench: %s\n", err);
		return 2;
	}
	if (trace_open(&t, argv[i], &(struct trace_cfg){ .preload = true }) < 0) {
		fprintf(stderr, "edit_bench: %s\n", trace_strerror(t));
		return 1;
	}
	/* Keep every view: with --preload the bytes stay put until trace_close(). */
	while (trace_next(t, &p) == 1) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			pk = realloc(pk, cap * sizeof(*pk));
		}
		pk[n++] = p;
	}
	if (edit_chain_new(&c, &o.edit) < 0) {
		fprintf(stderr, "edit_bench: %s\n", edit_chain_strerror(c));
		return 1;
	}
	if (o.prep_path) {
		if (edit_prep_open(&prep, o.prep_path, argv[i], &o.edit, err, sizeof(err)) < 0) {
			fprintf(stderr, "edit_bench: %s\n", err);
			return 1;
		}
		edit_chain_use_prep(c, prep);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long r = 0; r < passes; r++)
		for (size_t k = 0; k < n; k++) {
			struct pkt q = pk[k];

			kept += edit_chain_apply(c, &q) == EDIT_KEEP;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns_per_pkt=%.1f pkts=%llu kept=%llu\n",
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / ((double)n * (double)passes),
	       (unsigned long long)(n * (size_t)passes), (unsigned long long)kept);
	edit_prep_close(prep);
	edit_chain_free(c);
	trace_close(t);
	free(pk);
	return 0;
}
