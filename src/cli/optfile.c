// SPDX-License-Identifier: BSD-2-Clause
/*
 * Config files (replay/optparse.h): --load-opts expands a file's lines in
 * place into the command line, which is then parsed and checked as one;
 * the lines of its sections wait, as written, until the caller selects the
 * sections of its command (opts_set_select()); --save-opts writes the
 * options given, in the order given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optparse_int.h"

#define OPT_LINE_MAX 4096

void opt_argv_free(struct opt_argv *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->files);
	free(a->argv);
	free(a->where);
	free(a->sect);
	memset(a, 0, sizeof(*a));
}

int opt_argv_own(struct opt_argv *a, char *p)
{
	char **o = realloc(a->owned, (a->nowned + 1) * sizeof(*o));

	if (!o) {
		free(p);
		return -ENOMEM;
	}
	a->owned = o;
	a->owned[a->nowned++] = p;
	return 0;
}

/*
 * Append @word, from @where ("FILE:LINE", owned, or NULL) and in section
 * @sect (owned, or NULL), to @a; 0 or -ENOMEM.
 */
static int argv_push(struct opt_argv *a, char *word, char *where, char *sect)
{
	size_t n = (size_t)a->argc + 2;
	char **v = realloc(a->argv, n * sizeof(*v));
	char **w, **s;

	if (v)
		a->argv = v;
	w = v ? realloc(a->where, n * sizeof(*w)) : NULL;
	if (w)
		a->where = w;
	s = w ? realloc(a->sect, n * sizeof(*s)) : NULL;
	if (!s)
		return -ENOMEM;
	a->sect = s;
	a->argv[a->argc] = word;
	a->where[a->argc] = where;
	a->sect[a->argc++] = sect;
	a->argv[a->argc] = NULL;
	a->where[a->argc] = NULL;
	a->sect[a->argc] = NULL;
	a->pending += sect != NULL;
	return 0;
}

/*
 * A section header "[NAME]" at @p (blanks around it trimmed): its name,
 * owned by @a, into *@name.  AutoOpts matches a section to its program by
 * the name upper-cased with '_' for '-', so no other name can ever be read:
 * such a header is an error rather than lines dropped unseen.  0, or
 * -EINVAL/-ENOMEM with the reason in @err.
 */
