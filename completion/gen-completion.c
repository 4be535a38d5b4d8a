// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen-completion: write the bash or zsh completion of replay or replay-rx
 * from the programs' own option tables, at build time, so that a completion
 * never lists an option the program lacks or misses one it has.  replay's
 * holds "replay bridge"'s too, from its own table, for the words after
 * "bridge".
 *
 *   gen-completion bash|zsh replay|replay-rx OUT
 *
 * Only collect() reads the tables; everything else works from its
 * struct comp_opt rows.  A value is completed from the option's argument
 * name: IF an interface, FILE a file, DIR a directory, "a|b" one of the words;
 * other values (numbers, expressions) get no suggestion.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/bridge_opts.h"
#include "replay/optparse.h"
#include "replay/opts.h"
#include "rx.h"

struct comp_opt {
	const char *name;    /* long name, without "--" */
	int key;             /* short letter, or 0 */
	const char *metavar; /* argument name; NULL = takes none */
	char *words;         /* an enumerated value's "a|b|c" (metavar points to it), or NULL */
	const char *help;    /* one line */
};

struct comp_prog {
	const char *prog;
	const char *fn;       /* bash function name */
	const char *operand;  /* what the operands are: "trace file", "interface", "" = none */
	const char *subcmds;  /* words valid as the first argument, or NULL */
	struct comp_opt *opts;
	size_t n;
};

/* The one place that knows the option tables (src/cli/opts.c, src/rx/opts.c). */
static int collect(const char *prog, struct comp_prog *p)
{
	const struct opt_def *t;
	size_t n;

	if (!strcmp(prog, "replay")) {
		t = opts_table(&n);
		*p = (struct comp_prog){ .prog = "replay", .fn = "_replay", .operand = "trace file",
					 .subcmds = "prep live serve bridge" };
	} else if (!strcmp(prog, "replay-bridge")) {
		const struct opt_set *s = bridge_opts_set();

		t = s->table;
		n = s->n;
		*p = (struct comp_prog){ .prog = "replay bridge", .fn = "_replay_bridge",
					 .operand = "interface" };
	} else if (!strcmp(prog, "replay-rx")) {
		const struct opt_set *s = rx_opts_set();

		t = s->table;
		n = s->n;
		*p = (struct comp_prog){ .prog = "replay-rx", .fn = "_replay_rx", .operand = "" };
	} else {
		return -EINVAL;
	}
	p->opts = calloc(n, sizeof(*p->opts));
	if (!p->opts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		p->opts[i] = (struct comp_opt){ t[i].name, t[i].key, t[i].metavar, NULL, t[i].help };
		/* An enumerated value completes to its module's names: "a|b|c". */
		if (opt_def_arg(&t[i]) == OPT_ARG_ENUM && t[i].choices) {
			char *w = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&w, &len);

			if (!m)
				return -ENOMEM;
			for (const struct opt_enum *e = t[i].choices; e->name; e++)
				fprintf(m, "%s%s", e == t[i].choices ? "" : "|", e->name);
			if (fclose(m) != 0)
				return -ENOMEM;
			p->opts[i].metavar = p->opts[i].words = w;
		}
	}
	p->n = n;
	return 0;
}

/* What a value completes to. */
enum vkind { V_NONE, V_IF, V_FILE, V_DIR, V_WORDS };

static enum vkind value_kind(const struct comp_opt *o)
{
	if (!o->metavar)
		return V_NONE;
	if (!strcmp(o->metavar, "IF"))
		return V_IF;
	if (!strcmp(o->metavar, "FILE"))
		return V_FILE;
	if (!strcmp(o->metavar, "DIR"))
		return V_DIR;
	if (strchr(o->metavar, '|'))
		return V_WORDS;
	return V_NONE;
}

/* The words of an "a|b|c" argument name, space-separated. */
static void words(const char *metavar, FILE *f)
{
	for (const char *c = metavar; *c; c++)
		fputc(*c == '|' ? ' ' : *c, f);
}

