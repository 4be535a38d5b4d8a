/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay's command-line options.  One table (src/cli/opts.c) is the single
 * source of the parser, --help, the shell completions and the man page's
 * OPTION RULES; every long option in it also appears in man/replay.1 and
 * README.md (a unit test checks).  Each row binds an option straight to a
 * field of a module's config embedded here (trace, sched, rt, tx, edit) or
 * to one of replay's own fields below, through the row macros of
 * replay/optparse.h, and carries its rules with other options.
 *
 * To add an option: HACKING.md, "Adding an option".
 */
#ifndef REPLAY_OPTS_H
#define REPLAY_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/compiler.h"

#include "edit.h"
#include "impair.h"
#include "optparse.h"
#include "run_cfg.h"
#include "sched.h"
#include "trace.h"
#include "tx.h"

#define OPTS_WARN_MAX 2

/*
 * The impairment options, one struct so that each option's parser sees the
 * whole of it: --impair-flow binds to the --impair before it, the netem
 * options (--loss, --delay, ...) add clauses to one statistical model.
 */
#define OPTS_IMPAIR_MAX 16

struct opts_impair_src {
	const char *path;          /* --impair FILE */
	const char *filter;        /* --impair-flow FILTER after it; NULL = every packet */
	bool repeat_given;         /* --impair-repeat after it: its own count */
	uint64_t repeat;
	bool dflt_given;           /* --impair-default after it: its own action */
	struct impair_action dflt;
};

struct opts_impair {
	unsigned n;                          /* --impair options given */
	struct opts_impair_src src[OPTS_IMPAIR_MAX];
	bool stat_given;                     /* a netem option was given: the model below applies */
	const char *stat_opt;                /* the first of them given ("--corrupt"), for messages */
	struct impair_stat_cfg stat;         /* --loss, --delay, ..., --impair-stat */
	uint64_t repeat;                     /* --impair-repeat before any --impair: every trace's
						passes unless it has its own; 0 = forever */
	bool repeat_given;
	bool dflt_given;
	struct impair_action dflt;           /* --impair-default before any --impair (pass unless given) */
	uint64_t seed;                       /* --impair-seed */
	uint32_t limit;                      /* --impair-limit: frames held back at once; 0 = not given
						(the model's limit, else IMPAIR_LIMIT_DEFAULT) */
};

/*
 * The parsers of the impairment rows (src/cli/impair_opts.c), each filling
 * struct opts_impair.  The netem options also record their own name, so
 * that opts_impair_check() names the one that impairs nothing.
 */
int opts_impair_add(void *f, const char *arg, char *err, size_t len);
int opts_impair_flow(void *f, const char *arg, char *err, size_t len);
int opts_impair_default(void *f, const char *arg, char *err, size_t len);
int opts_impair_repeat(void *f, const char *arg, char *err, size_t len);
int opts_impair_stat(void *f, const char *arg, char *err, size_t len);
int opts_impair_loss(void *f, const char *arg, char *err, size_t len);
int opts_impair_delay(void *f, const char *arg, char *err, size_t len);
int opts_impair_dist(void *f, const char *arg, char *err, size_t len);
int opts_impair_duplicate(void *f, const char *arg, char *err, size_t len);
int opts_impair_corrupt(void *f, const char *arg, char *err, size_t len);
int opts_impair_reorder(void *f, const char *arg, char *err, size_t len);
int opts_impair_rate(void *f, const char *arg, char *err, size_t len);

/*
 * opts_impair_check() - after the rows' rules: the model must impair
 * something ("--corrupt 0%" alone is refused, naming the option); then each
 * trace's repeat count and default action, and the limit, are filled in.
 */
int opts_impair_check(struct opts_impair *m, char *err, size_t len);

/*
 * A list of small numbers, "0,2" or "0-3" or "1,4-5" (--cpu, --xdp-queue):
 * the numbers in the order given, at most OPTS_LIST_MAX of them.
 */
#define OPTS_LIST_MAX 256

struct opts_list {
	unsigned n;                   /* numbers given; 0 = the option was not */
	uint32_t v[OPTS_LIST_MAX];
};

/*
 * opts_list_parse() - read @arg, comma-separated numbers or ranges A-B
 * (A <= B), each number decimal as opt_parse_u64() reads it and at most
 * @max, into @l.  0, or -EINVAL with the
 * reason in @err (empty items, a descending range, a number too large,
 * more than OPTS_LIST_MAX numbers).
 */
