// SPDX-License-Identifier: BSD-2-Clause
/*
 * The option machinery's parser (replay/optparse.h): a table of rows ->
 * getopt_long, typed parsing into the bound fields, what was given recorded
 * in the struct.  Knows no program's options; replay's table is
 * src/cli/opts.c, replay-rx's src/rx/opts.c.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "optparse_int.h"

int opts_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int opt_enum_find(const struct opt_enum *e, const char *name, int *value)
{
	for (; e->name; e++) {
		if (!strcmp(e->name, name)) {
			*value = e->value;
			return 0;
		}
	}
	return -EINVAL;
}

const char *opt_enum_name(const struct opt_enum *e, int value)
{
	for (; e->name; e++)
		if (e->value == value)
			return e->name;
	return "?";
}

void opt_enum_list(const struct opt_enum *e, const char *last_sep, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; e[i].name && k < len; i++) {
		const char *sep = i == 0 ? "" : e[i + 1].name ? ", " : last_sep;
		int n = snprintf(buf + k, len - k, "%s%s", sep, e[i].name);

		if (n < 0)
			break;
		k += (size_t)n;
	}
}

enum opt_arg opt_def_arg(const struct opt_def *d)
{
	if (!d->metavar)
		return OPT_ARG_NONE;
	if (d->type == OPT_T_ENUM)
		return OPT_ARG_ENUM;
	if (d->type == OPT_T_STR && (!strcmp(d->metavar, "FILE") || !strcmp(d->metavar, "DIR")))
		return OPT_ARG_FILE;
	return OPT_ARG_OTHER;
}

/* ---- numbers ------------------------------------------------------------ */

/*
 * @arg as a whole number of @forms into *@v: 0, -EINVAL (not one), -EDOM (a
 * leading 0 that octal would read otherwise) or -ERANGE (past 2^64 - 1).
 */
static int read_u64(const char *arg, unsigned forms, uint64_t *v)
{
	bool hex = (forms & OPT_NUM_HEX) && arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	const char *s = hex ? arg + 2 : arg;
	unsigned base = hex ? 16 : 10;
	bool over = false;
	uint64_t x = 0;
	size_t n, zeros;

	for (n = 0; s[n]; n++) {
		int c = (unsigned char)s[n];
		unsigned digit;

		if (c >= '0' && c <= '9')
			digit = (unsigned)(c - '0');
		else if (hex && isxdigit(c))
			digit = (unsigned)(tolower(c) - 'a' + 10);
		else
			return -EINVAL;
		if (x > (UINT64_MAX - digit) / base)
			over = true;
		else
			x = x * base + digit;
	}
	if (n == 0)
		return -EINVAL;
	/* "007" and "00" mean the same in octal; "010" (8 to tcpreplay) and "08" do not. */
	zeros = strspn(s, "0");
	if (!hex && zeros && zeros < n && !(zeros == n - 1 && s[n - 1] <= '7'))
		return -EDOM;
	*v = x;
	return over ? -ERANGE : 0;
}

int opt_parse_u64(const char *arg, unsigned forms, uint64_t min, uint64_t max, uint64_t *v, char *err,
		  size_t errlen)
{
	int rc = read_u64(arg, forms, v);

	if (rc == -EINVAL)
		return opts_fail(err, errlen, "'%s' is not a non-negative integer", arg);
	if (rc == -EDOM)
		return opts_fail(err, errlen, "'%s' has a leading 0, which tcpreplay reads as octal: write it "
				 "in decimal without the 0%s", arg, forms & OPT_NUM_HEX ? ", or as 0x hexadecimal" : "");
	if (rc == -ERANGE || *v < min || *v > max)
		return opts_fail(err, errlen, "%s is out of range (%" PRIu64 "..%" PRIu64 ")", arg, min, max);
	return 0;
}

