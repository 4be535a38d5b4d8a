// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the programs' option parsers: the input, split at NUL bytes, is the
 * argument vector after the program name, given to replay's opts_parse(),
 * to replay bridge's bridge_opts_parse() (whose accepted edits must pass
 * the edit checks in each direction, and whose impairment sources are each
 * direction's traces, then its model) and to replay-rx's rx_opts_parse().
 * Each must accept or refuse with a reason -- never crash, read out of
 * bounds, overflow (UBSan) or exit (the parsers return every error; none
 * calls exit()).  An accepted command line
 * must round-trip: saved by --save-opts and read back by --load-opts, it
 * gives the same options, compared field by field (impairment sources and
 * their order too).  The same bytes are also a config file read by
 * --load-opts, then written back and read again: what is saved must load.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/bridge_opts.h"
#include "replay/opts.h"
#include "rx.h"

/* Stop with the two differing values named: a round trip changed an option. */
#define DIFFER(...)                                                                                \
	do {                                                                                       \
		fprintf(stderr, "round trip: " __VA_ARGS__);                                        \
		fputc('\n', stderr);                                                                \
		__builtin_trap();                                                                  \
	} while (0)

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Split @buf (@len bytes, NUL at buf[len]) into argv after @prog; returns argc. */
static int split(char *buf, size_t len, char *prog, char **argv)
{
	int argc = 0;

	argv[argc++] = prog;
	for (size_t i = 0; i <= len && argc < ARGS_MAX; i++) {
		argv[argc++] = buf + i;
		i += strlen(buf + i);
	}
	argv[argc] = NULL;
	return argc;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Two actions alike, in what they hold (the arrays only up to their counts). */
static bool same_action(const struct impair_action *a, const struct impair_action *b)
{
	if (a->drop != b->drop || a->ndup != b->ndup || a->ncorrupt != b->ncorrupt || a->src != b->src ||
	    a->delay_ns != b->delay_ns)
		return false;
	for (unsigned i = 0; i < a->ndup && i < IMPAIR_MAX_DUP; i++)
		if (a->dup_delay_ns[i] != b->dup_delay_ns[i])
			return false;
	for (unsigned i = 0; i < a->ncorrupt && i < IMPAIR_MAX_CORRUPT; i++)
		if (a->corrupt[i].kind != b->corrupt[i].kind || a->corrupt[i].pos != b->corrupt[i].pos)
			return false;
	return true;
}

/* The impairment sources and model, strings by content. */
static void same_impair(const struct opts_impair *a, const struct opts_impair *b)
{
	if (a->n != b->n || a->stat_given != b->stat_given || !same_str(a->stat_opt, b->stat_opt) ||
	    a->repeat != b->repeat || a->repeat_given != b->repeat_given || a->dflt_given != b->dflt_given ||
	    !same_action(&a->dflt, &b->dflt) || a->seed != b->seed || a->limit != b->limit ||
	    (a->stat_given && memcmp(&a->stat, &b->stat, sizeof(a->stat))))
		DIFFER("the impairment's model or counts");
	for (unsigned i = 0; i < a->n; i++)
		if (!same_str(a->src[i].path, b->src[i].path) || !same_str(a->src[i].filter, b->src[i].filter) ||
		    a->src[i].repeat != b->src[i].repeat || a->src[i].repeat_given != b->src[i].repeat_given ||
		    a->src[i].dflt_given != b->src[i].dflt_given ||
		    !same_action(&a->src[i].dflt, &b->src[i].dflt))
			DIFFER("--impair %s (source %u)", a->src[i].path, i);
}

/* @a and @b field by field: every row's field(s), what was given, and what follows from them. */
static void same_opts(const struct opts *a, const struct opts *b, char **files)
{
	const struct opt_set *set = opts_replay_set();

	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];
		const char *fa = (const char *)a + d->off, *fb = (const char *)b + d->off;

		if (!strcmp(d->name, "save-opts") || !strcmp(d->name, "load-opts"))
			continue;
		if (opt_given(set, a, d->name) != opt_given(set, b, d->name))
			DIFFER("--%s given once only", d->name);
		if (d->type == OPT_T_STR && !same_str(*(const char *const *)fa, *(const char *const *)fb))
			DIFFER("--%s", d->name);
		else if (d->off == offsetof(struct opts, impair))
			same_impair(&a->impair, &b->impair);
		else if (d->type != OPT_T_STR && memcmp(fa, fb, d->size))
			DIFFER("--%s", d->name);
		if (d->type == OPT_T_FUNC2 && memcmp((const char *)a + d->off2, (const char *)b + d->off2, d->size2))
			DIFFER("--%s (its second field)", d->name);
	}
	if (a->nfiles != b->nfiles || a->prep_cmd != b->prep_cmd || a->threads_given != b->threads_given ||
	    a->sched.mode != b->sched.mode || memcmp(&a->rt, &b->rt, sizeof(a->rt)) || a->nwarn != b->nwarn)
		DIFFER("the files, the command or what follows from the options");
	for (int i = 0; i < a->nfiles; i++)
		if (strcmp(files[i], b->files[i]))
			DIFFER("file %d: %s, then %s", i, files[i], b->files[i]);
}

