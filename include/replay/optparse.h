/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The option machinery both programs share (src/cli/optparse.c).  A table of
 * rows, each binding one long option (and perhaps a short letter) to a field
 * of the program's option struct through the row macros below (which record
 * the field's offset and size and refuse, at compile time, a field of the
 * wrong type).  From the table come the parser, --help, the shell
 * completions, the man page's OPTION RULES section and the config files.
 * A row also carries its rules with other options (struct opt_rule), checked
 * by one checker, opts_set_check(), after parsing.  replay's table is
 * src/cli/opts.c, replay-rx's src/rx/opts.c; this file knows neither.
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

/* Forms of a whole number for opt_parse_u64(). */
enum {
	OPT_NUM_DEC = 0,       /* decimal digits only */
	OPT_NUM_HEX = 1u << 0, /* also 0x (or 0X) and hexadecimal digits */
};

/*
 * opt_parse_u64() - the one reader of whole numbers in option values (every
 * integer row, and the typed parsers of this project's tables): decimal
 * digits, or with OPT_NUM_HEX "0x" and hexadecimal digits; nothing before or
 * after (no blank, sign or suffix).  A decimal number with a leading 0 is
 * refused unless it means the same in octal ("007", "00"): tcpreplay reads
 * "010" as 8, and reading it either way would misread someone's line.  The
 * value must lie in [@min, @max].  0 with *@v, or -EINVAL with the reason
 * (without the option's name: the caller adds it) in @err.
 */
int opt_parse_u64(const char *arg, unsigned forms, uint64_t min, uint64_t max, uint64_t *v, char *err,
		  size_t errlen);

/*
 * opt_parse_size() - a byte count: a whole number as opt_parse_u64() reads
 * it (0x too), then nothing or one of K, M, G (or k, m, g: KiB, MiB, GiB);
 * within [@min, @max] bytes.  0 with *@v, or -EINVAL with the reason in @err.
 */
int opt_parse_size(const char *arg, uint64_t min, uint64_t max, uint64_t *v, char *err, size_t errlen);

