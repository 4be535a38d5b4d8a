// SPDX-License-Identifier: BSD-2-Clause
/*
 * The option table and the parser and --help generated from it.  To add an
 * option: add a field to struct opts, a row here in its group, a line to the
 * man page's OPTIONS and to README.md.  Options that tcpreplay also has keep
 * tcpreplay's names and meanings, so that users' command lines carry over.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/opts.h"

#define F(field) offsetof(struct opts, field)

static const struct opt_def table[] = {
	/* timing */
	{ "topspeed", 't', OPT_T_SET, F(mode), SCHED_MODE_TOPSPEED, 0, 0, NULL, OPT_GRP_TIMING,
	  "send as fast as the interface takes packets, ignoring timestamps" },

	/* transmission */
	{ "intf1", 'i', OPT_T_STR, F(intf1), 0, 0, 0, "IF", OPT_GRP_TX,
	  "send on interface IF (AF_PACKET; needs CAP_NET_RAW)" },
	{ "write", 'w', OPT_T_STR, F(write_path), 0, 0, 0, "FILE", OPT_GRP_TX,
	  "dry run: write the frames to a nanosecond pcap FILE ('-' = stdout) instead" },

	/* loops and limits */
	{ "loop", 'l', OPT_T_U64, F(loop), 0, 0, UINT64_MAX, "N", OPT_GRP_LOOP,
	  "play the file list N times (0 = forever; default 1)" },
	{ "limit", 'L', OPT_T_U64, F(limit), 0, 1, UINT64_MAX, "N", OPT_GRP_LOOP,
	  "stop after sending N packets" },

	/* statistics and output */
	{ "stats-json", 0, OPT_T_STR, F(stats_json), 0, 0, 0, "FILE", OPT_GRP_STATS,
	  "write the run's statistics as JSON to FILE ('-' = stdout)" },
	{ "quiet", 'q', OPT_T_FLAG, F(quiet), 0, 0, 0, NULL, OPT_GRP_STATS,
	  "print no summary and no warnings" },
	{ "verbose", 'v', OPT_T_COUNT, F(verbose), 0, 0, 0, NULL, OPT_GRP_STATS,
	  "say more (repeat for debug output)" },

	/* misc */
	{ "help", 'h', OPT_T_FLAG, F(help), 0, 0, 0, NULL, OPT_GRP_MISC, "show this help and exit" },
	{ "version", 'V', OPT_T_FLAG, F(version), 0, 0, 0, NULL, OPT_GRP_MISC,
	  "show the version and exit" },
};

static const char *const group_title[OPT_GRP_MAX] = {
	[OPT_GRP_INPUT] = "Input",
	[OPT_GRP_TIMING] = "Timing",
	[OPT_GRP_TX] = "Transmission",
	[OPT_GRP_EDIT] = "Editing",
	[OPT_GRP_LOOP] = "Loops and limits",
	[OPT_GRP_STATS] = "Statistics and output",
	[OPT_GRP_MISC] = "Miscellaneous",
};

static const struct opts defaults = {
	.mode = SCHED_MODE_TRACE,
	.loop = 1,
};

const struct opt_def *opts_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

