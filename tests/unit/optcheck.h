/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every row of an option set against the field it binds: the size the row
 * macro recorded is the size its type writes, the range fits the field, an
 * enum's values fit, an option takes an argument exactly when its type
 * needs one, every name a rule gives is a row or a condition, a default
 * shown is the default the struct holds.  (The row macros already refuse a
 * field of the wrong type at compile time; this catches a row written by
 * hand or a range too wide.)
 */
#ifndef TEST_OPTCHECK_H
#define TEST_OPTCHECK_H

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "replay/optparse.h"

/* Every name of @r is a row of @set or one of its "@" conditions, and the rule says why. */
static void optcheck_rule(const struct opt_set *set, const struct opt_def *d, const struct opt_rule *r)
{
	char names[512], *save = NULL;

	if (r->kind != OPT_RULE_NEEDS && r->kind != OPT_RULE_EXCLUDES)
		fail_msg("--%s: a rule of kind %d", d->name, (int)r->kind);
	if (!r->names || !r->why || !r->why[0] || strchr(r->why, '\n'))
		fail_msg("--%s: a rule needs names and a one-line reason", d->name);
	snprintf(names, sizeof(names), "%s", r->names);
	for (char *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		bool found = false;

		if (t[0] == '@') {
			for (const struct opt_cond *c = set->conds; c && c->name; c++)
				found |= !strcmp(c->name, t + 1);
		} else {
			for (size_t k = 0; k < set->n; k++)
				found |= !strcmp(set->table[k].name, t);
		}
		if (!found || !strcmp(t, d->name))
			fail_msg("--%s: its rule names '%s', which is no other option or condition", d->name, t);
	}
}

/* The field of @d in the set's defaults, as an unsigned number. */
static uint64_t optcheck_default(const struct opt_set *set, const struct opt_def *d)
{
	uint64_t v = 0;

	memcpy(&v, (const char *)set->defaults + d->off, d->size < sizeof(v) ? d->size : sizeof(v));
	return v; /* little-endian: the low bytes hold a narrower field's value */
}

static void optcheck_set(const struct opt_set *set)
{
	if (set->n > OPT_ROWS_MAX || set->given_off + sizeof(struct opt_given) > set->size)
		fail_msg("%zu rows, or the struct opt_given beyond the struct", set->n);
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];
		bool takes_arg = !(d->type == OPT_T_FLAG || d->type == OPT_T_SET || d->type == OPT_T_COUNT);
		uint64_t scale = d->scale ? d->scale : 1;

		if (!d->name || !d->help || d->group >= set->ngroups)
			fail_msg("row %zu: name, help and a group are required", i);
		if (d->off + d->size > set->size)
			fail_msg("--%s: field beyond the struct", d->name);
		if (takes_arg != (d->metavar != NULL))
			fail_msg("--%s: metavar given %s an argument", d->name, takes_arg ? "without" : "to a switch without");
		if (d->scale && d->type != OPT_T_UINT)
			fail_msg("--%s: only UINT rows scale", d->name);
		switch (d->type) {
		case OPT_T_FLAG:
			assert_int_equal(d->size, sizeof(bool));
			break;
		case OPT_T_SET:
		case OPT_T_COUNT:
			assert_int_equal(d->size, sizeof(int));
			break;
		case OPT_T_STR:
			assert_int_equal(d->size, sizeof(const char *));
			break;
		case OPT_T_UINT:
		case OPT_T_SIZE:
			if (d->size != 2 && d->size != 4 && d->size != 8)
				fail_msg("--%s: %zu-byte integer field", d->name, d->size);
			if (d->min > d->max)
				fail_msg("--%s: empty range", d->name);
			if (d->max > UINT64_MAX / scale)
				fail_msg("--%s: max times scale overflows", d->name);
			/* Narrow fields may be int: the stored value must stay below the sign bit. */
			if (d->size < 8 && d->max * scale >= (1ull << (8 * d->size - 1)))
				fail_msg("--%s: max %llu does not fit a %zu-byte field", d->name,
					 (unsigned long long)(d->max * scale), d->size);
			break;
		case OPT_T_DOUBLE:
			assert_int_equal(d->size, sizeof(double));
			if (!(isfinite(d->dmax) && d->dmax > 0 && d->dmax < 1.8e10))
				fail_msg("--%s: no sane upper bound (seconds * 1e9 must fit 64 bits)", d->name);
			break;
		case OPT_T_ENUM:
			if (d->size != 2 && d->size != 4)
				fail_msg("--%s: %zu-byte enum field", d->name, d->size);
			if (!d->choices || !d->choices[0].name)
				fail_msg("--%s: no choices", d->name);
			for (const struct opt_enum *e = d->choices; e->name; e++) {
				int v;

				if (e->value < 0 || (d->size == 2 && e->value > 0xffff))
					fail_msg("--%s: value of %s does not fit", d->name, e->name);
				/* Parsing the name the value is shown by gives the value back. */
				assert_int_equal(opt_enum_find(d->choices, opt_enum_name(d->choices, e->value), &v), 0);
				assert_int_equal(v, e->value);
			}
			break;
		case OPT_T_FUNC:
			if (!d->parse || d->size != d->want)
				fail_msg("--%s: parser fills %zu bytes, field has %zu", d->name, d->want, d->size);
			break;
		case OPT_T_FUNC2:
			if (!d->parse2 || d->size != d->want || d->size2 != d->want2 ||
			    d->off2 + d->size2 > set->size)
				fail_msg("--%s: parser fills %zu and %zu bytes, fields have %zu and %zu", d->name,
					 d->want, d->want2, d->size, d->size2);
			break;
		default:
			fail_msg("--%s: bad type %d", d->name, (int)d->type);
		}
		for (const struct opt_rule *r = d->rules; r && r->kind != OPT_RULE_END; r++)
			optcheck_rule(set, d, r);
		if (d->same_as) {
			bool found = false;

			for (size_t k = 0; k < set->n; k++)
				found |= !strcmp(set->table[k].name, d->same_as) && set->table[k].size == d->size;
			if (!found)
				fail_msg("--%s: same_as --%s, no option of its size", d->name, d->same_as);
		}
		if (d->agree) {
			bool shared = false;

			for (size_t k = 0; k < set->n; k++)
				shared |= k != i && set->table[k].off == d->off;
			if (!shared)
				fail_msg("--%s: agrees with no other option of its field", d->name);
		}
		/* A default shown from a module's constant is the struct's too, unless the struct leaves 0. */
		if (d->show_dflt && d->dflt && (d->type == OPT_T_UINT || d->type == OPT_T_SIZE) &&
		    optcheck_default(set, d) && optcheck_default(set, d) != d->dflt * scale)
			fail_msg("--%s: --help's default %llu, the struct's %llu", d->name,
				 (unsigned long long)d->dflt, (unsigned long long)optcheck_default(set, d));
		/* Every long name once; every short letter once. */
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(set->table[k].name, d->name))
				fail_msg("--%s twice", d->name);
			if (d->key && set->table[k].key == d->key)
				fail_msg("-%c twice", d->key);
		}
	}
}