/*
 * The options of @argv (accepted as @o) saved with --save-opts, read back
 * with --load-opts before the same operands, must be the same.  A command
 * line that itself loads a file is not tried (its strings live in the
 * parser's buffer, which the next parse frees), nor one with a directory
 * among its operands (what the reload is given is its expansion, which
 * skips nothing and so warns of nothing).
 */
static void round_trip(int argc, char **argv, const struct opts *o)
{
	static char saved[64];
	char a0[] = "replay", prep[] = "prep", s1[] = "--save-opts", s2[] = "x.cfg", l1[] = "--load-opts", dd[] = "--";
	char *sv[ARGS_MAX + 4], *lv[ARGS_MAX + 6], *files[ARGS_MAX], err[512];
	struct opts *first = malloc(sizeof(*first)), *back = malloc(sizeof(*back));
	int n = 0, k = 0, nfiles = o->nfiles, copied = 0;
	FILE *f;

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--load-opts", 11))
			goto out;
	for (int i = 0; i < o->nfiles; i++) {
		int j = 1;

		while (j < argc && argv[j] != o->files[i])
			j++;
		if (j == argc)
			goto out; /* a path found in a directory operand */
	}
	if (!first || !back || o->nfiles > ARGS_MAX)
		goto out;
	if (!saved[0])
		snprintf(saved, sizeof(saved), "/tmp/fuzz_opts.%d.trip", (int)getpid());
	*first = *o;
	/* Copies: the next parse frees what the parser made (a directory's expansion). */
	for (; copied < nfiles; copied++)
		if (!(files[copied] = strdup(o->files[copied])))
			abort();
	/* With --save-opts first (after "prep"), so that no "--" turns it into an operand. */
	sv[n++] = a0;
	if (o->prep_cmd)
		sv[n++] = prep;
	sv[n++] = s1;
	sv[n++] = s2;
	for (int i = o->prep_cmd ? 2 : 1; i < argc; i++)
		sv[n++] = argv[i];
	sv[n] = NULL;
	if (opts_parse(back, n, sv, err, sizeof(err)) < 0)
		DIFFER("with --save-opts added, refused: %s", err);
	f = fopen(saved, "wb");
	if (!f)
		abort();
	if (opts_save(f, err, sizeof(err)) < 0) {
		fclose(f); /* a value a file cannot hold (a line break, blanks around it): refused, said */
		goto out;
	}
	if (fclose(f))
		abort();
	lv[k++] = a0;
	if (o->prep_cmd)
		lv[k++] = prep;
	lv[k++] = l1;
	lv[k++] = saved;
	lv[k++] = dd;
	for (int i = 0; i < nfiles; i++)
		lv[k++] = files[i];
	lv[k] = NULL;
	if (opts_parse(back, k, lv, err, sizeof(err)) < 0)
		DIFFER("the saved options do not load: %s", err);
	same_opts(first, back, files);
out:
	if (saved[0])
		unlink(saved);
	for (int i = 0; i < copied; i++)
		free(files[i]);
	free(first);
	free(back);
}

