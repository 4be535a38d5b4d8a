// SPDX-License-Identifier: BSD-2-Clause
/*
 * The impairment options of replay (replay/opts.h, struct opts_impair):
 * --impair FILE [--impair-flow FILTER] (repeatable), --impair-repeat,
 * --impair-default, --impair-seed, --impair-limit, and netem's options
 * (--loss, --delay, --delay-distribution, --duplicate, --corrupt,
 * --reorder, --rate, or all of them at once as --impair-stat "SPEC"), each
 * of which adds its clause to one statistical model through
 * impair_stat_parse(), so that they mean exactly what tc-netem(8)'s words
 * mean.  Each parser sees the whole struct: --impair-flow, --impair-repeat
 * and --impair-default bind to the --impair before it; the last two, given
 * before any --impair, set what every trace without its own takes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "replay/opts.h"

int opts_impair_add(void *f, const char *arg, char *err, size_t len)
{
	struct opts_impair *m = f;

	if (m->n >= OPTS_IMPAIR_MAX)
		return opts_fail(err, len, "'%s': at most %d impairment traces", arg, OPTS_IMPAIR_MAX);
	m->src[m->n].path = arg;
	m->src[m->n].filter = NULL;
	m->n++;
	return 0;
}

int opts_impair_flow(void *f, const char *arg, char *err, size_t len)
{
	struct opts_impair *m = f;

	if (!m->n)
		return opts_fail(err, len, "'%s': --impair-flow binds to the --impair FILE before it; give that first", arg);
	if (m->src[m->n - 1].filter)
		return opts_fail(err, len, "'%s': --impair %s has a filter already", arg, m->src[m->n - 1].path);
	if (!*arg)
		return opts_fail(err, len, "an empty filter");
	m->src[m->n - 1].filter = arg;
	return 0;
}

int opts_impair_default(void *f, const char *arg, char *err, size_t len)
{
	struct opts_impair *m = f;
	struct opts_impair_src *t = m->n ? &m->src[m->n - 1] : NULL;
	struct impair_action a;
	char why[200];

	if (t && t->dflt_given)
		return opts_fail(err, len, "'%s': --impair %s has a default action already", arg, t->path);
	if (impair_action_parse(arg, &a, why, sizeof(why)) < 0)
		return opts_fail(err, len, "'%s': %s", arg, why);
	if (t) {
		t->dflt = a;
		t->dflt_given = true;
	} else {
		m->dflt = a;
		m->dflt_given = true;
	}
	return 0;
}

/* --impair-repeat N: decimal or 0x hexadecimal, as the other counts. */
int opts_impair_repeat(void *f, const char *arg, char *err, size_t len)
{
	struct opts_impair *m = f;
	struct opts_impair_src *t = m->n ? &m->src[m->n - 1] : NULL;
	bool hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	uint64_t v;
	char *end;

	if (t && t->repeat_given)
		return opts_fail(err, len, "'%s': --impair %s has a repeat count already", arg, t->path);
	errno = 0;
	if (*arg < '0' || *arg > '9' || (hex && !arg[2]) || (!hex && arg[0] == '0' && arg[1]))
		return opts_fail(err, len, "'%s' is not a count (decimal without a leading 0, or 0x hexadecimal)",
				 arg);
	v = strtoull(hex ? arg + 2 : arg, &end, hex ? 16 : 10);
	if (*end || errno == ERANGE)
		return opts_fail(err, len, "'%s' is not a count (0 .. %" PRIu64 ")", arg, UINT64_MAX);
	if (t) {
		t->repeat = v;
		t->repeat_given = true;
	} else {
		m->repeat = v;
		m->repeat_given = true;
	}
	return 0;
}

/* One netem clause, "@word @arg", into the model. */
static int clause(struct opts_impair *m, const char *word, const char *arg, char *err, size_t len)
{
	char spec[1024], why[256];

	if (!*arg)
		return opts_fail(err, len, "an empty value");
	if (!m->stat_given) {
		impair_stat_init(&m->stat);
		m->stat_given = true;
	}
	if (snprintf(spec, sizeof(spec), "%s%s%s", word, *word ? " " : "", arg) >= (int)sizeof(spec))
		return opts_fail(err, len, "'%.40s...': too long", arg);
	if (impair_stat_parse(spec, &m->stat, why, sizeof(why)) < 0)
		return opts_fail(err, len, "'%s': %s", arg, why);
	return 0;
}

int opts_impair_stat(void *f, const char *arg, char *err, size_t len)
{
	return clause(f, "", arg, err, len);
}

#define CLAUSE(fn, word)                                                                          \
	int fn(void *f, const char *arg, char *err, size_t len)                                   \
	{                                                                                          \
		return clause(f, word, arg, err, len);                                             \
	}
CLAUSE(opts_impair_loss, "loss")
CLAUSE(opts_impair_delay, "delay")
CLAUSE(opts_impair_dist, "distribution")
CLAUSE(opts_impair_duplicate, "duplicate")
CLAUSE(opts_impair_corrupt, "corrupt")
CLAUSE(opts_impair_reorder, "reorder")
CLAUSE(opts_impair_rate, "rate")

int opts_impair_check(struct opts_impair *m, char *err, size_t len)
{
	bool any = m->n || m->stat_given;

	if (m->stat_given && !impair_stat_active(&m->stat) && !m->n)
		return opts_fail(err, len, "--delay-distribution (or --impair-stat) alone impairs nothing: give --delay, --loss, ...");
	if (!m->n && m->repeat_given)
		return opts_fail(err, len, "--impair-repeat repeats an impairment trace: give --impair FILE");
	if (!m->n && m->dflt_given)
		return opts_fail(err, len, "--impair-default is the action once an impairment trace runs out: give --impair FILE");
	if (!any && (m->seed || m->limit))
		return opts_fail(err, len, "--%s: no impairment given (--impair FILE, --loss, --delay, ...)",
				 m->seed ? "impair-seed" : "impair-limit");
	if (!m->dflt_given)
		impair_action_pass(&m->dflt);
	if (!m->repeat_given)
		m->repeat = 1;
	/* A trace without its own --impair-repeat / --impair-default takes the global ones. */
	for (unsigned i = 0; i < m->n; i++) {
		if (!m->src[i].repeat_given)
			m->src[i].repeat = m->repeat;
		if (!m->src[i].dflt_given)
			m->src[i].dflt = m->dflt;
	}
	if (!m->limit)
		m->limit = m->stat_given ? m->stat.limit : 1000;
	return 0;
}