/* @v bytes as the largest of G, M, K that divides it ("256K", "1024G"), or plain bytes. */
static void fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "GMK";

	for (unsigned i = 0; i < 3; i++) {
		unsigned shift = 10 * (3 - i);

		if (v && !(v & ((1ull << shift) - 1))) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, units[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

int opt_parse_size(const char *arg, uint64_t min, uint64_t max, uint64_t *v, char *err, size_t errlen)
{
	static const char units[] = "KMG";
	size_t n = strlen(arg);
	const char *u = n ? strchr(units, toupper((unsigned char)arg[n - 1])) : NULL;
	unsigned shift = 0;
	char num[32], lo[24], hi[24];
	int rc = -EINVAL;

	if (u) {
		shift = 10 * (unsigned)(u - units + 1);
		n--;
	}
	if (n && n < sizeof(num)) {
		memcpy(num, arg, n);
		num[n] = '\0';
		rc = read_u64(num, OPT_NUM_HEX, v);
	}
	if (rc == -EDOM)
		return opt_parse_u64(num, OPT_NUM_HEX, min, max, v, err, errlen);
	if (rc == -EINVAL)
		return opts_fail(err, errlen, "'%s' is not a size (bytes, or a number with K, M or G)", arg);
	if (rc == 0 && *v > UINT64_MAX >> shift)
		rc = -ERANGE;
	if (rc == 0)
		*v <<= shift;
	if (rc == -ERANGE || *v < min || *v > max) {
		fmt_size(min, lo, sizeof(lo));
		fmt_size(max, hi, sizeof(hi));
		return opts_fail(err, errlen, "%s is out of range (%s..%s)", arg, lo, hi);
	}
	return 0;
}

const char *opt_spelled(const struct opt_set *set, const void *cfg, const struct opt_def *d, bool with_arg,
			char *buf, size_t len)
{
	const struct opt_given *g = opt_given_of(set, cfg);
	size_t i = (size_t)(d - set->table);
	const char *arg = i < OPT_ROWS_MAX && with_arg && d->metavar ? g->arg[i] : NULL;

	if (d->key && i < OPT_ROWS_MAX && opt_bit(g->row, i) && opt_bit(g->letter, i))
		snprintf(buf, len, "-%c%s%.40s", (char)d->key, arg ? " " : "", arg ? arg : "");
	else
		snprintf(buf, len, "--%s%s%.40s", d->name, arg ? " " : "", arg ? arg : "");
	return buf;
}

const struct opt_def *opt_row_named(const struct opt_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->table[i].name, name))
			return &set->table[i];
	return NULL;
}

bool opt_alias(const struct opt_def *a, const struct opt_def *b)
{
	return a == b || (a->off == b->off && a->size == b->size && a->type == b->type && a->parse == b->parse &&
			  a->parse2 == b->parse2 && a->val == b->val && a->scale == b->scale && !a->agree && !b->agree);
}

bool opt_def_dflt(const struct opt_set *set, const struct opt_def *d, char *buf, size_t len)
{
	uint64_t v = d->dflt, scale = d->scale ? d->scale : 1;
	const char *field = (const char *)set->defaults + d->off;

	if (!d->show_dflt)
		return false;
	if (d->type == OPT_T_ENUM || d->type == OPT_T_SET) {
		int e = 0;

		memcpy(&e, field, d->size < sizeof(e) ? d->size : sizeof(e));
		snprintf(buf, len, "%s", opt_enum_name(d->choices, d->dflt ? (int)d->dflt : e));
		return true;
	}
	if (!v && (d->type == OPT_T_UINT || d->type == OPT_T_SIZE)) {
		if (d->size == 2) {
			uint16_t x;

			memcpy(&x, field, 2);
			v = x;
		} else if (d->size == 4) {
			uint32_t x;

			memcpy(&x, field, 4);
			v = x;
		} else {
			memcpy(&v, field, 8);
		}
		v /= scale;
	}
	if (d->type == OPT_T_SIZE || (d->metavar && !strcmp(d->metavar, "BYTES") && v >= 1024))
		fmt_size(v, buf, len);
	else
		snprintf(buf, len, "%" PRIu64, v);
	return true;
}

/* A positive decimal number, at most d->dmax: no sign, space, "inf", "nan" or hex. */
static int parse_double(const struct opt_def *d, const char *arg, double *v, char *err, size_t len)
{
	char *end;

	errno = 0;
	if (((*arg < '0' || *arg > '9') && *arg != '.') || arg[strspn(arg, "0123456789.eE+-")])
		return opts_fail(err, len, "'%s' is not a positive number", arg);
	*v = strtod(arg, &end);
	if (*end || !isfinite(*v) || *v <= 0)
		return opts_fail(err, len, "'%s' is not a positive number", arg);
	if (errno == ERANGE || *v > d->dmax)
		return opts_fail(err, len, "%s is out of range (at most %.0f)", arg, d->dmax);
	return 0;
}

/* ---- one option into its field ------------------------------------------ */

/* Store @v in an unsigned (or int) field of @size bytes; the table's range keeps it in bounds. */
static void store_uint(void *field, size_t size, uint64_t v)
{
	if (size == 2) {
		uint16_t x = (uint16_t)v;

		memcpy(field, &x, 2);
	} else if (size == 4) {
		uint32_t x = (uint32_t)v;

		memcpy(field, &x, 4);
	} else { /* 8: no integer row accepts another size */
		memcpy(field, &v, 8);
	}
}

