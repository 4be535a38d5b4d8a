// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rows' rules (replay/optparse.h, struct opt_rule): the one checker,
 * and the two places they are shown from the same data -- --help and the
 * man page's OPTION RULES section.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "optparse_int.h"

static bool given_row(const struct opt_set *set, const void *cfg, size_t i)
{
	return i < OPT_ROWS_MAX && opt_bit(opt_given_of(set, cfg)->row, i);
}

/* Was @d or an alias of it given? */
static bool given_any(const struct opt_set *set, const void *cfg, const struct opt_def *d)
{
	for (size_t i = 0; i < set->n; i++)
		if (given_row(set, cfg, i) && opt_alias(&set->table[i], d))
			return true;
	return false;
}

static bool in_effect(const struct opt_set *set, const void *cfg, const struct opt_def *d)
{
	const char *field = (const char *)cfg + d->off;

	if (d->type == OPT_T_SET) {
		int v = 0;

		memcpy(&v, field, sizeof(v));
		return v == d->val || given_any(set, cfg, d);
	}
	return given_any(set, cfg, d) && memcmp(field, (const char *)set->defaults + d->off, d->size);
}

bool opt_given(const struct opt_set *set, const void *cfg, const char *name)
{
	const struct opt_def *d = opt_row_named(set, name);

	return d && given_any(set, cfg, d);
}

bool opt_in_effect(const struct opt_set *set, const void *cfg, const char *name)
{
	const struct opt_def *d = opt_row_named(set, name);

	return d && in_effect(set, cfg, d);
}

static const struct opt_cond *cond_named(const struct opt_set *set, const char *name)
{
	for (const struct opt_cond *c = set->conds; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The next blank-separated name of *@s into @buf (empty at the end); *@s moves past it. */
static const char *next_name(const char **s, char *buf, size_t len)
{
	size_t n;

	*s += strspn(*s, " ");
	n = strcspn(*s, " ");
	snprintf(buf, len, "%.*s", (int)n, *s);
	*s += n;
	return buf;
}

/* Is @d's argument worth repeating in a refusal ("--timer sleep", "--threads 2"; not a path)? */
static bool shows_arg(const struct opt_def *d)
{
	return d->type == OPT_T_UINT || d->type == OPT_T_SIZE || d->type == OPT_T_DOUBLE || d->type == OPT_T_ENUM ||
	       d->type == OPT_T_FUNC2;
}

/*
 * Target @name of a rule, in @cfg: whether it is in effect, and its name --
 * with @as_given the row given that put it in effect, spelled as given
 * (with a number or name it took), else its long name (or the condition's
 * text).
 */
static bool target(const struct opt_set *set, const void *cfg, const char *name, bool as_given, char *buf,
		   size_t len)
{
	const struct opt_cond *c = name[0] == '@' ? cond_named(set, name + 1) : NULL;
	const struct opt_def *d = c ? NULL : opt_row_named(set, name);

	if (c) {
		snprintf(buf, len, "%s", c->text);
		return c->on(cfg);
	}
	if (!d) {
		snprintf(buf, len, "(no option --%s)", name);
		return false;
	}
	snprintf(buf, len, "--%s", d->name);
	for (size_t i = 0; i < set->n && as_given; i++)
		if (given_row(set, cfg, i) && opt_alias(&set->table[i], d))
			opt_spelled(set, cfg, &set->table[i], shows_arg(&set->table[i]), buf, len);
	return in_effect(set, cfg, d);
}

/* "a, b, c" into "a, b or c", in place (@list has room for the one byte more). */
static void or_last(char *list, size_t size)
{
	char *last = strrchr(list, ',');

	if (last && strlen(list) + 2 < size) {
		memmove(last + 3, last + 1, strlen(last + 1) + 1);
		memcpy(last, " or", 3);
	}
}

static int check_rule(const struct opt_set *set, const void *cfg, const struct opt_def *d,
		      const struct opt_rule *r, char *err, size_t len)
{
	char subject[96], name[64], one[96], list[256] = "";
	const char *s = r->names;
	size_t k = 0;

	opt_spelled(set, cfg, d, false, subject, sizeof(subject));
	while (*next_name(&s, name, sizeof(name))) {
		bool on = target(set, cfg, name, r->kind == OPT_RULE_EXCLUDES, one, sizeof(one));

		if (r->kind == OPT_RULE_EXCLUDES && on)
			return opts_fail(err, len, "%s excludes %s: %s", subject, one, r->why);
		if (r->kind == OPT_RULE_NEEDS && on)
			return 0;
		if (k < sizeof(list))
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", k ? ", " : "", one);
	}
	if (r->kind != OPT_RULE_NEEDS)
		return 0;
	or_last(list, sizeof(list));
	return opts_fail(err, len, "%s needs %s: %s", subject, list, r->why);
}

int opts_set_check(const struct opt_set *set, const void *cfg, char *err, size_t errlen)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];

		if (!given_row(set, cfg, i) || !d->rules)
			continue;
		for (const struct opt_rule *r = d->rules; r->kind != OPT_RULE_END; r++)
			if (check_rule(set, cfg, d, r, err, errlen) < 0)
				return -EINVAL;
	}
	return 0;
}

/* Does rule @r name @name? */
static bool rule_names(const struct opt_rule *r, const char *name)
{
	const char *s = r->names;
	char buf[64];

	while (*next_name(&s, buf, sizeof(buf)))
		if (!strcmp(buf, name))
			return true;
	return false;
}

