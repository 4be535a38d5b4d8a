/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The option machinery both programs share (src/cli/optparse.c): a table of
 * rows, each binding one long option (and perhaps a short letter) to one
 * field of the program's option struct, parsed with getopt_long and printed
 * as --help.  replay's table is in src/cli/opts.c, replay-rx's in src/rx/opts.c;
 * this file knows neither.
 *
 * A row is written with one of the OPT_* row macros below, which take the
 * struct type and the field by name: the macro records the field's offset
 * and size (tests/unit/test_opts.c checks every row's size against what its
 * type stores) and, at compile time, that the field has the type the row
 * writes.  Nothing is cast by hand.
 *
 * Enumerated values are {name, value} tables (struct opt_enum, ending with
 * a NULL name) owned by the module whose config holds the field, declared in
 * its header: the same table parses the option, names the value for the
 * summary and JSON (opt_enum_name()) and lists the choices in --help.
 */
#ifndef REPLAY_OPTPARSE_H
#define REPLAY_OPTPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/compiler.h"

/* One accepted spelling of an enumerated value; a table ends with { NULL, 0 }. */
struct opt_enum {
	const char *name;
	int value;
};

/*
 * opt_enum_find() - the value named @name in @e; 0 and *@value, or -EINVAL.
 * opt_enum_name() - the first name of @value in @e, or "?".
 */
int opt_enum_find(const struct opt_enum *e, const char *name, int *value);
const char *opt_enum_name(const struct opt_enum *e, int value);

enum opt_type {
	OPT_T_FLAG,   /* bool field set to true; no argument */
	OPT_T_SET,    /* int-sized enum field set to .val; no argument */
	OPT_T_COUNT,  /* int field incremented; no argument */
	OPT_T_STR,    /* const char * field = the argument (not empty) */
	OPT_T_UINT,   /* unsigned integer field (2, 4 or 8 bytes; int too): decimal within
			 [min, max], stored times .scale (1 if 0) */
	OPT_T_SIZE,   /* as UINT, bytes with an optional K, M or G suffix (powers of 1024) */
	OPT_T_DOUBLE, /* double field: finite, > 0 and <= .dmax */
	OPT_T_ENUM,   /* int-sized enum or uint16_t field: a name from .choices */
	OPT_T_FUNC,   /* .parse(field, arg, err, len) fills the field */
	OPT_T_MAX
};

/* What an option's argument is, for --help and the completion generator. */
enum opt_arg {
	OPT_ARG_NONE,   /* a switch */
	OPT_ARG_FILE,   /* a path (STR rows whose metavar is FILE or DIR) */
	OPT_ARG_ENUM,   /* one of opt_def.choices */
	OPT_ARG_OTHER,  /* anything else: a number, an interface, an expression */
	OPT_ARG_MAX
};

struct opt_def {
	const char *name;      /* long name, without "--" */
	int key;               /* short option letter, or 0 */
	enum opt_type type;
	size_t off;            /* offset of the field in the option struct */
	size_t size;           /* sizeof the field */
	size_t want;           /* OPT_T_FUNC: sizeof the type the parser fills */
	long val;              /* OPT_T_SET: the value stored */
	uint64_t min, max;     /* OPT_T_UINT, OPT_T_SIZE: accepted range, in the option's unit */
	uint64_t scale;        /* OPT_T_UINT: the field holds the value times this (0 = 1) */
	double dmax;           /* OPT_T_DOUBLE: largest value accepted */
	const struct opt_enum *choices; /* OPT_T_ENUM */
	const char *metavar;   /* argument name in --help; NULL = no argument */
	unsigned group;        /* index into the set's group_title */
	const char *help;      /* one line */
	bool dash_arg;         /* its argument is options of another program (-A "-e -x"): may start with '-' */
	/* OPT_T_FUNC: parse @arg into @field; 0, or -EINVAL with the reason in @err. */
	int (*parse)(void *field, const char *arg, char *err, size_t errlen);
};

/*
 * Row macros.  S is the option struct's type, FIELD a field of it (a path
 * such as sched.timer is fine); the rest are designated initialisers of
 * struct opt_def (.name, .key, .metavar, .group, .help, .min, .max, ...).
 * Each fails to compile if FIELD's type is not what the row writes.
 */
#define OPT_FIELD_(S, FIELD) (((S *)0)->FIELD)
/* sizeof FIELD, failing to compile unless FIELD has one of the types listed (each ": 1"). */
#define OPT_SIZE_IF_(S, FIELD, ...)                                                                \
	(sizeof(OPT_FIELD_(S, FIELD)) + 0 * sizeof(_Generic(OPT_FIELD_(S, FIELD), __VA_ARGS__)))