/* The value of @arg for row @d, into @field (and @cfg's second field for FUNC2); the reason in @why. */
static int parse_value(void *cfg, const struct opt_def *d, const char *arg, char *why, size_t len)
{
	char *field = (char *)cfg + d->off, list[256];
	uint64_t u = 0;
	double x = 0;
	int v = 0, rc;

	switch (d->type) {
	case OPT_T_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_T_SET:
		if (d->choices && !strcmp(opt_enum_name(d->choices, (int)d->val), "?")) {
			opt_enum_list(d->choices, " and ", list, sizeof(list));
			return opts_fail(why, len, "not in this build of replay (built: %s)", list);
		}
		v = (int)d->val;
		memcpy(field, &v, sizeof(v));
		return 0;
	case OPT_T_COUNT:
		memcpy(&v, field, sizeof(v));
		v++;
		memcpy(field, &v, sizeof(v));
		return 0;
	case OPT_T_STR:
		if (!*arg)
			return opts_fail(why, len, "empty argument");
		memcpy(field, &arg, sizeof(arg));
		return 0;
	case OPT_T_UINT:
	case OPT_T_SIZE:
		rc = d->type == OPT_T_UINT ? opt_parse_u64(arg, OPT_NUM_HEX, d->min, d->max, &u, why, len)
					   : opt_parse_size(arg, d->min, d->max, &u, why, len);
		if (rc == 0)
			store_uint(field, d->size, u * (d->scale ? d->scale : 1)); /* fits: the unit test checks */
		return rc;
	case OPT_T_DOUBLE:
		rc = parse_double(d, arg, &x, why, len);
		if (rc == 0)
			memcpy(field, &x, sizeof(x));
		return rc;
	case OPT_T_ENUM:
		if (opt_enum_find(d->choices, arg, &v) == 0) {
			store_uint(field, d->size, (uint64_t)(unsigned)v);
			return 0;
		}
		opt_enum_list(d->choices, " or ", list, sizeof(list));
		return opts_fail(why, len, "'%s' is not one of %s", arg, list);
	case OPT_T_FUNC:
		return d->parse(field, arg, why, len) < 0 ? -EINVAL : 0;
	case OPT_T_FUNC2:
		return d->parse2(field, (char *)cfg + d->off2, arg, why, len) < 0 ? -EINVAL : 0;
	case OPT_T_MAX:
		break;
	}
	return opts_fail(why, len, "internal error: bad option type");
}

/* @d as given now: "-w" or "--write", then " ARG" if @arg. */
static const char *spelled_now(const struct opt_def *d, bool letter, const char *arg, char *buf, size_t len)
{
	if (letter)
		snprintf(buf, len, "-%c%s%s", (char)d->key, arg ? " " : "", arg ? arg : "");
	else
		snprintf(buf, len, "--%s%s%s", d->name, arg ? " " : "", arg ? arg : "");
	return buf;
}

/*
 * Row @d just given, after a row of the same field that must agree with it
 * (opt_def.agree): if it changed the value @before held, the refusal.
 */
static int agreement(const struct opt_set *set, const void *cfg, const struct opt_def *d, const void *before,
		     bool letter, const char *arg, char *err, size_t len)
{
	const struct opt_given *g = opt_given_of(set, cfg);
	char a[96], b[96];

	if (!memcmp(before, (const char *)cfg + d->off, d->size))
		return 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *e = &set->table[i];

		if (e == d || !opt_bit(g->row, i) || e->off != d->off || opt_alias(e, d) || !(e->agree || d->agree))
			continue;
		return opts_fail(err, len, "%s excludes %s: %s", spelled_now(d, letter, arg, a, sizeof(a)),
				 opt_spelled(set, cfg, e, true, b, sizeof(b)), d->agree ? d->agree : e->agree);
	}
	return 0;
}

/* Row @d given with @arg (by its letter if @letter): its field, then the record of it. */
static int apply(const struct opt_set *set, void *cfg, const struct opt_def *d, const char *arg, bool letter,
		 char *err, size_t len)
{
	struct opt_given *g = (struct opt_given *)((char *)cfg + set->given_off);
	size_t i = (size_t)(d - set->table);
	unsigned char before[256];
	char why[400];
	int rc;

	if (d->size <= sizeof(before))
		memcpy(before, (char *)cfg + d->off, d->size);
	rc = parse_value(cfg, d, arg, why, sizeof(why));
	if (rc < 0)
		return opts_fail(err, len, "--%s: %s", d->name, why);
	if (d->size <= sizeof(before) && agreement(set, cfg, d, before, letter, arg, err, len) < 0)
		return -EINVAL;
	if (i < OPT_ROWS_MAX) {
		g->row[i / 64] |= 1ull << (i % 64);
		if (letter)
			g->letter[i / 64] |= 1ull << (i % 64);
		else
			g->letter[i / 64] &= ~(1ull << (i % 64));
		g->arg[i] = arg;
	}
	return 0;
}