/*
 * Does @text say that @v is the default: "default 1000", "1000 (the
 * default)", "1000 (default)", for a size "default 32 MiB" too; for a
 * name (@named), the name and the word "default" anywhere?
 */
static bool optcheck_says_default(const char *text, size_t len, const char *v, bool named)
{
	char want[4][96];
	size_t n = strlen(v);
	bool name = false, dflt = false;

	snprintf(want[0], sizeof(want[0]), "default %s", v);
	snprintf(want[1], sizeof(want[1]), "default %.*s %ciB", (int)(n - 1), v, n > 1 ? v[n - 1] : '?');
	snprintf(want[2], sizeof(want[2]), "%s (the default)", v);
	snprintf(want[3], sizeof(want[3]), "%s (default)", v);
	for (size_t i = 0; i < len; i++) {
		for (int k = 0; k < 4; k++)
			if (!named && !strncasecmp(text + i, want[k], strlen(want[k])) &&
			    (k < 2 || i == 0 || !strchr("0123456789", text[i - 1])))
				return true;
		name |= !strncmp(text + i, v, n);
		dflt |= !strncasecmp(text + i, "default", 7);
	}
	return named && name && dflt;
}

/* The man page entry of --@name: from its ".It Fl" line to the next option's or section. */
static const char *optcheck_man_entry(const char *man, const char *name, size_t *len)
{
	char esc[160] = "Fl \\-";
	size_t k = 5;

	for (const char *c = name; *c && k + 3 < sizeof(esc); c++) {
		if (*c == '-')
			esc[k++] = '\\';
		esc[k++] = *c;
	}
	esc[k] = '\0';
	for (const char *l = man; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *eol = strchr(l, '\n'), *at = strstr(l, esc), *end;

		if (strncmp(l, ".It ", 4) || !at || (eol && at > eol) || (at[k] && !strchr(" ,\n", at[k])))
			continue;
		for (end = eol; end && end[1] && strncmp(end + 1, ".It Fl", 6) && strncmp(end + 1, ".Sh", 3) &&
				strncmp(end + 1, ".Ss", 3);
		     end = strchr(end + 1, '\n'))
			;
		*len = end ? (size_t)(end - l) : strlen(l);
		return l;
	}
	return NULL;
}

/*
 * What the man page and README say from the table: the man page's OPTION
 * RULES section is what opts_set_rules_roff() prints (completion/gen-rules.c
 * writes it there), and every default --help shows is in the option's man
 * page entry and on a README line naming it.
 */
static __attribute__((unused)) void optcheck_docs(const struct opt_set *set, const char *man, const char *readme)
{
	const char *b = strstr(man, ".\\\" BEGIN GENERATED OPTION RULES\n"), *e = b ? strstr(b, ".\\\" END GENERATED") : NULL;
	char *rules = NULL;
	size_t rlen = 0;
	FILE *f = open_memstream(&rules, &rlen);

	if (!f || !e)
		fail_msg("the man page has no generated OPTION RULES section");
	opts_set_rules_roff(set, f);
	fclose(f);
	b = strchr(b, '\n') + 1;
	if ((size_t)(e - b) != rlen || memcmp(b, rules, rlen))
		fail_msg("the man page's OPTION RULES differ from the option table: run ninja -C build man-rules");
	free(rules);
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];
		char v[64], opt[160];
		const char *entry, *l;
		size_t len = 0;
		bool readme_ok = false, named;

		if (!opt_def_dflt(set, d, v, sizeof(v)))
			continue;
		entry = optcheck_man_entry(man, d->name, &len);
		named = d->type == OPT_T_ENUM || d->type == OPT_T_SET;
		if (!entry || !optcheck_says_default(entry, len, v, named))
			fail_msg("--%s: its man page entry does not say 'default %s'", d->name, v);
		snprintf(opt, sizeof(opt), "`--%s", d->name);
		for (l = strstr(readme, opt); l && !readme_ok; l = strstr(l + 1, opt)) {
			const char *bol = l, *eol = strchr(l, '\n');

			while (bol > readme && bol[-1] != '\n')
				bol--;
			if (!strchr(" `", l[strlen(opt)]))
				continue;
			readme_ok = optcheck_says_default(bol, eol ? (size_t)(eol - bol) : strlen(bol), v, named);
		}
		if (!readme_ok)
			fail_msg("--%s: no README.md line naming it says 'default %s'", d->name, v);
	}
}

#endif