enum opt_type {
	OPT_T_FLAG,   /* bool field set to true; no argument */
	OPT_T_SET,    /* int-sized enum field set to .val; no argument */
	OPT_T_COUNT,  /* int field incremented; no argument */
	OPT_T_STR,    /* const char * field = the argument (not empty) */
	OPT_T_UINT,   /* unsigned integer field (2, 4 or 8 bytes; int too): opt_parse_u64() with 0x,
			 within [min, max], stored times .scale (1 if 0) */
	OPT_T_SIZE,   /* as UINT, read by opt_parse_size() (K, M, G suffixes) */
	OPT_T_DOUBLE, /* double field: finite, > 0 and <= .dmax */
	OPT_T_ENUM,   /* int-sized enum or uint16_t field: a name from .choices */
	OPT_T_FUNC,   /* .parse(field, arg, err, len) fills the field */
	OPT_T_FUNC2,  /* .parse2(field, field2, arg, err, len) fills two fields (--pps: rate and mode) */
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

/*
 * A rule between options, carried by the row it constrains (the subject)
 * and checked by opts_set_check() after parsing whenever the subject was
 * given.  @names are the long names of other rows, blank-separated, or
 * "@NAME" for one of the set's conditions (struct opt_cond: "replay prep").
 * A named row is in effect when it (or a row binding the same field the
 * same way: an alias) was given with a value other than the default -- a
 * SET row also when its field holds its value however it got there ("--xdp"
 * is in effect after "--method xdp") -- so "--loop 1" and "--threads 1" put
 * nothing in effect.  NEEDS: one of @names must be in effect; EXCLUDES: none
 * may be.  @why is one line saying why, shown in the refusal ("--pps-multi
 * needs --pps: WHY"), in --help's "(needs --pps)" and in the man page.
 */
enum opt_rule_kind {
	OPT_RULE_END,
	OPT_RULE_NEEDS,
	OPT_RULE_EXCLUDES,
	OPT_RULE_MAX
};

struct opt_rule {
	enum opt_rule_kind kind;
	const char *names;
	const char *why;
};

#define OPT_NEEDS(NAMES, WHY)    { OPT_RULE_NEEDS, (NAMES), (WHY) }
#define OPT_EXCLUDES(NAMES, WHY) { OPT_RULE_EXCLUDES, (NAMES), (WHY) }
/* A row's rules: .rules = OPT_RULES(OPT_NEEDS(...), OPT_EXCLUDES(...)). */
#define OPT_RULES(...) ((const struct opt_rule[]){ __VA_ARGS__, { OPT_RULE_END, NULL, NULL } })

struct opt_def {
	const char *name;      /* long name, without "--" */
	int key;               /* short option letter, or 0 */
	enum opt_type type;
	size_t off;            /* offset of the field in the option struct */
	size_t size;           /* sizeof the field */
	size_t want;           /* OPT_T_FUNC, OPT_T_FUNC2: sizeof the type the parser fills */
	size_t off2, size2, want2; /* OPT_T_FUNC2: the second field, as off, size and want */
	long val;              /* OPT_T_SET: the value stored */
	uint64_t min, max;     /* OPT_T_UINT, OPT_T_SIZE: accepted range, in the option's unit */
	uint64_t scale;        /* OPT_T_UINT: the field holds the value times this (0 = 1) */
	double dmax;           /* OPT_T_DOUBLE: largest value accepted */
	const struct opt_enum *choices; /* OPT_T_ENUM; OPT_T_SET: .val must be one (else not built) */
	const char *metavar;   /* argument name in --help; NULL = no argument */
	unsigned group;        /* index into the set's group_title */
	const char *help;      /* one line */
	bool dash_arg;         /* its argument is options of another program (-A "-e -x"): may start with '-' */
	/*
	 * --help's "(default X)", in the option's unit: .dflt if set, else the
	 * field's value in the set's defaults (ENUM: its name).  For a field
	 * whose "not given" value lets the module choose, .dflt is the
	 * module's constant, so that the number is written once.
	 */
	bool show_dflt;
	uint64_t dflt;
	/*
	 * Another row binding the same field (not an alias) must leave the same
	 * value in it (--xdp-batch-size and --batch): a different one is refused
	 * with this reason.  NULL: the last one given wins.
	 */
	const char *agree;
	/* Not given: the value of row @same_as's field (-I's method is -i's unless --method2 says). */
	const char *same_as;
	const struct opt_rule *rules; /* OPT_RULES(...); NULL: none */
	/* OPT_T_FUNC: parse @arg into @field; 0, or -EINVAL with the reason in @err. */
	int (*parse)(void *field, const char *arg, char *err, size_t errlen);
	/* OPT_T_FUNC2: the same, filling two fields. */
	int (*parse2)(void *field, void *field2, const char *arg, char *err, size_t errlen);
};

/*
 * Row macros.  S is the option struct's type, FIELD a field of it (a path
 * such as sched.timer is fine); the rest are designated initialisers of
 * struct opt_def (.name, .key, .metavar, .group, .help, .min, .max,
 * .rules, ...).  Each fails to compile if FIELD's type is not what the row
 * writes.
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
/* FUNC2: PARSE fills FIELD, of type T, and FIELD2, of type T2 (its rules look at FIELD). */
#define OPT_FUNC2(S, FIELD, T, FIELD2, T2, PARSE, ...)                                             \
	{ .type = OPT_T_FUNC2, OPT_AT_(S, FIELD), .size = OPT_SIZE_IF_(S, FIELD, T: 1),            \
	  .want = sizeof(T), .off2 = offsetof(S, FIELD2), .size2 = OPT_SIZE_IF_(S, FIELD2, T2: 1), \
	  .want2 = sizeof(T2), .parse2 = (PARSE), __VA_ARGS__ }

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

/*
 * A condition rules may name as "@NAME": a state of the whole command line
 * that is no option (replay's "prep" subcommand).  A table ends with a NULL
 * name.
 */
struct opt_cond {
	const char *name;
	const char *text;               /* in messages and the man page: "replay prep" */
	bool (*on)(const void *cfg);
};

/*
 * What was given, kept in the option struct itself (opt_set.given_off) so
 * that anything holding the struct can ask: the rows given, whether by their
 * short letter, and the last argument of each.
 */
#define OPT_ROWS_MAX 192

struct opt_given {
	uint64_t row[OPT_ROWS_MAX / 64];
	uint64_t letter[OPT_ROWS_MAX / 64];
	const char *arg[OPT_ROWS_MAX];
};

/* One program's options: what opts_set_parse() and opts_set_usage() work from. */
struct opt_set {
	const struct opt_def *table;
	size_t n;                        /* rows in table, at most OPT_ROWS_MAX */
	const char *const *group_title;  /* indexed by opt_def.group; groups print in this order */
	unsigned ngroups;
	const void *defaults;            /* copied over the struct before parsing */
	size_t size;                     /* sizeof the struct */
	size_t given_off;                /* offsetof the struct's struct opt_given */
	const char *synopsis;            /* after "Usage: PROG ", e.g. "[options] FILE..." */
	const char *about;               /* one line under the synopsis */
	const char *epilog;              /* printed after the options (exit statuses); may be NULL */
	/* Hint tables (struct opt_hint), searched in order, the first match wins; NULL-terminated; may be NULL. */
	const struct opt_hint *const *hints;
	const struct opt_cond *conds;    /* conditions rules name as "@NAME"; may be NULL */
};

/*
 * opt_hint_find() - the first hint in @set for short letter @key (if
 * nonzero) or long name @name (if not NULL), or NULL.
 */
const struct opt_hint *opt_hint_find(const struct opt_set *set, int key, const char *name);

/*
 * opts_set_parse() - fill @cfg (a struct of @set->size bytes) from @argv
 * (argv[0] is skipped) after copying the set's defaults over it, recording
 * what was given in its struct opt_given.  On success returns 0 with
 * *@first_arg the index in @argv of the first operand.  Returns -EINVAL
 * with a one-line reason (without the program name) in @err, or -ENOMEM.
 * Long options must be spelled in full (getopt_long's prefix abbreviations
 * are refused: "--stats" never becomes "--stats-json"); an option's
 * argument given as the next word may not look like an option ("-w -q":
 * attached, "-w-q" or "--write=-q", it is meant; "-" and negative numbers
 * are arguments); a refused hint (set->hints) is an error naming it; two
 * rows of one field that must agree (opt_def.agree) must.  How the options
 * combine is opts_set_check()'s.  Never prints and never exits (the fuzz
 * target fuzz_opts relies on it).
 */
int opts_set_parse(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   char *err, size_t errlen);

/*
 * opts_set_check() - the one checker of the rows' rules (opt_def.rules) on
 * @cfg as opts_set_parse() left it: every row given, in table order, each
 * of its rules in order.  0, or -EINVAL with the first rule broken in @err:
 * "SUBJECT needs TARGET[ or TARGET...]: WHY" or "SUBJECT excludes TARGET:
 * WHY", each option spelled as it was given (-w or --write).
 */
int opts_set_check(const struct opt_set *set, const void *cfg, char *err, size_t errlen);

/*
 * opt_given() - was row @name (or an alias of it) given in @cfg?
 * opt_in_effect() - is it in effect (given with a value other than the
 * default; see struct opt_rule)?  Both false for a name not in the table.
 */
bool opt_given(const struct opt_set *set, const void *cfg, const char *name);
bool opt_in_effect(const struct opt_set *set, const void *cfg, const char *name);

/*
 * opts_set_excluder() - the first row given in @cfg (table order) whose rules
 * exclude row @name, spelled as given ("-v", "--limit") into @buf; NULL if
 * none.  (replay asks which option keeps one sender thread.)
 */
const char *opts_set_excluder(const struct opt_set *set, const void *cfg, const char *name, char *buf,
			      size_t len);

/*
 * Config files, tcpreplay's --load-opts/--save-opts (AutoOpts "rc" files).
 * A file holds one option a line: "name", "name value", "name = value" or
 * "name: value", the long name without "--" in any case; blank lines and
 * lines starting with '#' are skipped; the value is the rest of the line
 * without surrounding blanks, and a value in matching double or single
 * quotes loses them.  A line "[NAME]" opens a section, as AutoOpts has
 * them: the lines before any section apply to every command, a section's
 * lines only where the caller selects it (opts_set_select()), and the
 * others are skipped unread.  NAME is upper case, digits and '_' (the only
 * names AutoOpts matches; another is an error: its lines would be dropped
 * unseen).  Where tcpreplay ignores what it does not know, a name that is
 * not an option, a value on a switch, a missing value, a directive ("<?")
 * or a --load-opts inside a file is an error naming the file and line.  A
 * file's options take its place on the command line, which is then parsed
 * and checked as one: a line may depend on the lines around it (impair-flow
 * on the impair before it), and a bad value is still named by its file and
 * line.
 */
struct opt_argv {
	int argc;
	char **argv;   /* the arguments with every --load-opts FILE replaced by its options */
	char **where;  /* argc entries: "FILE:LINE" of a word from a file, NULL for the command line's */
	char **sect;   /* argc entries: the section of a file's line (its argv entry the line as
			  written until opts_set_select()); NULL for every other word */
	char **owned;  /* the words and places made from files, freed by opt_argv_free() */
	size_t nowned;
	const char **files; /* the config files read, in order (inputs of the run: never overwritten) */
	int nfiles;
	int pending;   /* lines in sections not yet selected or skipped */
};

/*
 * opts_set_load() - expand every "--load-opts FILE" (or "--load-opts=FILE")
 * of @argv before any "--" into the options FILE holds, in place, each line
 * outside a section checked for its form (a known name, a value where one
 * is taken); the lines of its sections are kept as written, for
 * opts_set_select().  @out gets the new vector (a copy of @argv when there
 * is nothing to expand), which lives until opt_argv_free().  0, or
 * -EINVAL/-ENOMEM/-errno with "FILE:LINE: reason" in @err.
 */
int opts_set_load(const struct opt_set *set, int argc, char **argv, struct opt_argv *out,
		  char *err, size_t errlen);
void opt_argv_free(struct opt_argv *a);

/* opt_argv_own() - keep @p (malloc'd) until opt_argv_free(@a); 0, or -ENOMEM with @p freed. */
int opt_argv_own(struct opt_argv *a, char *p);

/*
 * opts_set_select() - keep the lines of @a's sections named in @sections
 * (NULL-terminated, such as "TCPREPLAY"), each checked for its form and
 * turned into its option where it stands, and drop the other sections'
 * lines.  Must precede opts_set_parse_argv() when @a holds sections.  0, or
 * -EINVAL/-ENOMEM with "FILE:LINE: reason" in @err.
 */
int opts_set_select(const struct opt_set *set, struct opt_argv *a, const char *const *sections,
		    char *err, size_t errlen);

/*
 * opts_set_parse_argv() - opts_set_parse() of a vector opts_set_load()
 * made: an error about a word from a file starts with its "FILE:LINE: ".
 */
int opts_set_parse_argv(const struct opt_set *set, void *cfg, const struct opt_argv *a, int *first_arg,
			char *err, size_t errlen);

/*
 * opts_set_save() - write the options of @argv (as opts_set_parse() takes
 * them, already expanded) to @f in the config file form above, one per line,
 * in the order given (so that what depends on order, such as --impair-flow
 * after its --impair, reads back the same), without the rows named in @skip
 * (NULL-terminated: "save-opts", "load-opts") and without the operands.  A
 * value that cannot be written back as it was (a newline, surrounding
 * blanks) is an error.  Returns the number of options written, or
 * -EINVAL/-ENOMEM with the reason in @err.
 */
int opts_set_save(const struct opt_set *set, int argc, char **argv, const char *const *skip,
		  FILE *f, char *err, size_t errlen);

/*
 * opts_set_usage() - print the --help of @set, for program @prog, to @f:
 * each row's help, its default and its rules ("(needs --pps; not with -w)").
 */
void opts_set_usage(const struct opt_set *set, FILE *f, const char *prog);

/*
 * opts_set_rules_roff() - print the rules of @set's rows (opt_def.rules) as
 * an mdoc list, one item per row that has any, for the man page's OPTION
 * RULES section (tests compare the man page with this).
 */
void opts_set_rules_roff(const struct opt_set *set, FILE *f);

/*
 * opt_def_arg() - what kind of argument row @d takes (OPT_ARG_*): for
 * --help and for generated shell completions.
 */
enum opt_arg opt_def_arg(const struct opt_def *d);

/*
 * opt_def_dflt() - row @d's default as --help shows it, into @buf ("1000",
 * "32M", "hybrid"); false if the row shows none.
 */
bool opt_def_dflt(const struct opt_set *set, const struct opt_def *d, char *buf, size_t len);

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