/* The input as a config file: loaded, saved, loaded again. */
static void config_file(const uint8_t *data, size_t size, struct opts *o)
{
	static char cfg[64], saved[64];
	char a0[] = "replay", a1[] = "--load-opts", a3[] = "-w", a4[] = "o.pcap", a5[] = "a.pcap";
	char *argv[7] = { a0, a1, cfg, a3, a4, a5, NULL };
	char err[512];
	FILE *f;
	int rc;

	if (!cfg[0]) {
		int fd = open("/dev/null", O_RDONLY);

		/* An argument naming /dev/stdin must not wait for a terminal. */
		if (fd >= 0 && fd != 0) {
			dup2(fd, 0);
			close(fd);
		}
		snprintf(cfg, sizeof(cfg), "/tmp/fuzz_opts.%d.cfg", (int)getpid());
		snprintf(saved, sizeof(saved), "/tmp/fuzz_opts.%d.saved", (int)getpid());
	}
	f = fopen(cfg, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	err[0] = '\0';
	rc = opts_parse(o, 6, argv, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap();
	if (rc == 0) {
		/* Saved, then loaded: the same options must parse again. */
		char s1[] = "--save-opts", s2[] = "x.cfg";
		char *sv[9] = { a0, a1, cfg, a3, a4, s1, s2, a5, NULL };

		if (opts_parse(o, 8, sv, err, sizeof(err)) < 0)
			__builtin_trap();
		f = fopen(saved, "wb");
		if (!f)
			abort();
		rc = opts_save(f, err, sizeof(err));
		if (fclose(f))
			abort();
		if (rc >= 0) {
			argv[2] = saved;
			if (opts_parse(o, 6, argv, err, sizeof(err)) < 0) {
				fprintf(stderr, "saved options do not load: %s\n", err);
				__builtin_trap();
			}
		}
		unlink(saved);
	}
	unlink(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[ARGS_MAX + 1], err[512];
	char prog_replay[] = "replay", prog_rx[] = "replay-rx", prog_bridge[] = "bridge";
	struct rx_opts ro;
	struct opts *o;
	struct bridge_cfg *bc;
	int argc, rc, first;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	o = malloc(sizeof(*o));
	bc = malloc(sizeof(*bc));
	if (!buf || !o || !bc)
		goto out;
	/* replay: the parse may permute argv, so each program gets a fresh split. */
	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = split(buf, size, prog_replay, argv);
	err[0] = '\0';
	rc = opts_parse(o, argc, argv, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap(); /* every refusal says why */
	if (rc == 0 && !o->help && !o->version) {
		/* What the summary prints must name every value parsed. */
		if (!opt_enum_name(tx_method_choices, (int)o->method)[0] ||
		    !strcmp(sched_timer_name(o->sched.timer), "?") ||
		    !strcmp(sched_late_name(o->sched.late), "?"))
			__builtin_trap();
		for (unsigned i = 0; i < o->nwarn; i++)
			if (!o->warn[i][0])
				__builtin_trap();
	}
	if (rc == 0 && !o->save_opts)
		round_trip(argc, argv, o);

	config_file(data, size, o);

	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = split(buf, size, prog_rx, argv);
	err[0] = '\0';
	rc = rx_opts_parse(&ro, argc, argv, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap();

	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = split(buf, size, prog_bridge, argv);
	err[0] = '\0';
	rc = bridge_opts_parse(bc, argc, argv, &first, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap();
	/* Accepted (and not for --help or --version alone): each direction forwarded has edits, those
	 * for both with its own in their place, that pass replay's checks. */
	/* Accepted: both ports' MACs or none, and a wait the bridge knows. */
	if (rc == 0 && !bc->help && !bc->version &&
	    ((bc->macs.n != 0 && bc->macs.n != 2) ||
	     !strcmp(opt_enum_name(bridge_poll_choices, bc->poll), "?")))
		__builtin_trap();
	if (rc == 0 && (bc->help || bc->version))
		rc = 1;
	for (int d = 0; rc == 0 && d < (bc->unidir ? 1 : BRIDGE_DIRS); d++) {
		static struct impair_cfg ic[OPTS_IMPAIR_MAX + 1];
		struct impair_stat_cfg st;
		struct edit_cfg e;
		unsigned nt = bridge_dir_ntraces(bc, (enum bridge_dir)d);
		size_t n;

		bridge_dir_edit(bc, (enum bridge_dir)d, &e);
		if (edit_cfg_check(&e, err, sizeof(err)) < 0)
			__builtin_trap();
		/* Accepted: the direction's sources are its traces, each a path, then at most its
		 * model. */
		if (nt > OPTS_IMPAIR_MAX ||
		    bridge_dir_impair(bc, (enum bridge_dir)d, &st, ic, &n, err, sizeof(err)) < 0 ||
		    n < nt || n > nt + 1)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if (!(i < nt ? ic[i].path && !ic[i].stat : !ic[i].path && ic[i].stat == &st))
				__builtin_trap();
	}
out:
	free(buf);
	free(o);
	free(bc);
	return 0;
}