static int section_line(struct opt_argv *a, const char *p, char **name, char *err, size_t len)
{
	size_t n = strlen(p);

	if (n < 3 || p[n - 1] != ']')
		return opts_fail(err, len, "'%.40s': a section header is one name in brackets "
				 "('[TCPREPLAY]')", p);
	for (size_t i = 1; i < n - 1; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return opts_fail(err, len, "'%.40s': a section's name is upper case, as "
					 "tcpreplay's tools match it ('[TCPREPLAY]', '[TCPREWRITE]', "
					 "'[TCPEDIT]', '[TCPPREP]')", p);
	*name = strndup(p + 1, n - 2);
	if (!*name || opt_argv_own(a, *name) < 0)
		return opts_fail(err, len, "out of memory"), -ENOMEM;
	return 0;
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
	if (*p == '<')
		return opts_fail(err, len, "directives ('%.20s') are not supported: sections are "
				 "'[NAME]' lines", p);
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
	d = opt_row_named(set, name);
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

/*
 * One line of a file, in section *@sect (NULL before the first), into
 * *@word: a section header moves *@sect and gives no word; in a section the
 * line is kept as written (a copy), for opts_set_select(); before any, it is
 * turned into its option by config_line().  0, or -EINVAL/-ENOMEM with the
 * reason in @err.
 */
static int file_line(const struct opt_set *set, struct opt_argv *a, char *line, char **sect,
		     char **word, char *err, size_t len)
{
	char *p = line, *end;

	*word = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	if (*p == '[')
		return section_line(a, p, sect, err, len);
	if (!*sect)
		return config_line(set, p, word, err, len);
	if (!*p || *p == '#')
		return 0;
	*word = strdup(p);
	return *word ? 0 : (opts_fail(err, len, "out of memory"), -ENOMEM);
}

/* Every option of @path onto @out, each line checked for its form only: the whole is parsed later. */
static int load_file(const struct opt_set *set, const char *path, struct opt_argv *out, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	unsigned long lineno = 0;
	char line[OPT_LINE_MAX + 1], why[400], *sect = NULL;
	const char *bad;
	int rc = 0, got;

	if (!f) {
		rc = -errno;
		opts_fail(err, errlen, "--load-opts %s: %s", path, strerror(errno));
		return rc;
	}
	while ((got = next_line(f, line, &bad)) != 0) {
		char *word, *where;
		int n;

		lineno++;
		if (got < 0) {
			rc = opts_fail(err, errlen, "%s:%lu: %s", path, lineno, bad);
			break;
		}
		rc = file_line(set, out, line, &sect, &word, why, sizeof(why));
		if (rc < 0) {
			opts_fail(err, errlen, "%s:%lu: %s", path, lineno, why);
			break;
		}
		if (!word)
			continue;
		n = snprintf(NULL, 0, "%s:%lu", path, lineno);
		where = malloc((size_t)n + 1);
		if (where)
			snprintf(where, (size_t)n + 1, "%s:%lu", path, lineno);
		rc = opt_argv_own(out, word);
		if (rc < 0)
			free(where);
		else
			rc = where ? opt_argv_own(out, where) : -ENOMEM;
		if (rc == 0)
			rc = argv_push(out, word, where, sect);
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

/* The FILE of a "--load-opts FILE" or "--load-opts=FILE" at @argv[*@i] (moving *@i past it), or NULL. */
static const char *load_opts_file(int argc, char **argv, int *i, int *rc, char *err, size_t errlen)
{
	if (!strncmp(argv[*i], "--load-opts=", 12))
		return argv[*i] + 12;
	if (strcmp(argv[*i], "--load-opts"))
		return NULL;
	if (*i + 1 >= argc) {
		*rc = opts_fail(err, errlen, "option '--load-opts' needs an argument");
		return NULL;
	}
	return argv[++*i];
}

int opts_set_load(const struct opt_set *set, int argc, char **argv, struct opt_argv *out,
		  char *err, size_t errlen)
{
	bool operands = false;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < argc && rc == 0; i++) {
		const char *file = NULL;

		if (!operands && i > 0 && !strcmp(argv[i], "--"))
			operands = true;
		else if (!operands && i > 0)
			file = load_opts_file(argc, argv, &i, &rc, err, errlen);
		if (rc < 0)
			break;
		if (!file) {
			rc = argv_push(out, argv[i], NULL, NULL);
			if (rc < 0)
				opts_fail(err, errlen, "out of memory");
		} else if (!*file) {
			rc = opts_fail(err, errlen, "--load-opts: the file name is empty");
		} else {
			const char **f = realloc(out->files, ((size_t)out->nfiles + 1) * sizeof(*f));

			if (!f) {
				rc = opts_fail(err, errlen, "out of memory");
				break;
			}
			out->files = f;
			out->files[out->nfiles++] = file;
			rc = load_file(set, file, out, err, errlen);
		}
	}
	if (rc == 0 && !out->argv) {
		/* No arguments at all: still a NULL-terminated vector. */
		out->argv = calloc(1, sizeof(*out->argv));
		out->where = calloc(1, sizeof(*out->where));
		out->sect = calloc(1, sizeof(*out->sect));
		if (!out->argv || !out->where || !out->sect) {
			opts_fail(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	if (rc < 0)
		opt_argv_free(out);
	return rc < 0 ? rc : 0;
}

/* Is @name one of @names (NULL-terminated)? */
static bool named(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

int opts_set_select(const struct opt_set *set, struct opt_argv *a, const char *const *sections,
		    char *err, size_t errlen)
{
	char why[400];
	int n = 0, rc = 0;

	for (int i = 0; i < a->argc; i++) {
		char *word = a->argv[i];

		if (a->sect[i] && !named(sections, a->sect[i]))
			continue;
		if (a->sect[i]) {
			rc = config_line(set, a->argv[i], &word, why, sizeof(why));
			if (rc == 0 && word)
				rc = opt_argv_own(a, word);
			if (rc < 0) {
				opts_fail(err, errlen, "%s: %s", a->where[i], why);
				break;
			}
			if (!word)
				continue;
		}
		a->argv[n] = word;
		a->where[n] = a->where[i];
		a->sect[n++] = NULL;
	}
	if (rc < 0)
		return rc;
	a->argc = n;
	a->argv[n] = NULL;
	a->where[n] = NULL;
	a->sect[n] = NULL;
	a->pending = 0;
	return 0;
}

int opts_set_parse_argv(const struct opt_set *set, void *cfg, const struct opt_argv *a, int *first_arg,
			char *err, size_t errlen)
{
	int bad, rc;
	char why[512];

	if (a->pending)
		return opts_fail(err, errlen, "the config file's sections were not selected");
	rc = opt_parse_core(set, cfg, a->argc, a->argv, first_arg, NULL, &bad, err, errlen);
	if (rc < 0 && bad >= 0 && bad < a->argc && a->where[bad]) {
		snprintf(why, sizeof(why), "%s", err);
		opts_fail(err, errlen, "%s: %s", a->where[bad], why);
	}
	return rc;
}

/* Can @a be written as a config file's value and read back the same? */
static bool writable(const char *a)
{
	size_t n = strlen(a);

	return !strchr(a, '\n') && !strchr(a, '\r') && !(n && (a[0] == ' ' || a[0] == '\t')) &&
	       !(n && (a[n - 1] == ' ' || a[n - 1] == '\t'));
}

/* One option as a config file line. */
static void save_line(FILE *f, const struct opt_def *d, const char *a)
{
	char left[80];
	bool quote;

	if (!a) {
		fprintf(f, "%s\n", d->name);
		return;
	}
	quote = a[0] == '"' || a[0] == '\'' || !*a;
	snprintf(left, sizeof(left), "%s =", d->name);
	/* The column tcpreplay's own --save-opts writes values in. */
	fprintf(f, "%-20s%s%s%s\n", left, quote ? (strchr(a, '"') ? "'" : "\"") : "", a,
		quote ? (strchr(a, '"') ? "'" : "\"") : "");
}

int opts_set_save(const struct opt_set *set, int argc, char **argv, const char *const *skip,
		  FILE *f, char *err, size_t errlen)
{
	struct opt_seen seen = { 0 };
	void *scratch = malloc(set->size);
	int first, bad, rc, written = 0;

	if (!scratch)
		return opts_fail(err, errlen, "out of memory"), -ENOMEM;
	rc = opt_parse_core(set, scratch, argc, argv, &first, &seen, &bad, err, errlen);
	free(scratch);
	for (size_t i = 0; rc == 0 && i < seen.n; i++)
		if (seen.arg[i] && !writable(seen.arg[i]))
			rc = opts_fail(err, errlen, "--%s: the value '%s' cannot be written to a config file "
				       "(a line break or surrounding blanks)", seen.d[i]->name, seen.arg[i]);
	/* In the order given: --impair-flow, --impair-repeat and the like bind to what precedes them. */
	for (size_t i = 0; rc == 0 && i < seen.n; i++) {
		bool skipped = false;

		for (const char *const *s = skip; s && *s; s++)
			skipped |= !strcmp(*s, seen.d[i]->name);
		if (skipped)
			continue;
		save_line(f, seen.d[i], seen.arg[i]);
		written++;
	}
	free(seen.d);
	free(seen.arg);
	return rc < 0 ? rc : written;
}