#define OPT_AT_(S, FIELD) .off = offsetof(S, FIELD)

#define OPT_FLAG(S, FIELD, ...)                                                                    \
	{ .type = OPT_T_FLAG, OPT_AT_(S, FIELD), .size = OPT_SIZE_IF_(S, FIELD, bool: 1),          \
	  __VA_ARGS__ }
#define OPT_COUNT(S, FIELD, ...)                                                                   \
	{ .type = OPT_T_COUNT, OPT_AT_(S, FIELD), .size = OPT_SIZE_IF_(S, FIELD, int: 1),          \
	  __VA_ARGS__ }
#define OPT_STR(S, FIELD, ...)                                                                     \
	{ .type = OPT_T_STR, OPT_AT_(S, FIELD), .size = OPT_SIZE_IF_(S, FIELD, const char *: 1),   \
	  __VA_ARGS__ }
/* An unsigned (or int) field of any width; the range must fit it (the unit test checks). */
#define OPT_UINT(S, FIELD, ...)                                                                    \
	{ .type = OPT_T_UINT, OPT_AT_(S, FIELD),                                                   \
	  .size = OPT_SIZE_IF_(S, FIELD, unsigned short: 1, unsigned: 1, int: 1,                   \
			       unsigned long: 1, unsigned long long: 1),                           \
	  __VA_ARGS__ }
#define OPT_SIZE(S, FIELD, ...)                                                                    \
	{ .type = OPT_T_SIZE, OPT_AT_(S, FIELD),                                                   \
	  .size = OPT_SIZE_IF_(S, FIELD, unsigned: 1, unsigned long: 1, unsigned long long: 1),    \
	  __VA_ARGS__ }
#define OPT_DOUBLE(S, FIELD, ...)                                                                  \
	{ .type = OPT_T_DOUBLE, OPT_AT_(S, FIELD), .size = OPT_SIZE_IF_(S, FIELD, double: 1),      \
	  __VA_ARGS__ }
/* SET: an enum field given .val; ENUM: an enum (or uint16_t) field given a name from CHOICES. */
#define OPT_SET(S, FIELD, ...)                                                                     \
	{ .type = OPT_T_SET, OPT_AT_(S, FIELD),                                                    \
	  .size = OPT_SIZE_IF_(S, FIELD, unsigned: 1, int: 1), __VA_ARGS__ }
#define OPT_ENUM(S, FIELD, CHOICES, ...)                                                           \
	{ .type = OPT_T_ENUM, OPT_AT_(S, FIELD),                                                   \
	  .size = OPT_SIZE_IF_(S, FIELD, unsigned short: 1, unsigned: 1, int: 1),                  \
	  .choices = (CHOICES), __VA_ARGS__ }
/* FUNC: FIELD must be of type T, the type PARSE fills. */
#define OPT_FUNC(S, FIELD, T, PARSE, ...)                                                          \
	{ .type = OPT_T_FUNC, OPT_AT_(S, FIELD), .size = OPT_SIZE_IF_(S, FIELD, T: 1),             \
	  .want = sizeof(T), .parse = (PARSE), __VA_ARGS__ }

/*
 * A spelling another tool (tcpreplay, tcprewrite, tcpprep) gives a meaning
 * replay does not: a short letter (.key) or a long name (.name, without
 * "--"), and a one-line hint naming the other tool's meaning and replay's
 * spelling.  With .refuse the option is refused with the hint, even where
 * the letter is in the table (a subcommand refusing a letter the main
 * command uses); without, the letter keeps replay's meaning and the hint is
 * added to an error about its argument (tcprewrite's "-w -q").  A table
 * ends with a row whose key and name are both 0.
 */
struct opt_hint {
	int key;
	const char *name;
	const char *hint;
	bool refuse;
};

/* One program's options: what opts_set_parse() and opts_set_usage() work from. */
struct opt_set {
	const struct opt_def *table;
	size_t n;                        /* rows in table */
	const char *const *group_title;  /* indexed by opt_def.group; groups print in this order */
	unsigned ngroups;
	const void *defaults;            /* copied over the struct before parsing */
	size_t size;                     /* sizeof the struct */
	const char *synopsis;            /* after "Usage: PROG ", e.g. "[options] FILE..." */
	const char *about;               /* one line under the synopsis */
	const char *epilog;              /* printed after the options (exit statuses); may be NULL */
	/* Hint tables (struct opt_hint), searched in order, the first match wins; NULL-terminated; may be NULL. */
	const struct opt_hint *const *hints;
};