static void bash_names(const struct comp_opt *o, FILE *f, const char *sep)
{
	fprintf(f, "--%s", o->name);
	if (o->key)
		fprintf(f, "%s-%c", sep, o->key);
}

/* The completion function of @p; with @sub, the words after "bridge" go to its function. */
static void bash_fn(const struct comp_prog *p, const struct comp_prog *sub, FILE *f)
{
	fprintf(f, "%s()\n{\n", p->fn);
	if (sub)
		fprintf(f, "\tif ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} == bridge ]]; then\n"
			   "\t\t%s\n\t\treturn\n\tfi\n",
			sub->fn);
	fputs("\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev='' i=$COMP_CWORD\n"
	      "\t# --opt=value: bash splits at '=', so the option is two words back.\n"
	      "\tif [[ $cur == = ]]; then cur=''; ((i++)); fi\n"
	      "\t((i > 0)) && prev=${COMP_WORDS[i - 1]}\n"
	      "\tif [[ $prev == = ]] && ((i > 1)); then prev=${COMP_WORDS[i - 2]}; fi\n"
	      "\tCOMPREPLY=()\n"
	      "\tcase $prev in\n",
	      f);
	for (enum vkind k = V_IF; k <= V_WORDS; k++) {
		for (size_t i = 0; i < p->n; i++) {
			const struct comp_opt *o = &p->opts[i];

			if (value_kind(o) != k)
				continue;
			fputs("\t", f);
			bash_names(o, f, "|");
			fputs(")\n\t\t", f);
			switch (k) {
			case V_IF:
				fputs("COMPREPLY=($(compgen -W \"$(command ls /sys/class/net 2>/dev/null)\" -- \"$cur\"))", f);
				break;
			case V_FILE:
				fputs("compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))", f);
				break;
			case V_DIR:
				fputs("compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))", f);
				break;
			case V_WORDS:
				fputs("COMPREPLY=($(compgen -W \"", f);
				words(o->metavar, f);
				fputs("\" -- \"$cur\"))", f);
				break;
			case V_NONE:
				break;
			}
			fputs("\n\t\treturn ;;\n", f);
		}
	}
	/* Other options that take a value: nothing to suggest, and no option names either. */
	{
		bool any = false;

		for (size_t i = 0; i < p->n; i++) {
			const struct comp_opt *o = &p->opts[i];

			if (!o->metavar || value_kind(o) != V_NONE)
				continue;
			fputs(any ? "|" : "\t", f);
			bash_names(o, f, "|");
			any = true;
		}
		if (any)
			fputs(")\n\t\treturn ;;\n", f);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; i < p->n; i++) {
		if (i)
			fputc(' ', f);
		bash_names(&p->opts[i], f, " ");
	}
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n", f);
	if (p->subcmds)
		fprintf(f, "\tif ((i == 1)); then\n"
			   "\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n"
			   "\tfi\n",
			p->subcmds);
	if (!strcmp(p->operand, "interface"))
		fputs("\tCOMPREPLY+=($(compgen -W \"$(command ls /sys/class/net 2>/dev/null)\" -- \"$cur\"))\n", f);
	else if (*p->operand)
		fputs("\tcompopt -o filenames 2>/dev/null\n"
		      "\tCOMPREPLY+=($(compgen -f -- \"$cur\"))\n",
		      f);
	fputs("}\n", f);
}

static void bash(const struct comp_prog *p, const struct comp_prog *sub, FILE *f)
{
	fprintf(f, "# bash completion for %s -*- shell-script -*-\n"
		   "# Generated from %s's option table%s by gen-completion; do not edit.\n\n",
		p->prog, p->prog, sub ? " and replay bridge's" : "");
	if (sub)
		bash_fn(sub, NULL, f);
	bash_fn(p, sub, f);
	fprintf(f, "complete -F %s %s\n", p->fn, p->prog);
}

/* Help text inside a zsh _arguments spec: inside '...' and [...]. */
static void zsh_text(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
}

