// SPDX-License-Identifier: BSD-2-Clause
/*
 * splitdump: the side of every packet of a trace, one per line ("1", "2", or
 * "0" for a cache entry without the send bit), for the split tests to diff.
 *
 *   splitdump MODE TRACE       as split_classify() decides (with the pass
 *                              over the whole trace first where MODE needs one)
 *   splitdump -c CACHE TRACE   as a tcpprep cache file says, after checking it
 *                              describes exactly TRACE's packets
 *
 * Exit 0, or 1 with a one-line error on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "replay/split.h"
#include "replay/trace.h"

static int count(const char *path, uint64_t *n)
{
	struct trace *t;
	struct pkt p;
	int rc;

	*n = 0;
	if (trace_open(&t, path, NULL) < 0) {
		fprintf(stderr, "splitdump: %s: %s\n", path, trace_strerror(t));
		trace_close(t);
		return -1;
	}
	while ((rc = trace_next(t, &p)) > 0)
		(*n)++;
	if (rc < 0)
		fprintf(stderr, "splitdump: %s: %s\n", path, trace_strerror(t));
	trace_close(t);
	return rc;
}

static int from_cache(const char *cache, const char *path)
{
	struct split_cache *c;
	char err[512];
	uint64_t n;

	if (split_cache_read(&c, cache, err, sizeof(err)) < 0) {
		fprintf(stderr, "splitdump: %s\n", err);
		return 1;
	}
	if (count(path, &n) < 0 || split_cache_check(c, n, err, sizeof(err)) < 0) {
		if (n)
			fprintf(stderr, "splitdump: %s: %s\n", cache, err);
		split_cache_free(c);
		return 1;
	}
	for (uint64_t i = 1; i <= n; i++)
		printf("%d\n", split_cache_side(c, i));
	split_cache_free(c);
	return 0;
}

static int pass(struct split *s, const char *path, bool learn)
{
	struct trace *t;
	struct pkt p;
	int rc;

	if (trace_open(&t, path, NULL) < 0) {
		fprintf(stderr, "splitdump: %s: %s\n", path, trace_strerror(t));
		trace_close(t);
		return -1;
	}
	while ((rc = trace_next(t, &p)) > 0) {
		if (learn) {
			if (split_learn(s, &p) < 0) {
				fprintf(stderr, "splitdump: %s: %s\n", path, split_strerror(s));
				rc = -1;
				break;
			}
		} else {
			printf("%d\n", split_classify(s, &p));
		}
	}
	if (rc < 0 && !learn)
		fprintf(stderr, "splitdump: %s: %s\n", path, trace_strerror(t));
	trace_close(t);
	return rc;
}

int main(int argc, char **argv)
{
	struct split *s;
	char err[512];
	int rc = 1;

	if (argc == 4 && !strcmp(argv[1], "-c"))
		return from_cache(argv[2], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: splitdump MODE TRACE | splitdump -c CACHE TRACE\n");
		return 1;
	}
	if (split_open(&s, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "splitdump: %s\n", err);
		return 1;
	}
	if (split_needs_pass(s)) {
		if (pass(s, argv[2], true) < 0)
			goto out;
		if (split_learn_done(s) < 0) {
			fprintf(stderr, "splitdump: %s: %s\n", argv[2], split_strerror(s));
			goto out;
		}
	}
	if (pass(s, argv[2], false) >= 0)
		rc = 0;
out:
	split_close(s);
	return rc;
}
