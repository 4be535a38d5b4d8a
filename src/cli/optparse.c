// SPDX-License-Identifier: BSD-2-Clause
/*
 * The option machinery (replay/optparse.h): a table of rows -> getopt_long,
 * typed parsing into the bound fields, and --help.  Knows no program's
 * options; replay's table is src/cli/opts.c, replay-rx's src/rx/opts.c.
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
#include "replay/optparse.h"

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

/* "a, b or c" into @buf. */
static void enum_list(const struct opt_enum *e, const char *last_sep, char *buf, size_t len)
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

/* Store @v in an unsigned (or int) field of @size bytes; the table's range keeps it in bounds. */
static void store_uint(void *field, size_t size, uint64_t v)
{
	switch (size) {
	case 2: {
		uint16_t x = (uint16_t)v;

		memcpy(field, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;

		memcpy(field, &x, 4);
		break;
	}
	default: /* 8: OPT_T_UINT accepts no other size */
		memcpy(field, &v, 8);
		break;
	}
}

/*
 * A non-negative integer: decimal, or hexadecimal after 0x, as tcpreplay's
 * AutoOpts numbers take it.  It must start with a digit: strtoull skips
 * leading white space and takes a minus sign, so "\t-1" would otherwise be
 * 2^64 - 1.  A decimal with a leading 0 is refused unless it means the
 * same in octal ("007"): tcpreplay reads "010" as octal (8), and taking it
 * either way would misread someone's line.
 */
static int parse_u64(const struct opt_def *d, const char *arg, uint64_t *v, char *err, size_t len)
{
	bool hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9' || (hex && !isxdigit((unsigned char)arg[2])))
		return opts_fail(err, len, "--%s: '%s' is not a non-negative integer", d->name, arg);
	/* "007" is 7 either way; "010" is not (8 to tcpreplay, 10 in decimal). */
	if (arg[0] == '0' && arg[1] >= '0' && arg[1] <= '9' &&
	    (arg[strspn(arg, "0")] > '7' || arg[strspn(arg, "0") + (arg[strspn(arg, "0")] != 0)]))
		return opts_fail(err, len, "--%s: '%s' has a leading 0, which tcpreplay reads as octal: write it "
			    "in decimal without the 0, or as 0x hexadecimal", d->name, arg);
	*v = strtoull(hex ? arg + 2 : arg, &end, hex ? 16 : 10);
	if (*end)
		return opts_fail(err, len, "--%s: '%s' is not a non-negative integer", d->name, arg);
	if (errno == ERANGE || *v < d->min || *v > d->max)
		return opts_fail(err, len, "--%s: %s is out of range (%" PRIu64 "..%" PRIu64 ")", d->name,
			    arg, d->min, d->max);
	return 0;
}

/* A byte count: decimal, then optionally K, M or G (KiB, MiB, GiB). */
static int parse_size(const struct opt_def *d, const char *arg, uint64_t *v, char *err, size_t len)
{
	static const char units[] = "KMG";
	const char *u;
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9')
		return opts_fail(err, len, "--%s: '%s' is not a size (bytes, or a number with K, M or G)",
			    d->name, arg);
	*v = strtoull(arg, &end, 10);
	if (*end && (end[1] || !(u = strchr(units, *end & ~0x20))))
		return opts_fail(err, len, "--%s: '%s' is not a size (bytes, or a number with K, M or G)",
			    d->name, arg);
	if (*end) {
		unsigned shift = 10 * (unsigned)(u - units + 1);

		if (*v > UINT64_MAX >> shift)
			errno = ERANGE;
		*v <<= shift;
	}
	if (errno == ERANGE || *v < d->min || *v > d->max)
		return opts_fail(err, len, "--%s: %s is out of range (%" PRIu64 "K..%" PRIu64 "G)", d->name,
			    arg, d->min >> 10, d->max >> 30);
	return 0;
}

/* A positive decimal number, at most d->dmax: no sign, space, "inf", "nan" or hex. */
static int parse_double(const struct opt_def *d, const char *arg, double *v, char *err, size_t len)
{
	char *end;

	errno = 0;
	if (((*arg < '0' || *arg > '9') && *arg != '.') || arg[strspn(arg, "0123456789.eE+-")])
		return opts_fail(err, len, "--%s: '%s' is not a positive number", d->name, arg);
	*v = strtod(arg, &end);
	if (*end || !isfinite(*v) || *v <= 0)
		return opts_fail(err, len, "--%s: '%s' is not a positive number", d->name, arg);
	if (errno == ERANGE || *v > d->dmax)
		return opts_fail(err, len, "--%s: %s is out of range (at most %.0f)", d->name, arg, d->dmax);
	return 0;
}

static int apply(void *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	char *field = (char *)o + d->off;

	switch (d->type) {
	case OPT_T_FLAG: {
		bool t = true;

		memcpy(field, &t, sizeof(t));
		return 0;
	}
	case OPT_T_SET: {
		int v = (int)d->val;

		memcpy(field, &v, sizeof(v));
		return 0;
	}
	case OPT_T_COUNT: {
		int v;

		memcpy(&v, field, sizeof(v));
		v++;
		memcpy(field, &v, sizeof(v));
		return 0;
	}
	case OPT_T_STR:
		if (!*arg)
			return opts_fail(err, len, "--%s: empty argument", d->name);
		memcpy(field, &arg, sizeof(arg));
		return 0;
	case OPT_T_UINT:
	case OPT_T_SIZE: {
		uint64_t v = 0;
		int rc = d->type == OPT_T_UINT ? parse_u64(d, arg, &v, err, len)
					       : parse_size(d, arg, &v, err, len);

		if (rc < 0)
			return rc;
		if (d->scale)
			v *= d->scale; /* max * scale fits: the unit test checks */
		store_uint(field, d->size, v);
		return 0;
	}
	case OPT_T_DOUBLE: {
		double v = 0;
		int rc = parse_double(d, arg, &v, err, len);

		if (rc < 0)
			return rc;
		memcpy(field, &v, sizeof(v));
		return 0;
	}
	case OPT_T_ENUM: {
		char list[256];
		int v;

		if (opt_enum_find(d->choices, arg, &v) == 0) {
			store_uint(field, d->size, (uint64_t)(unsigned)v);
			return 0;
		}
		enum_list(d->choices, " or ", list, sizeof(list));
		return opts_fail(err, len, "--%s: '%s' is not one of %s", d->name, arg, list);
	}
	case OPT_T_FUNC: {
		char why[256];

		if (d->parse(field, arg, why, sizeof(why)) < 0)
			return opts_fail(err, len, "--%s: %s", d->name, why);
		return 0;
	}
	case OPT_T_MAX:
		break;
	}
	return opts_fail(err, len, "--%s: internal error: bad option type", d->name);
}

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

/* The refusing hints in @set, flattened, for getopt_long's table; *@n of them. */
static const struct opt_hint **refusals(const struct opt_set *set, size_t *n)
{
	const struct opt_hint **v;
	size_t k = 0;

	*n = 0;
	if (!set->hints)
		return calloc(1, sizeof(*v));
	for (const struct opt_hint *const *h = set->hints; *h; h++)
		for (const struct opt_hint *e = *h; e->key || e->name; e++)
			k++;
	v = calloc(k + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (const struct opt_hint *const *h = set->hints; *h; h++)
		for (const struct opt_hint *e = *h; e->key || e->name; e++)
			if (e->refuse)
				v[(*n)++] = e;
	return v;
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

/* Told of every option parsed, in order (opts_set_save() records them). */
struct opt_seen {
	const struct opt_def **d;
	const char **arg;
	size_t n, cap;
};

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

static int parse_core(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		      struct opt_seen *seen, char *err, size_t errlen)
{
	const struct opt_def *table = set->table;
	const struct opt_hint **refused = NULL;
	struct option *lopts = NULL;
	char *sopts = NULL;
	size_t ns = 0, nref = 0, nl = 0;
	int c, idx, rc = 0;

	memcpy(cfg, set->defaults, set->size);
	refused = refusals(set, &nref);
	if (refused) {
		lopts = calloc(set->n + nref + 1, sizeof(*lopts));
		sopts = calloc(2 + 2 * set->n + nref + 1, 1);
	}
	if (!refused || !lopts || !sopts) {
		opts_fail(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	sopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_hint *h = opt_hint_find(set, 0, table[i].name);

		/* A refused name is the hint's too (replay prep: tcpprep's --cachefile is not ours). */
		if (!(h && h->refuse))
			lopts[nl++] = (struct option){
				.name = table[i].name,
				.has_arg = table[i].metavar ? required_argument : no_argument,
				.flag = NULL,
				.val = 256 + (int)i,
			};
		/* A refused letter is the hint's, not the row's. */
		h = table[i].key ? opt_hint_find(set, table[i].key, NULL) : NULL;
		if (table[i].key && !(h && h->refuse)) {
			sopts[ns++] = (char)table[i].key;
			if (table[i].metavar)
				sopts[ns++] = ':';
		}
	}
	for (size_t j = 0; j < nref; j++) {
		if (refused[j]->key && !memchr(sopts, refused[j]->key, ns))
			sopts[ns++] = (char)refused[j]->key;
		if (refused[j]->name)
			lopts[nl++] = (struct option){
				.name = refused[j]->name,
				.has_arg = optional_argument,
				.flag = NULL,
				.val = 256 + (int)(set->n + j),
			};
	}
	sopts[ns] = '\0';

	optind = 0; /* full reset of getopt's state: parsing may run more than once */
	opterr = 0;
	for (;;) {
		const struct opt_def *d = NULL;
		const struct opt_hint *h;
		const char *word;

		idx = -1;
		c = getopt_long(argc, argv, sopts, lopts, &idx);
		if (c == -1)
			break;
		if (c == '?') {
			if (optopt)
				rc = opts_fail(err, errlen, "unknown option '-%c' (try --help)", optopt);
			else
				rc = opts_fail(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
			goto out;
		}
		if (c == ':') {
			rc = opts_fail(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
			goto out;
		}
		/* The word that named the option: before its argument if that was the next word. */
		word = argv[optind - 1];
		if (optarg == argv[optind - 1] && optind >= 2)
			word = argv[optind - 2];
		if (idx >= 0 && !spelled_in_full(word, lopts[idx].name)) {
			rc = opts_fail(err, errlen,
				  "unknown option '%.*s' (long options are spelled in full, not abbreviated: --%s?)",
				  (int)strcspn(word, "="), word, lopts[idx].name);
			goto out;
		}
		if (c >= 256 + (int)set->n) {
			rc = refuse_hint(refused[c - 256 - (int)set->n], true, err, errlen);
			goto out;
		}
		if (c >= 256) {
			d = &table[c - 256];
		} else {
			h = opt_hint_find(set, c, NULL);
			if (h && h->refuse) {
				rc = refuse_hint(h, false, err, errlen);
				goto out;
			}
			for (size_t i = 0; i < set->n && !d; i++)
				if (table[i].key == c)
					d = &table[i];
		}
		if (!d) {
			rc = opts_fail(err, errlen, "internal error: option %d not in the table", c);
			goto out;
		}
		/* "-w -q": the next word was taken as the argument, but it is an option. */
		if (d->metavar && !d->dash_arg && optarg == argv[optind - 1] && looks_like_option(optarg)) {
			char name[64];

			if (idx >= 0)
				snprintf(name, sizeof(name), "--%s", d->name);
			else
				snprintf(name, sizeof(name), "-%c", c);
			h = idx < 0 ? opt_hint_find(set, c, NULL) : NULL;
			rc = opts_fail(err, errlen,
				  "%s takes %s, but '%s' looks like an option (if meant, write --%s=%s)%s%s",
				  name, d->metavar, optarg, d->name, optarg, h ? "; " : "", h ? h->hint : "");
			goto out;
		}
		rc = apply(cfg, d, optarg, err, errlen);
		if (rc < 0)
			goto out;
		if (seen && seen_add(seen, d, d->metavar ? optarg : NULL) < 0) {
			rc = -ENOMEM;
			opts_fail(err, errlen, "out of memory");
			goto out;
		}
	}
	*first_arg = optind;
out:
	free(refused);
	free(lopts);
	free(sopts);
	return rc;
}

int opts_set_parse(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   char *err, size_t errlen)
{
	return parse_core(set, cfg, argc, argv, first_arg, NULL, err, errlen);
}

/* ---- config files (--load-opts, --save-opts) ---------------------------- */

#define OPT_LINE_MAX 4096

void opt_argv_free(struct opt_argv *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->argv);
	memset(a, 0, sizeof(*a));
}

/* Append @word to @a (taking it over if @own); 0 or -ENOMEM (@word freed if owned). */
static int argv_push(struct opt_argv *a, char *word, bool own)
{
	char **v = realloc(a->argv, ((size_t)a->argc + 2) * sizeof(*v));

	if (!v)
		goto fail;
	a->argv = v;
	if (own) {
		char **o = realloc(a->owned, (a->nowned + 1) * sizeof(*o));

		if (!o)
			goto fail;
		a->owned = o;
		a->owned[a->nowned++] = word;
	}
	a->argv[a->argc++] = word;
	a->argv[a->argc] = NULL;
	return 0;
fail:
	if (own)
		free(word);
	return -ENOMEM;
}

static const struct opt_def *row_named(const struct opt_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->table[i].name, name))
			return &set->table[i];
	return NULL;
}

/*
 * One line of a config file, as the word "--name" or "--name=value" in
 * *@word (NULL for a line with nothing on it).  0, or -EINVAL with the
 * reason (without file and line) in @err.
 */
static int config_line(const struct opt_set *set, char *line, char **word, char *err, size_t len)
{
	char *p = line, *name, *val, *end;
	const struct opt_def *d;
	size_t n;

	*word = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	if (!*p || *p == '#')
		return 0;
	if (*p == '[' || *p == '<')
		return opts_fail(err, len, "sections and directives ('%.20s') are not supported: one option a line", p);
	if (*p == '-')
		return opts_fail(err, len, "'%.40s': write the option's name without dashes ('loop 3', not '--loop 3')", p);
	name = p;
	n = strcspn(p, " \t=:");
	p += n;
	if (*p) {
		*p++ = '\0';
		while (*p == ' ' || *p == '\t' || *p == '=' || *p == ':') {
			if (*p == '=' || *p == ':') {
				p++;
				while (*p == ' ' || *p == '\t')
					p++;
				break;
			}
			p++;
		}
	}
	val = *p ? p : NULL;
	for (char *c = name; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	if (!strcmp(name, "load-opts") || !strcmp(name, "save-opts"))
		return opts_fail(err, len, "%s inside a config file is not followed", name);
	d = row_named(set, name);
	if (!d) {
		const struct opt_hint *h = opt_hint_find(set, 0, name);

		if (h && h->refuse)
			return opts_fail(err, len, "%s is not supported: %s", name, h->hint);
		return opts_fail(err, len, "'%s' is not an option (try --help)", name);
	}
	if (!d->metavar && val)
		return opts_fail(err, len, "%s takes no value, but '%s' follows it", name, val);
	if (d->metavar && !val)
		return opts_fail(err, len, "%s needs a value (%s)", name, d->metavar);
	if (val && (val[0] == '"' || val[0] == '\'')) {
		size_t vl = strlen(val);

		if (vl < 2 || val[vl - 1] != val[0])
			return opts_fail(err, len, "%s: the quote in %s is not closed", name, val);
		val[vl - 1] = '\0';
		val++;
	}
	n = strlen(name) + (val ? strlen(val) + 1 : 0) + 3;
	*word = malloc(n);
	if (!*word)
		return opts_fail(err, len, "out of memory"), -ENOMEM;
	snprintf(*word, n, val ? "--%s=%s" : "--%s", name, val ? val : "");
	return 0;
}

/*
 * The next line of @f into @line (OPT_LINE_MAX + 1 bytes), without its
 * newline: 1, 0 at the end, or -1 for a line too long or holding a NUL
 * (*@why says which).  Never reads more than a line's worth past the limit:
 * --load-opts /dev/zero fails at once.
 */
static int next_line(FILE *f, char *line, const char **why)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0') {
			*why = "a NUL byte: not a config file";
			return -1;
		}
		if (n == OPT_LINE_MAX) {
			*why = "line longer than 4096 bytes";
			return -1;
		}
		line[n++] = (char)c;
	}
	line[n] = '\0';
	return c == EOF && n == 0 ? 0 : 1;
}

/* Every option of @path onto @out, each checked alone in @scratch. */
static int load_file(const struct opt_set *set, const char *path, struct opt_argv *out,
		     void *scratch, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	unsigned long lineno = 0;
	char line[OPT_LINE_MAX + 1], why[400];
	const char *bad;
	int rc = 0, got;

	if (!f) {
		rc = -errno;
		opts_fail(err, errlen, "--load-opts %s: %s", path, strerror(errno));
		return rc;
	}
	while ((got = next_line(f, line, &bad)) != 0) {
		char *word, *argv2[3];
		int first;

		lineno++;
		if (got < 0) {
			rc = opts_fail(err, errlen, "%s:%lu: %s", path, lineno, bad);
			break;
		}
		rc = config_line(set, line, &word, why, sizeof(why));
		if (rc < 0) {
			opts_fail(err, errlen, "%s:%lu: %s", path, lineno, why);
			break;
		}
		if (!word)
			continue;
		argv2[0] = (char *)"x";
		argv2[1] = word;
		argv2[2] = NULL;
		rc = parse_core(set, scratch, 2, argv2, &first, NULL, why, sizeof(why));
		if (rc == 0 && first != 2)
			rc = opts_fail(why, sizeof(why), "not an option");
		if (rc < 0) {
			free(word);
			opts_fail(err, errlen, "%s:%lu: %s", path, lineno, why);
			break;
		}
		rc = argv_push(out, word, true);
		if (rc < 0) {
			opts_fail(err, errlen, "out of memory");
			break;
		}
	}
	if (rc == 0 && ferror(f))
		rc = opts_fail(err, errlen, "--load-opts %s: read error", path);
	fclose(f);
	return rc;
}

int opts_set_load(const struct opt_set *set, int argc, char **argv, struct opt_argv *out,
		  char *err, size_t errlen)
{
	void *scratch = malloc(set->size);
	bool operands = false;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!scratch)
		return opts_fail(err, errlen, "out of memory"), -ENOMEM;
	for (int i = 0; i < argc && rc == 0; i++) {
		const char *file = NULL;

		if (!operands && i > 0 && !strcmp(argv[i], "--"))
			operands = true;
		else if (!operands && i > 0 && !strncmp(argv[i], "--load-opts=", 12))
			file = argv[i] + 12;
		else if (!operands && i > 0 && !strcmp(argv[i], "--load-opts")) {
			if (i + 1 >= argc) {
				rc = opts_fail(err, errlen, "option '--load-opts' needs an argument");
				break;
			}
			file = argv[++i];
		}
		if (!file) {
			rc = argv_push(out, argv[i], false);
			if (rc < 0)
				opts_fail(err, errlen, "out of memory");
			continue;
		}
		if (!*file) {
			rc = opts_fail(err, errlen, "--load-opts: the file name is empty");
			break;
		}
		rc = load_file(set, file, out, scratch, err, errlen);
	}
	free(scratch);
	if (rc == 0 && !out->argv) {
		/* No arguments at all: still a NULL-terminated vector. */
		out->argv = calloc(1, sizeof(*out->argv));
		if (!out->argv)
			rc = opts_fail(err, errlen, "out of memory");
	}
	if (rc < 0)
		opt_argv_free(out);
	return rc < 0 ? rc : 0;
}

