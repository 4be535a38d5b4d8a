// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen-rules: the OPTION RULES section of replay(1) or replay-rx(1), written
 * from the programs' own option tables (opts_set_rules_roff()), so that the
 * man page says which options need or exclude which exactly as the checker
 * does.  tests/unit/test_opts.c and test_rx_opts.c fail when a man page
 * differs from its table.
 *
 *   gen-rules replay|replay-rx           print the generated list
 *   gen-rules replay|replay-rx MANPAGE   replace it in MANPAGE, between its markers
 *
 * "ninja -C build man-rules" runs the second form on both man pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/optparse.h"
#include "replay/opts.h"
#include "rx.h"

#define BEGIN_MARK ".\\\" BEGIN GENERATED OPTION RULES\n"
#define END_MARK ".\\\" END GENERATED OPTION RULES\n"

/* The whole of @path, NUL-terminated, or NULL with errno set. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while (m && (c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	if (!m || fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* @page with the text between its markers replaced by @rules, written to @path. */
static int splice(const char *path, const char *page, const char *rules)
{
	const char *b = strstr(page, BEGIN_MARK), *e = b ? strstr(b, END_MARK) : NULL;
	char tmp[4096];
	FILE *f;

	if (!e) {
		fprintf(stderr, "gen-rules: %s has no '%.*s' ... '%.*s' markers\n", path,
			(int)strlen(BEGIN_MARK) - 1, BEGIN_MARK, (int)strlen(END_MARK) - 1, END_MARK);
		return -EINVAL;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%.*s%s%s", (int)(b - page + strlen(BEGIN_MARK)), page, rules, e) < 0 || fclose(f) ||
	    rename(tmp, path)) {
		fprintf(stderr, "gen-rules: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct opt_set *set = NULL;
	char *rules = NULL, *page;
	size_t len = 0;
	FILE *m;
	int rc;

	if (argc == 2 || argc == 3)
		set = !strcmp(argv[1], "replay") ? opts_replay_set() : !strcmp(argv[1], "replay-rx") ? rx_opts_set() : NULL;
	if (!set) {
		fprintf(stderr, "usage: gen-rules replay|replay-rx [MANPAGE]\n");
		return 2;
	}
	m = open_memstream(&rules, &len);
	if (!m)
		return 1;
	opts_set_rules_roff(set, m);
	if (fclose(m))
		return 1;
	if (argc == 2) {
		fputs(rules, stdout);
		free(rules);
		return 0;
	}
	page = slurp(argv[2]);
	if (!page) {
		fprintf(stderr, "gen-rules: %s: %s\n", argv[2], strerror(errno));
		free(rules);
		return 1;
	}
	rc = splice(argv[2], page, rules);
	free(page);
	free(rules);
	return rc < 0;
}