/* ---- the command line --------------------------------------------------- */

const struct opt_hint *opt_hint_find(const struct opt_set *set, int key, const char *name)
{
	if (!set->hints)
		return NULL;
	for (const struct opt_hint *const *h = set->hints; *h; h++)
		for (const struct opt_hint *e = *h; e->key || e->name; e++)
			if ((key && e->key == key) || (name && e->name && !strcmp(e->name, name)))
				return e;
	return NULL;
}

/*
 * A word that looks like an option, not an argument: "-x", "--name".  "-"
 * (stdin/stdout) and negative numbers ("--ttl -5") are arguments.
 */
static bool looks_like_option(const char *s)
{
	return s[0] == '-' && s[1] && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.';
}

/* The name @word ("--name" or "--name=value") spells, exactly @name? */
static bool spelled_in_full(const char *word, const char *name)
{
	size_t len = strcspn(word + 2, "=");

	return strlen(name) == len && !strncmp(word + 2, name, len);
}

/* "-w: hint" for a refused short letter, "--name: hint" for a long name. */
static int refuse_hint(const struct opt_hint *h, bool as_long, char *err, size_t len)
{
	if (as_long)
		return opts_fail(err, len, "--%s is not supported: %s", h->name, h->hint);
	return opts_fail(err, len, "-%c is not supported: %s", h->key, h->hint);
}

static int seen_add(struct opt_seen *s, const struct opt_def *d, const char *arg)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		const struct opt_def **nd = realloc(s->d, cap * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		s->d = nd;
		const char **na = realloc(s->arg, cap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		s->arg = na;
		s->cap = cap;
	}
	s->d[s->n] = d;
	s->arg[s->n++] = arg;
	return 0;
}

/* getopt_long's tables for a set: the rows, then the refusing hints' names (val 256 + index). */
struct getopt_tables {
	struct option *lopts;
	char *sopts;
	const struct opt_hint **refused; /* the refusing hints; refused[j] is val 256 + set->n + j */
	size_t nref;
};

static void tables_free(struct getopt_tables *t)
{
	free(t->lopts);
	free(t->sopts);
	free(t->refused);
}

static int tables_build(const struct opt_set *set, struct getopt_tables *t)
{
	size_t ns = 0, nl = 0, k = 0;

	memset(t, 0, sizeof(*t));
	for (const struct opt_hint *const *h = set->hints; h && *h; h++)
		for (const struct opt_hint *e = *h; e->key || e->name; e++)
			k++;
	t->refused = calloc(k + 1, sizeof(*t->refused));
	t->lopts = calloc(set->n + k + 1, sizeof(*t->lopts));
	t->sopts = calloc(2 + 2 * set->n + k + 1, 1);
	if (!t->refused || !t->lopts || !t->sopts)
		return -ENOMEM;
	for (const struct opt_hint *const *h = set->hints; h && *h; h++)
		for (const struct opt_hint *e = *h; e->key || e->name; e++)
			if (e->refuse)
				t->refused[t->nref++] = e;
	t->sopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];
		const struct opt_hint *h = opt_hint_find(set, 0, d->name);

		/* A refused name is the hint's too (replay prep: tcpprep's --cachefile is not ours). */
		if (!(h && h->refuse))
			t->lopts[nl++] = (struct option){ .name = d->name, .val = 256 + (int)i,
							  .has_arg = d->metavar ? required_argument : no_argument };
		/* A refused letter is the hint's, not the row's. */
		h = d->key ? opt_hint_find(set, d->key, NULL) : NULL;
		if (d->key && !(h && h->refuse)) {
			t->sopts[ns++] = (char)d->key;
			if (d->metavar)
				t->sopts[ns++] = ':';
		}
	}
	for (size_t j = 0; j < t->nref; j++) {
		if (t->refused[j]->key && !memchr(t->sopts, t->refused[j]->key, ns))
			t->sopts[ns++] = (char)t->refused[j]->key;
		if (t->refused[j]->name)
			t->lopts[nl++] = (struct option){ .name = t->refused[j]->name, .has_arg = optional_argument,
							  .val = 256 + (int)(set->n + j) };
	}
	return 0;
}