/*
 * opt_hint_find() - the first hint in @set for short letter @key (if
 * nonzero) or long name @name (if not NULL), or NULL.
 */
const struct opt_hint *opt_hint_find(const struct opt_set *set, int key, const char *name);

/*
 * opts_set_parse() - fill @cfg (a struct of @set->size bytes) from @argv
 * (argv[0] is skipped) after copying the set's defaults over it.  On success
 * returns 0 with *@first_arg the index in @argv of the first operand.
 * Returns -EINVAL with a one-line reason (without the program name) in @err,
 * or -ENOMEM.  Long options must be spelled in full (getopt_long's prefix
 * abbreviations are refused: "--stats" never becomes "--stats-json"); an
 * option's argument given as the next word may not look like an option
 * ("-w -q": attached, "-w-q" or "--write=-q", it is meant; "-" and negative
 * numbers are arguments); a refused hint (set->hints) is an error naming it.  Only the options are checked, not how they combine.  Never
 * prints and never exits (the fuzz target fuzz_opts relies on it).
 */
int opts_set_parse(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   char *err, size_t errlen);

/*
 * Config files, tcpreplay's --load-opts/--save-opts (AutoOpts "rc" files).
 * A file holds one option a line: "name", "name value", "name = value" or
 * "name: value", the long name without "--" in any case; blank lines and
 * lines starting with '#' are skipped; the value is the rest of the line
 * without surrounding blanks, and a value in matching double or single
 * quotes loses them.  Where tcpreplay ignores what it does not know, a name
 * that is not an option, a value on a switch, a missing value, a bad value,
 * a section header ("[name]") or a --load-opts inside a file is an error
 * naming the file and line.
 */
struct opt_argv {
	int argc;
	char **argv;   /* the arguments with every --load-opts FILE replaced by its options */
	char **owned;  /* the words made from files, freed by opt_argv_free() */
	size_t nowned;
};

/*
 * opts_set_load() - expand every "--load-opts FILE" (or "--load-opts=FILE")
 * of @argv before any "--" into the options FILE holds, in place, each line
 * checked by parsing it alone.  @out gets the new vector (a copy of @argv
 * when there is nothing to expand), which lives until opt_argv_free().  0,
 * or -EINVAL/-ENOMEM/-errno with "FILE:LINE: reason" in @err.
 */
int opts_set_load(const struct opt_set *set, int argc, char **argv, struct opt_argv *out,
		  char *err, size_t errlen);
void opt_argv_free(struct opt_argv *a);

/*
 * opts_set_save() - write the options of @argv (as opts_set_parse() takes
 * them, already expanded) to @f in the config file form above, one per line,
 * in the table's order (a repeated option in the order given), without the
 * rows named in @skip (NULL-terminated: "save-opts", "load-opts") and
 * without the operands.  A value that cannot be written back as it was (a
 * newline, surrounding blanks) is an error.  Returns the number of options
 * written, or -EINVAL/-ENOMEM with the reason in @err.
 */
int opts_set_save(const struct opt_set *set, int argc, char **argv, const char *const *skip,
		  FILE *f, char *err, size_t errlen);

/* opts_set_usage() - print the --help of @set, for program @prog, to @f. */
void opts_set_usage(const struct opt_set *set, FILE *f, const char *prog);

/*
 * opt_def_arg() - what kind of argument row @d takes (OPT_ARG_*): for
 * --help and for generated shell completions.
 */
enum opt_arg opt_def_arg(const struct opt_def *d);

/*
 * The table accessor, for tools that document or complete the options
 * (shell completions): a program's set is reached by its own accessor --
 * opts_replay_set() (replay/opts.h) and rx_opts_set() (src/rx/rx.h).  Walk
 * set->table[0 .. set->n): for each row, .name is the long option (without
 * "--"), .key its short letter (0 if none), opt_def_arg() the kind of
 * argument, and for OPT_ARG_ENUM .choices the accepted names (a { NULL }
 * terminated struct opt_enum array; aliases included, in table order).
 * Several rows may bind the same field (aliases such as --intf1 and
 * --interface); each is a separate row.
 */

/* opts_fail() - a usage error: format the reason into @err; returns -EINVAL. */
int opts_fail(char *err, size_t len, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