static void zsh_action(const struct comp_opt *o, FILE *f)
{
	fputc(':', f);
	zsh_text(o->metavar, f);
	fputc(':', f);
	switch (value_kind(o)) {
	case V_IF:
		fputs("_net_interfaces", f);
		break;
	case V_FILE:
		fputs("_files", f);
		break;
	case V_DIR:
		fputs("_files -/", f);
		break;
	case V_WORDS:
		fputs("(", f);
		words(o->metavar, f);
		fputs(")", f);
		break;
	case V_NONE:
		fputs(" ", f);
		break;
	}
}

/* The _arguments call of @p's options and operands. */
static void zsh_args(const struct comp_prog *p, FILE *f)
{
	fputs("_arguments -s -S \\\n", f);
	for (size_t i = 0; i < p->n; i++) {
		const struct comp_opt *o = &p->opts[i];
		const char *arg = o->metavar ? "=" : "";

		/* Every option may be given again (the last one counts, or they add up). */
		if (o->key)
			fprintf(f, "  '*'{-%c%s,--%s%s}'[", o->key, o->metavar ? "+" : "", o->name, arg);
		else
			fprintf(f, "  '*--%s%s[", o->name, arg);
		zsh_text(o->help, f);
		fputc(']', f);
		if (o->metavar)
			zsh_action(o, f);
		fputs("' \\\n", f);
	}
	if (p->subcmds)
		fprintf(f, "  '1: :(%s)' \\\n", p->subcmds);
	if (!strcmp(p->operand, "interface"))
		fputs("  '*:interface:_net_interfaces'\n", f);
	else if (*p->operand)
		fprintf(f, "  '*:%s:_files'\n", p->operand);
	else
		fputs("  && return 0\n", f);
}

/* With @sub, the words after "bridge" are completed as its own command line. */
static void zsh(const struct comp_prog *p, const struct comp_prog *sub, FILE *f)
{
	fprintf(f, "#compdef %s\n"
		   "# zsh completion for %s, generated from its option table%s by gen-completion;\n"
		   "# do not edit.\n\n",
		p->prog, p->prog, sub ? " and replay bridge's" : "");
	if (sub) {
		fputs("if (( CURRENT > 2 )) && [[ $words[2] == bridge ]]; then\n"
		      "shift words\n(( CURRENT-- ))\n",
		      f);
		zsh_args(sub, f);
		fputs("return\nfi\n", f);
	}
	zsh_args(p, f);
}

int main(int argc, char **argv)
{
	struct comp_prog p, sub = { 0 };
	bool with_sub;
	FILE *f;

	if (argc != 4 || (strcmp(argv[1], "bash") && strcmp(argv[1], "zsh"))) {
		fprintf(stderr, "usage: gen-completion bash|zsh replay|replay-rx OUT\n");
		return 2;
	}
	if (!strcmp(argv[2], "replay-bridge") || collect(argv[2], &p) < 0) {
		fprintf(stderr, "gen-completion: %s: no such program (replay or replay-rx)\n", argv[2]);
		return 2;
	}
	with_sub = !strcmp(argv[2], "replay");
	if (with_sub && collect("replay-bridge", &sub) < 0) {
		fprintf(stderr, "gen-completion: out of memory\n");
		return 1;
	}
	f = fopen(argv[3], "w");
	if (!f) {
		fprintf(stderr, "gen-completion: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "bash"))
		bash(&p, with_sub ? &sub : NULL, f);
	else
		zsh(&p, with_sub ? &sub : NULL, f);
	for (size_t i = 0; i < p.n; i++)
		free(p.opts[i].words);
	free(p.opts);
	for (size_t i = 0; i < sub.n; i++)
		free(sub.opts[i].words);
	free(sub.opts);
	if (fclose(f) != 0) {
		fprintf(stderr, "gen-completion: %s: %s\n", argv[3], strerror(errno));
		remove(argv[3]);
		return 1;
	}
	return 0;
}
