// SPDX-License-Identifier: BSD-2-Clause
/*
 * The impairment options of replay (replay/opts.h, struct opts_impair):
 * --impair FILE [--impair-flow FILTER] (repeatable), --impair-repeat,
 * --impair-default, and netem's options (--loss, --delay, ..., or all at
 * once as --impair-stat "SPEC"), each adding its clause to one statistical
 * model through impair_stat_parse(), so that they mean exactly what
 * tc-netem(8)'s words mean.  Each parser sees the whole struct:
 * --impair-flow, --impair-repeat and --impair-default bind to the --impair
 * before it; the last two, given before any --impair, set what every trace
 * without its own takes.
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

/* --impair-repeat N: a whole number as every count (opt_parse_u64()). */
int opts_impair_repeat(void *f, const char *arg, char *err, size_t len)
{
	struct opts_impair *m = f;
	struct opts_impair_src *t = m->n ? &m->src[m->n - 1] : NULL;
	uint64_t v;

	if (t && t->repeat_given)
		return opts_fail(err, len, "'%s': --impair %s has a repeat count already", arg, t->path);
	if (opt_parse_u64(arg, OPT_NUM_HEX, 0, UINT64_MAX, &v, err, len) < 0)
		return -EINVAL;
	if (t) {
		t->repeat = v;
		t->repeat_given = true;
	} else {
		m->repeat = v;
		m->repeat_given = true;
	}
	return 0;
}

/* One netem clause, "@word @arg", into the model; @opt is the option that gave it. */
static int clause(struct opts_impair *m, const char *opt, const char *word, const char *arg, char *err,
		  size_t len)
{
	char spec[1024], why[256];
	size_t n = strlen(arg);

	if (!n)
		return opts_fail(err, len, "an empty value");
	/* Blanks separate the clause's words; around them they are no documented form. */
	if (strchr(" \t", arg[0]) || strchr(" \t", arg[n - 1]))
		return opts_fail(err, len, "'%s': blanks before or after the value", arg);
	if (!m->stat_given) {
		impair_stat_init(&m->stat);
		m->stat_given = true;
		m->stat_opt = opt;
	}
	if (snprintf(spec, sizeof(spec), "%s%s%s", word, *word ? " " : "", arg) >= (int)sizeof(spec))
		return opts_fail(err, len, "'%.40s...': too long", arg);
	if (impair_stat_parse(spec, &m->stat, why, sizeof(why)) < 0)
		return opts_fail(err, len, "'%s': %s", arg, why);
	return 0;
}

#define CLAUSE(fn, opt, word)                                                                     \
	int fn(void *f, const char *arg, char *err, size_t len)                                   \
	{                                                                                          \
		return clause(f, opt, word, arg, err, len);                                        \
	}
CLAUSE(opts_impair_stat, "--impair-stat", "")
CLAUSE(opts_impair_loss, "--loss", "loss")
CLAUSE(opts_impair_delay, "--delay", "delay")
CLAUSE(opts_impair_dist, "--delay-distribution", "distribution")
CLAUSE(opts_impair_duplicate, "--duplicate", "duplicate")
CLAUSE(opts_impair_corrupt, "--corrupt", "corrupt")
CLAUSE(opts_impair_reorder, "--reorder", "reorder")
CLAUSE(opts_impair_rate, "--rate", "rate")

int opts_impair_check(struct opts_impair *m, char *err, size_t len)
{
	/* A model whose clauses impair nothing ("--corrupt 0%", a distribution alone) is a mistake. */
	if (m->stat_given && !impair_stat_active(&m->stat) && !m->n)
		return opts_fail(err, len, "%s impairs nothing: give --loss, --delay, --duplicate, --corrupt, --reorder "
				 "or --rate above 0", m->stat_opt);
	if (!m->dflt_given)
		impair_action_pass(&m->dflt);
	/* A trace without its own --impair-repeat / --impair-default takes the global ones. */
	for (unsigned i = 0; i < m->n; i++) {
		if (!m->src[i].repeat_given)
			m->src[i].repeat = m->repeat;
		if (!m->src[i].dflt_given)
			m->src[i].dflt = m->dflt;
	}
	if (!m->limit)
		m->limit = m->stat_given ? m->stat.limit : IMPAIR_LIMIT_DEFAULT;
	return 0;
}
