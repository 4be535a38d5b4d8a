/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Command-line options.  One table (src/opts.c) is the single source of the
 * parser and of --help; every long option in it also appears in
 * man/replay.1 and README.md (a unit test checks).  Each row binds an option
 * to a field of struct opts by offsetof, with a typed parser.
 *
 * The machinery is shared: another program (replay-rx, src/rx/opts.c)
 * describes its own table, defaults and help text in a struct opt_set and
 * parses with opts_set_parse(), so both behave and document alike.
 */
#ifndef REPLAY_OPTS_H
#define REPLAY_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/compiler.h"

#include "edit.h"
#include "sched.h"

struct opts {
	/* input */
	char **files;              /* trace files, in order; points into argv */
	int nfiles;
	bool info;                 /* --info: describe the files, send nothing */
	bool preload;              /* -K: read each trace into memory first */
	uint64_t window_bytes;     /* --window-size: read-ahead window, bytes; 0 = default */

	/* timing */
	enum sched_mode mode;      /* trace timing, --pps, --mbps or --topspeed (set from the options) */
	struct sched_ratio speed;  /* -x: trace gaps divided by this; {0, 0} = not given */
	struct sched_ratio pps;    /* -p: packets per second; {0, 0} = not given */
	struct sched_ratio mbps;   /* -M: Mbit/s; {0, 0} = not given */
	bool wire_overhead;        /* --mbps counts Ethernet padding, FCS, preamble, gap */
	enum sched_timer timer;    /* --timer */
	uint64_t spin_us;          /* --spin-us: hybrid margin, us; OPT_AUTO = calibrate */
	enum sched_late late;      /* --late */
	uint64_t late_threshold_us; /* --late-threshold: lateness that is a stall, us */
	uint64_t rt_priority;      /* --rt-priority: SCHED_FIFO priority; 0 = none */
	uint64_t cpu;              /* --cpu: pin to this CPU; OPT_AUTO = no pinning */

	/* transmission */
	const char *intf1;         /* -i: interface to send on */
	const char *write_path;    /* -w: write the would-be wire stream here instead */
	const char *method;        /* --method: transmit backend name, or "auto" */
	uint64_t batch;            /* --batch: most packets per kick; 0 = the backend's default */
	bool qdisc_bypass;         /* --qdisc-bypass: AF_PACKET without the qdisc layer */
	uint64_t xdp_queue;        /* --xdp-queue: device queue the AF_XDP socket binds */
	const char *xdp_mode;      /* --xdp-mode: auto, copy or zerocopy */
	bool uring_sqpoll;         /* --uring-sqpoll: a kernel thread submits for io_uring */

	/* editing */
	struct edit_cfg edit;      /* every edit option; see replay/edit.h */
	const char *prep_path;     /* --prep: sidecar from 'replay prep' */
	const char *prep_out;      /* -o: where 'replay prep' writes the sidecar */
	bool prep_cmd;             /* the 'prep' subcommand was given */

	/* loops and limits */
	uint64_t loop;             /* passes over the file list; 0 = forever */
	uint64_t limit;            /* stop after this many packets sent; 0 = no limit */

	/* statistics and output */
	const char *stats_json;    /* --stats-json: file, or "-" for stdout */
	const char *send_log;      /* --send-log: per-packet send times for replay-rx */
	bool quiet;                /* no summary, no warnings */
	int verbose;               /* -v count */

	bool help;
	bool version;
};

/* A uint64_t option's value when it was not given and the program decides. */
#define OPT_AUTO UINT64_MAX

enum opt_group {
	OPT_GRP_INPUT,
	OPT_GRP_TIMING,
	OPT_GRP_TX,
	OPT_GRP_EDIT,
	OPT_GRP_LOOP,
	OPT_GRP_STATS,
	OPT_GRP_MISC,
	OPT_GRP_MAX
};

enum opt_type {
	OPT_T_FLAG,   /* bool field set to true */
	OPT_T_SET,    /* int-sized enum field set to .val */
	OPT_T_COUNT,  /* int field incremented */
	OPT_T_STR,    /* const char * field = the argument */
	OPT_T_U64,    /* uint64_t field, decimal, within [min, max] */
	OPT_T_DOUBLE, /* double field, finite, > 0 */
	OPT_T_FUNC,   /* .parse(field, arg, err, len) fills the field */
	OPT_T_SIZE,   /* uint64_t field, bytes, with an optional K, M or G suffix (powers of 1024), within [min, max] */
	OPT_T_MAX
};

struct opt_def {
	const char *name;      /* long name, without "--" */
	int key;               /* short option letter, or 0 */
	enum opt_type type;
	size_t off;            /* offsetof(struct opts, field), or of the set's own struct */
	long val;              /* OPT_T_SET: the value stored */
	uint64_t min, max;     /* OPT_T_U64: accepted range */
	const char *metavar;   /* argument name in --help; NULL = no argument */
	unsigned group;        /* enum opt_group, or an index into the set's group_title */
	const char *help;      /* one line */
	/* OPT_T_FUNC: parse @arg into @field; 0, or -EINVAL with the reason in @err. */
	int (*parse)(void *field, const char *arg, char *err, size_t errlen);
};

/* opts_table() - the option table and, in *@n, its length. */
const struct opt_def *opts_table(size_t *n);

/*
 * opts_parse() - fill @o from @argv (argv[0] is skipped) after setting the
 * defaults.  Returns 0, or -EINVAL with a one-line reason (without the
 * program name) in @err.  The parsed options are also checked as a whole
 * (-i or -w, at least one file) unless --help or --version was given.
 * "replay prep TRACE -o OUT [edit options]" (argv[1] == "prep") sets
 * o->prep_cmd and is checked for that instead.
 * (-i or -w, at least one file; --info instead of -i/-w) unless --help or
 * --version was given.
 */
int opts_parse(struct opts *o, int argc, char **argv, char *err, size_t errlen);

/* opts_usage() - print --help to @f. */
void opts_usage(FILE *f, const char *prog);

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
};

/*
 * opts_set_parse() - fill @cfg (a struct of @set->size bytes) from @argv
 * (argv[0] is skipped) after copying the set's defaults over it.  On success
 * returns 0 with *@first_arg the index in @argv of the first operand.
 * Returns -EINVAL with a one-line reason (without the program name) in @err,
 * or -ENOMEM.  Only the options are checked, not how they combine.
 */
int opts_set_parse(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   char *err, size_t errlen);

/* opts_set_usage() - print the --help of @set, for program @prog, to @f. */
void opts_set_usage(const struct opt_set *set, FILE *f, const char *prog);

/* opts_fail() - a usage error: format the reason into @err; returns -EINVAL. */
int opts_fail(char *err, size_t len, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