/*
 * What getopt_long returned (@c, @idx) as a row of the table in *@d; 0, or
 * -EINVAL: an unknown, abbreviated or refused option.
 */
static int option_row(const struct opt_set *set, const struct getopt_tables *t, int c, int idx, char **argv,
		      const struct opt_def **d, char *err, size_t errlen)
{
	const struct opt_hint *h;
	/* The word that named the option: before its argument if that was the next word. */
	const char *word = optarg == argv[optind - 1] && optind >= 2 ? argv[optind - 2] : argv[optind - 1];

	*d = NULL;
	if (c == '?' && optopt)
		return opts_fail(err, errlen, "unknown option '-%c' (try --help)", optopt);
	if (c == '?')
		return opts_fail(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
	if (c == ':')
		return opts_fail(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
	if (idx >= 0 && !spelled_in_full(word, t->lopts[idx].name))
		return opts_fail(err, errlen,
				 "unknown option '%.*s' (long options are spelled in full, not abbreviated: --%s?)",
				 (int)strcspn(word, "="), word, t->lopts[idx].name);
	if (c >= 256 + (int)set->n)
		return refuse_hint(t->refused[c - 256 - (int)set->n], true, err, errlen);
	if (c >= 256) {
		*d = &set->table[c - 256];
		return 0;
	}
	h = opt_hint_find(set, c, NULL);
	if (h && h->refuse)
		return refuse_hint(h, false, err, errlen);
	for (size_t i = 0; i < set->n && !*d; i++)
		if (set->table[i].key == c)
			*d = &set->table[i];
	return *d ? 0 : opts_fail(err, errlen, "internal error: option %d not in the table", c);
}

/* "-w -q": the next word was taken as @d's argument, but it is an option. */
static int option_like_argument(const struct opt_set *set, const struct opt_def *d, bool letter, char *err,
				size_t errlen)
{
	const struct opt_hint *h = letter ? opt_hint_find(set, d->key, NULL) : NULL;
	char name[64];

	return opts_fail(err, errlen, "%s takes %s, but '%s' looks like an option (if meant, write --%s=%s)%s%s",
			 spelled_now(d, letter, NULL, name, sizeof(name)), d->metavar, optarg, d->name, optarg,
			 h ? "; " : "", h ? h->hint : "");
}

/* The rows not given that take another row's value (opt_def.same_as). */
static void follow_same_as(const struct opt_set *set, void *cfg)
{
	const struct opt_given *g = opt_given_of(set, cfg);

	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i], *from = d->same_as ? opt_row_named(set, d->same_as) : NULL;

		if (from && from->size == d->size && !opt_bit(g->row, i))
			memcpy((char *)cfg + d->off, (char *)cfg + from->off, d->size);
	}
}

int opt_parse_core(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   struct opt_seen *seen, int *bad, char *err, size_t errlen)
{
	struct getopt_tables t;
	int rc = 0;

	*bad = -1;
	memset(&t, 0, sizeof(t));
	memcpy(cfg, set->defaults, set->size);
	if (set->n > OPT_ROWS_MAX || tables_build(set, &t) < 0) {
		rc = set->n > OPT_ROWS_MAX ? opts_fail(err, errlen, "internal error: too many options") : -ENOMEM;
		if (rc == -ENOMEM)
			opts_fail(err, errlen, "out of memory");
		goto out;
	}
	optind = 0; /* full reset of getopt's state: parsing may run more than once */
	opterr = 0;
	for (;;) {
		const struct opt_def *d = NULL;
		int idx = -1, c = getopt_long(argc, argv, t.sopts, t.lopts, &idx);
		bool letter = idx < 0;

		if (c == -1)
			break;
		*bad = optind - 1;
		rc = option_row(set, &t, c, idx, argv, &d, err, errlen);
		if (rc < 0 || !d)
			goto out;
		if (d->metavar && !d->dash_arg && optarg == argv[optind - 1] && looks_like_option(optarg))
			rc = option_like_argument(set, d, letter, err, errlen);
		if (rc == 0)
			rc = apply(set, cfg, d, d->metavar ? optarg : NULL, letter, err, errlen);
		if (rc == 0 && seen && seen_add(seen, d, d->metavar ? optarg : NULL) < 0) {
			opts_fail(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
		if (rc < 0)
			goto out;
	}
	*bad = -1;
	*first_arg = optind;
	follow_same_as(set, cfg);
out:
	tables_free(&t);
	return rc;
}

int opts_set_parse(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   char *err, size_t errlen)
{
	int bad;

	return opt_parse_core(set, cfg, argc, argv, first_arg, NULL, &bad, err, errlen);
}