int opts_list_parse(struct opts_list *l, const char *arg, uint32_t max, char *err, size_t len);

/*
 * The option parsers of --cpu (CPUs 0..1023: the list, and rt_cfg.cpu the
 * first of it) and --xdp-queue (queues 0..65535: the list, and
 * tx_cfg.xdp_queue the first of it).
 */
int opts_parse_cpus(void *list, void *cpu, const char *arg, char *err, size_t len);
int opts_parse_queues(void *list, void *queue, const char *arg, char *err, size_t len);

/* The most sender threads (--threads). */
#define OPTS_THREADS_MAX 64

struct opts {
	/* input */
	char **files;              /* trace files, in order; points into argv (or a directory's listing) */
	int nfiles;
	bool info;                 /* --info: describe the files, send nothing */
	bool recursive;            /* --recursive: a directory operand's subdirectories too */
	struct trace_cfg trace;    /* -K, --window-size */
	const char *split_mode;    /* --split MODE: two-interface direction (replay/split.h) */
	const char *cachefile;     /* -c, --cachefile: a tcpprep cache instead of --split */
	const char *source_if;     /* --source-interface IF: forward frames arriving on IF (no files) */
	unsigned live_buffer_kib;  /* -B/--buffer-size: its capture ring, KiB; 0 = LIVE_BUFFER_KIB_DEFAULT */

	/* timing */
	struct sched_cfg sched;    /* mode and rate (-t, -x, -p, -M), timer, spin margin, late policy */
	struct rt_cfg rt;          /* --rt-priority, --cpu (rt.cpu: the first of cpus, or -1) */
	struct opts_list cpus;     /* --cpu LIST: thread i runs on cpus.v[i % cpus.n]; n 0 = not pinned */

	/* transmission */
	struct tx_cfg tx;          /* -i (ifname), -w (path), --batch, --qdisc-bypass, --gso, xdp, uring */
	const char *intf2;         /* -I, --intf2: the second interface (lane 2); NULL = one */
	enum tx_method method;     /* --method (--xdp, --io-uring, --raw) */
	enum tx_method method2;    /* --method2: -I's method; --method's if not given */
	struct opts_list xdp_queues; /* --xdp-queue LIST: thread i binds queue v[i] (tx.xdp_queue: v[0]) */
	unsigned threads;          /* --threads N: sender threads, each with its shard of the flows; 1 = one */
	bool threads_given;        /* --threads N was given (a number: threads_auto() keeps it) */
	bool threads_ask_auto;     /* --threads auto: threads_auto_apply() decides */
	bool threads_auto;         /* threads_auto_apply() chose threads > 1 */
	char threads_why[192];     /* why it did, or why not: the summary's and -v's words */

	/* editing */
	struct edit_cfg edit;      /* every edit option; see replay/edit.h */
	const char *prep_path;     /* --prep: sidecar from 'replay prep' */
	const char *prep_out;      /* -o: where 'replay prep' writes the sidecar */
	bool prep_cmd;             /* the 'prep' subcommand was given */

	/* impairment (src/cli/impair_opts.c): --impair, --loss, ... */
	struct opts_impair impair;

	/* the run's own: loops, limits, progress, flow statistics (replay/run_cfg.h) */
	struct run_cfg run;

	/* statistics and output */
	const char *stats_json;    /* --stats-json: file, or "-" for stdout */
	const char *send_log;      /* --send-log: per-packet send times for replay-rx */
	bool quiet;                /* no summary, no warnings */
	bool no_warnings;          /* -W: no warnings (tcpreplay's --suppress-warnings) */
	bool pid;                  /* -P: print "PID: N" at start-up */
	bool decode;               /* -v: each packet sent, decoded by tcpdump on stdout (tcpreplay's -v) */
	const char *decode_args;   /* -A ARGS: more arguments for that tcpdump */
	int debug;                 /* --debug count: 1 info, 2 debug on stderr */

	bool help;
	bool version;
	const char *load_opts;     /* --load-opts: expanded while parsing, NULL after */
	const char *const *loaded; /* the --load-opts files read, in order: inputs like the traces */
	int nloaded;
	const char *save_opts;     /* --save-opts FILE: write the options there and exit */
	bool listnics;             /* --listnics: list the interfaces and exit */