const char *opts_set_excluder(const struct opt_set *set, const void *cfg, const char *name, char *buf,
			      size_t len)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];

		if (!given_row(set, cfg, i) || !d->rules)
			continue;
		for (const struct opt_rule *r = d->rules; r->kind != OPT_RULE_END; r++)
			if (r->kind == OPT_RULE_EXCLUDES && rule_names(r, name))
				return opt_spelled(set, cfg, d, false, buf, len);
	}
	return NULL;
}

/* ---- shown: --help and the man page ------------------------------------ */

/* @name as --help and the man page name it: a row's long name, a condition's text. */
static const char *shown(const struct opt_set *set, const char *name, char *buf, size_t len)
{
	const struct opt_cond *c = name[0] == '@' ? cond_named(set, name + 1) : NULL;

	if (c)
		snprintf(buf, len, "%s", c->text);
	else
		snprintf(buf, len, "--%s", name);
	return buf;
}

/* " (default X; needs A or B; not with C, D)" of row @d, or nothing: every exclusion in one list. */
static void usage_suffix(const struct opt_set *set, const struct opt_def *d, FILE *f)
{
	char buf[96], name[64], not_with[512] = "";
	const char *sep = " (";
	size_t k = 0;

	if (opt_def_dflt(set, d, buf, sizeof(buf))) {
		fprintf(f, "%sdefault %s", sep, buf);
		sep = "; ";
	}
	for (const struct opt_rule *r = d->rules; r && r->kind != OPT_RULE_END; r++) {
		const char *s = r->names;
		char needs[256] = "";
		size_t n = 0;

		while (*next_name(&s, name, sizeof(name))) {
			shown(set, name, buf, sizeof(buf));
			if (r->kind == OPT_RULE_NEEDS && n < sizeof(needs))
				n += (size_t)snprintf(needs + n, sizeof(needs) - n, "%s%s", n ? ", " : "", buf);
			else if (r->kind == OPT_RULE_EXCLUDES && k < sizeof(not_with))
				k += (size_t)snprintf(not_with + k, sizeof(not_with) - k, "%s%s", k ? ", " : "", buf);
		}
		if (r->kind == OPT_RULE_NEEDS) {
			or_last(needs, sizeof(needs));
			fprintf(f, "%sneeds %s", sep, needs);
			sep = "; ";
		}
	}
	if (k) {
		fprintf(f, "%snot with %s", sep, not_with);
		sep = "; ";
	}
	if (sep[0] == ';')
		fputc(')', f);
}

void opts_set_usage(const struct opt_set *set, FILE *f, const char *prog)
{
	const char *line = set->synopsis;

	/* One usage line per line of the synopsis, each after the program's name. */
	fprintf(f, "Usage: ");
	for (;;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		fprintf(f, "%s %.*s\n", prog, len, line);
		if (!nl)
			break;
		line = nl + 1;
		fprintf(f, "       ");
	}
	fprintf(f, "%s\n", set->about);
	for (unsigned g = 0; g < set->ngroups; g++) {
		bool header = false;

		for (size_t i = 0; i < set->n; i++) {
			const struct opt_def *d = &set->table[i];
			char left[64], list[256];
			int n;

			if (d->group != g)
				continue;
			if (!header) {
				fprintf(f, "\n%s:\n", set->group_title[g]);
				header = true;
			}
			if (d->key)
				n = snprintf(left, sizeof(left), "-%c, --%s", d->key, d->name);
			else
				n = snprintf(left, sizeof(left), "    --%s", d->name);
			if (d->metavar && n > 0 && (size_t)n < sizeof(left))
				snprintf(left + n, sizeof(left) - (size_t)n, " %s", d->metavar);
			fprintf(f, "  %-26s %s", left, d->help);
			if (d->type == OPT_T_ENUM) {
				/* The choices come from the module's own table, never from the help text. */
				opt_enum_list(d->choices, ", ", list, sizeof(list));
				fprintf(f, " (%s: %s)", d->metavar, list);
			}
			usage_suffix(set, d, f);
			fputc('\n', f);
		}
	}
	if (set->epilog)
		fprintf(f, "\n%s\n", set->epilog);
}

/* @s as roff text: dashes as \-, backslashes as \e. */
static void roff_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

/* One rule as mdoc: "Needs --a or --b: why." */
static void roff_rule(const struct opt_set *set, const struct opt_rule *r, FILE *f)
{
	const char *s = r->names;
	char name[64];
	unsigned n = 0;

	fprintf(f, ".No %s", r->kind == OPT_RULE_NEEDS ? "Needs" : "Not with");
	while (*next_name(&s, name, sizeof(name))) {
		const struct opt_cond *c = name[0] == '@' ? cond_named(set, name + 1) : NULL;

		fputs(n++ ? (r->kind == OPT_RULE_NEEDS ? " No or" : " ,") : "", f);
		if (c) {
			fputs(" No ", f);
			roff_text(f, c->text);
		} else {
			fputs(" Fl \\-", f);
			roff_text(f, name);
		}
	}
	fputs(" :\n", f);
	roff_text(f, r->why);
	fputs(strchr(".!?", r->why[strlen(r->why) - 1]) ? "\n" : ".\n", f);
}

void opts_set_rules_roff(const struct opt_set *set, FILE *f)
{
	fputs(".Bl -tag -width Ds\n", f);
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];

		if (!d->rules || d->rules[0].kind == OPT_RULE_END)
			continue;
		fputs(".It Fl \\-", f);
		roff_text(f, d->name);
		fputc('\n', f);
		for (const struct opt_rule *r = d->rules; r->kind != OPT_RULE_END; r++)
			roff_rule(set, r, f);
	}
	fputs(".El\n", f);
}