static int fail(char *err, size_t len, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_u64(const struct opt_def *d, const char *arg, uint64_t *v, char *err, size_t len)
{
	char *end;

	errno = 0;
	/* strtoull accepts "-1" as a huge number: refuse any sign up front. */
	if (!*arg || *arg == '-' || *arg == '+' || *arg == ' ')
		return fail(err, len, "--%s: '%s' is not a non-negative integer", d->name, arg);
	*v = strtoull(arg, &end, 10);
	if (*end)
		return fail(err, len, "--%s: '%s' is not a non-negative integer", d->name, arg);
	if (errno == ERANGE || *v < d->min || *v > d->max)
		return fail(err, len, "--%s: %s is out of range (%" PRIu64 "..%" PRIu64 ")", d->name,
			    arg, d->min, d->max);
	return 0;
}

static int apply(struct opts *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	char *field = (char *)o + d->off;

	switch (d->type) {
	case OPT_T_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_T_SET:
		*(int *)field = (int)d->val;
		return 0;
	case OPT_T_COUNT:
		(*(int *)field)++;
		return 0;
	case OPT_T_STR:
		if (!*arg)
			return fail(err, len, "--%s: empty argument", d->name);
		*(const char **)field = arg;
		return 0;
	case OPT_T_U64:
		return parse_u64(d, arg, (uint64_t *)field, err, len);
	case OPT_T_DOUBLE: {
		char *end;
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (!*arg || *end || errno == ERANGE || !isfinite(v) || v <= 0)
			return fail(err, len, "--%s: '%s' is not a positive number", d->name, arg);
		*(double *)field = v;
		return 0;
	}
	case OPT_T_MAX:
		break;
	}
	return fail(err, len, "--%s: internal error: bad option type", d->name);
}

/* Checks that need every option at once. */
static int check(const struct opts *o, char *err, size_t len)
{
	if (o->help || o->version)
		return 0;
	if (o->intf1 && o->write_path)
		return fail(err, len, "-i and -w exclude each other: send on an interface or write a file");
	if (!o->intf1 && !o->write_path)
		return fail(err, len, "no output: give an interface (-i IF) or an output file (-w FILE)");
	if (o->nfiles == 0)
		return fail(err, len, "no trace file given");
	return 0;
}

int opts_parse(struct opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct option lopts[ARRAY_SIZE(table) + 1];
	char sopts[2 + 2 * ARRAY_SIZE(table) + 1];
	size_t ns = 0;
	int c, idx;

	*o = defaults;
	sopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		lopts[i] = (struct option){
			.name = table[i].name,
			.has_arg = table[i].metavar ? required_argument : no_argument,
			.flag = NULL,
			.val = 256 + (int)i,
		};
		if (table[i].key) {
			sopts[ns++] = (char)table[i].key;
			if (table[i].metavar)
				sopts[ns++] = ':';
		}
	}
	sopts[ns] = '\0';
	lopts[ARRAY_SIZE(table)] = (struct option){ 0 };

	optind = 0; /* full reset of getopt's state: opts_parse may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, &idx)) != -1) {
		const struct opt_def *d = NULL;
		int rc;

		if (c == '?') {
			if (optopt)
				return fail(err, errlen, "unknown option '-%c' (try --help)", optopt);
			return fail(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
		}
		if (c == ':')
			return fail(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
		if (c >= 256) {
			d = &table[c - 256];
		} else {
			for (size_t i = 0; i < ARRAY_SIZE(table); i++)
				if (table[i].key == c)
					d = &table[i];
		}
		if (!d)
			return fail(err, errlen, "internal error: option %d not in the table", c);
		rc = apply(o, d, optarg, err, errlen);
		if (rc < 0)
			return rc;
	}
	o->files = argv + optind;
	o->nfiles = argc - optind;
	return check(o, err, errlen);
}

void opts_usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s [options] FILE...\n", prog);
	fprintf(f, "Replay packet traces onto a network interface, at their recorded timing or a chosen rate.\n");
	for (int g = 0; g < OPT_GRP_MAX; g++) {
		bool header = false;

		for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
			const struct opt_def *d = &table[i];
			char left[64];
			int n;

			if ((int)d->group != g)
				continue;
			if (!header) {
				fprintf(f, "\n%s:\n", group_title[g]);
				header = true;
			}
			if (d->key)
				n = snprintf(left, sizeof(left), "-%c, --%s", d->key, d->name);
			else
				n = snprintf(left, sizeof(left), "    --%s", d->name);
			if (d->metavar && n > 0 && (size_t)n < sizeof(left))
				snprintf(left + n, sizeof(left) - (size_t)n, " %s", d->metavar);
			fprintf(f, "  %-26s %s\n", left, d->help);
		}
	}
	fprintf(f, "\nExit status: 0 done, 1 runtime or input error or any packet failed, 2 usage error,\n"
		   "130/143 stopped by SIGINT/SIGTERM.  See replay(1).\n");
}
