/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the option machinery (replay/optparse.h): what its three files
 * share.  optparse.c parses, optrules.c checks the rules and prints --help
 * and the man page's rules, optfile.c reads and writes config files.
 */
#ifndef REPLAY_OPTPARSE_INT_H
#define REPLAY_OPTPARSE_INT_H

#include "replay/optparse.h"

static inline const struct opt_given *opt_given_of(const struct opt_set *set, const void *cfg)
{
	return (const struct opt_given *)((const char *)cfg + set->given_off);
}

static inline bool opt_bit(const uint64_t *bits, size_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

/* The row of @set named @name, or NULL. */
const struct opt_def *opt_row_named(const struct opt_set *set, const char *name);

/* Do rows @a and @b bind the same field the same way (--speed and --multiplier)? */
bool opt_alias(const struct opt_def *a, const struct opt_def *b);

/* @d as the user gave it into @buf: "-w" or "--write", then " ARG" if @with_arg and it took one. */
const char *opt_spelled(const struct opt_set *set, const void *cfg, const struct opt_def *d, bool with_arg,
			char *buf, size_t len);

/* "a, b or c" (@last_sep between the last two) of @e's names into @buf. */
void opt_enum_list(const struct opt_enum *e, const char *last_sep, char *buf, size_t len);

/* The options parsed, in order, with their arguments (opts_set_save() writes them). */
struct opt_seen {
	const struct opt_def **d;
	const char **arg;
	size_t n, cap;
};

/*
 * opt_parse_core() - opts_set_parse(), also telling @seen (if not NULL) of
 * every option parsed and, on an error about one word, its index in *@bad
 * (-1 otherwise).
 */
int opt_parse_core(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   struct opt_seen *seen, int *bad, char *err, size_t errlen);

#endif