	/* Options that were accepted but do nothing here; main.c prints them as warnings. */
	unsigned nwarn;
	char warn[OPTS_WARN_MAX][160];

	struct opt_given given;    /* what was given, for the rules (replay/optparse.h) */
};

/* A uint64_t option's value when it was not given and the program decides. */
#define OPT_AUTO UINT64_MAX

/* opts_lane_xdp() - may output lane @i (0: -i, 1: -I) send by AF_XDP, asked for or chosen by auto? */
static inline bool opts_lane_xdp(const struct opts *o, unsigned i)
{
	enum tx_method m = i ? o->method2 : o->method;

	return (i == 0 || o->intf2) && (m == TX_METHOD_XDP || m == TX_METHOD_AUTO);
}

/*
 * opts_xdp_inplace() - may the run send a preloaded trace's frames in place
 * (src/tx/xdp.c)?  One file, preloaded (-K), on interfaces (-i, and -I)
 * one of which may send by AF_XDP: its copy is then the UMEM of every such
 * socket, locked memory of the trace's size each (src/run/privs.c keeps
 * cap_ipc_lock for it).
 */
static inline bool opts_xdp_inplace(const struct opts *o)
{
	return o->trace.preload && o->nfiles == 1 && !o->source_if && !o->tx.path &&
	       (opts_lane_xdp(o, 0) || opts_lane_xdp(o, 1));
}

enum opt_group {
	OPT_GRP_INPUT,
	OPT_GRP_TIMING,
	OPT_GRP_TX,
	OPT_GRP_EDIT,
	OPT_GRP_IMPAIR,
	OPT_GRP_LOOP,
	OPT_GRP_STATS,
	OPT_GRP_MISC,
	OPT_GRP_MAX
};

/* opts_table() - the option table and, in *@n, its length. */
const struct opt_def *opts_table(size_t *n);

/*
 * opts_parse() - fill @o from @argv (argv[0] is skipped) after setting the
 * defaults, every --load-opts FILE read in its place.  Returns 0, or
 * -EINVAL with a one-line reason (without the program name) in @err.  The
 * parsed options are also checked as a whole unless --help, --version,
 * --listnics or --save-opts was given: the rows' rules (the man page's
 * OPTION RULES), then what needs the operands or a value (-i or -w, at
 * least one file; --info instead of -i/-w).
 * "replay prep TRACE -o OUT [edit options]" (argv[1] == "prep") sets
 * o->prep_cmd and is checked for that instead; there tcpprep's short
 * letters are refused with hints (tcpprep's -M 24 is never --mbps 24).
 * Spellings tcpreplay, tcprewrite and tcpedit give another meaning are
 * refused with a one-line hint (tests/compat/options.tsv lists every one).
 * Never prints and never exits; options given that have no effect are
 * explained in o->warn[].
 */
int opts_parse(struct opts *o, int argc, char **argv, char *err, size_t errlen);

struct opt_argv;

/*
 * opts_parse_into() - opts_parse() into @store (zeroed, or used before)
 * instead of the parser's own: @o's strings point into @store until
 * opt_argv_free(@store), so several parsed options live side by side (the
 * shared library's runs).  opts_save() saves what opts_parse() parsed, never
 * these.  getopt's state is the process's: one call at a time.
 */
int opts_parse_into(struct opts *o, struct opt_argv *store, int argc, char **argv, char *err,
		    size_t errlen);

/*
 * opts_save() - after opts_parse(), write the options it parsed (without
 * --save-opts and the trace files) to @f as a config file that --load-opts
 * reads back (replay/optparse.h).  The number written, or -errno with the
 * reason in @err.
 */
int opts_save(FILE *f, char *err, size_t errlen);

/* opts_usage() - print --help to @f. */
void opts_usage(FILE *f, const char *prog);

/* opts_replay_set() - replay's option set (table, groups, help texts); see replay/optparse.h. */
const struct opt_set *opts_replay_set(void);

/*
 * opts_one_thread_only() - the first option given in @o whose rules exclude
 * --threads (impairment, --oneatatime, --limit, --send-log, --stats, -v),
 * spelled as given for a message, or NULL: --threads N refuses it, --threads
 * auto keeps one thread for it.  The text lives until the next call.
 */
const char *opts_one_thread_only(const struct opts *o);

#endif