int opts_set_save(const struct opt_set *set, int argc, char **argv, const char *const *skip,
		  FILE *f, char *err, size_t errlen)
{
	struct opt_seen seen = { 0 };
	void *scratch = malloc(set->size);
	int first, rc, written = 0;

	if (!scratch)
		return opts_fail(err, errlen, "out of memory"), -ENOMEM;
	rc = parse_core(set, scratch, argc, argv, &first, &seen, err, errlen);
	free(scratch);
	for (size_t i = 0; rc == 0 && i < seen.n; i++) {
		const char *a = seen.arg[i];

		if (a && (strchr(a, '\n') || strchr(a, '\r') || a[0] == ' ' || a[0] == '\t' ||
			  (*a && (a[strlen(a) - 1] == ' ' || a[strlen(a) - 1] == '\t'))))
			rc = opts_fail(err, errlen, "--%s: the value '%s' cannot be written to a config file "
				       "(a line break or surrounding blanks)", seen.d[i]->name, a);
	}
	for (size_t r = 0; rc == 0 && r < set->n; r++) {
		const struct opt_def *d = &set->table[r];
		bool skipped = false;

		for (const char *const *s = skip; s && *s; s++)
			skipped |= !strcmp(*s, d->name);
		if (skipped)
			continue;
		for (size_t i = 0; i < seen.n; i++) {
			char left[80];

			if (seen.d[i] != d)
				continue;
			if (!seen.arg[i]) {
				fprintf(f, "%s\n", d->name);
			} else {
				const char *a = seen.arg[i];
				bool quote = a[0] == '"' || a[0] == '\'' || !*a;

				snprintf(left, sizeof(left), "%s =", d->name);
				/* The column tcpreplay's own --save-opts writes values in. */
				fprintf(f, "%-20s%s%s%s\n", left, quote ? (strchr(a, '"') ? "'" : "\"") : "", a,
					quote ? (strchr(a, '"') ? "'" : "\"") : "");
			}
			written++;
		}
	}
	free(seen.d);
	free(seen.arg);
	return rc < 0 ? rc : written;
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
				enum_list(d->choices, ", ", list, sizeof(list));
				fprintf(f, " (%s: %s)", d->metavar, list);
			}
			fputc('\n', f);
		}
	}
	if (set->epilog)
		fprintf(f, "\n%s\n", set->epilog);
}
