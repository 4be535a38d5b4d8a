/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay bridge's options: its table, its parser, and each direction's
 * impairment model and edits built from the options given
 * (src/bridge/bridge_opts.c).
 */
#ifndef REPLAY_BRIDGE_OPTS_H
#define REPLAY_BRIDGE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/edit.h"
#include "replay/impair.h"
#include "replay/optparse.h"
#include "replay/opts.h"

enum bridge_dir { BRIDGE_AB, BRIDGE_BA, BRIDGE_DIRS };
/* Where an impairment or edit option applies: both directions, or one. */
enum bridge_target { BRIDGE_BOTH, BRIDGE_ONLY_AB, BRIDGE_ONLY_BA, BRIDGE_TARGETS };

#define BRIDGE_CLAUSES_MAX 64

/* How the bridge waits for a frame or a held frame's deadline (--poll). */
enum bridge_poll {
	BRIDGE_POLL_AUTO,   /* hybrid */
	BRIDGE_POLL_SLEEP,  /* ppoll() to the deadline: least CPU, wakes the timer's lateness late */
	BRIDGE_POLL_HYBRID, /* ppoll() to a measured margin before the deadline, then spin */
	BRIDGE_POLL_BUSY,   /* never sleep: spin on the rings and the clock, a whole core */
};
extern const struct opt_enum bridge_poll_choices[];

/* --mac: the two ports' MACs (tcpbridge's -M, given twice or as MAC,MAC), IF1's first. */
struct bridge_macs {
	uint8_t mac[2][6];
	unsigned n; /* given so far: 0 or 2 once parsed */
};

/* The impairment options as given, in order: each a netem clause ("loss 5%") and where it applies.
 */
struct bridge_clauses {
	struct {
		uint8_t target;	  /* enum bridge_target */
		const char *word; /* netem's word ("loss", "delay", ...; "" for --impair-stat's
				     whole spec) */
		const char *arg;  /* the option's value; argv's */
		const char *opt;  /* the option, for messages */
	} c[BRIDGE_CLAUSES_MAX];
	unsigned n;
};

/*
 * The impairment traces as given (--impair, --impair-ab, --impair-ba), in
 * order, on replay's own list (struct opts_impair: its parsers bind
 * --impair-flow, --impair-repeat and --impair-default to the trace before
 * them, or make the last two every trace's when given before any); beside
 * each, where it applies.  Its netem model is unused: the bridge's is
 * struct bridge_clauses.
 */
struct bridge_traces {
	struct opts_impair m;
	uint8_t target[OPTS_IMPAIR_MAX]; /* enum bridge_target of m.src[i] */
	const char *opt[OPTS_IMPAIR_MAX]; /* "--impair", "--impair-ab" or "--impair-ba" */
};

/*
 * Each port's capture ring by default, KiB: room for a TCP window's burst
 * while frames are held (libpcap's 2 MiB overflowed behind a 5 ms delay);
 * the unimpaired delay is the same with 2, 16 and 64 MiB (BENCHMARKS.md,
 * "The bridge at the thesis's rates").
 */
#define BRIDGE_BUFFER_KIB_DEFAULT 16384u

struct bridge_cfg {
	struct bridge_clauses impair; /* --loss, --delay, ... and their -ab/-ba forms */
	struct bridge_traces traces;  /* --impair, --impair-ab, --impair-ba and what binds to them */
	/* The edit options (replay's rows, tcprewrite's names) by enum bridge_target: NAME's, NAME-ab's,
	 * NAME-ba's. */
	struct edit_cfg edit[BRIDGE_TARGETS];
	bool unidir;		/* --unidir: forward IF1 -> IF2 only */
	uint64_t seed;		/* --impair-seed: the models' draws (ab's; ba's is seed + 1) */
	uint32_t limit;		/* --impair-limit: frames held per direction; 0 = the model's */
	int method;		/* --method: enum tx_method */
	uint32_t buffer_kib;	/* --buffer-size: each port's capture ring, KiB */
	int poll;		/* --poll, --busy-poll: enum bridge_poll */
	struct bridge_macs macs; /* --mac: frames from either MAC are not forwarded */
	bool no_martians;	/* --no-martians: IPv4 to 0/8, 127/8, 255/8 is not forwarded */
	double duration_s;	/* --duration: stop after SECONDS; 0 = never */
	const char *stats_json; /* --stats-json FILE ('-' = stdout) */
	bool quiet;
	int verbose;
	bool help, version;
	struct opt_given given;
};

/* bridge_opts_set() - the option table of replay bridge (its --help, its checks, the docs' tests).
 */
const struct opt_set *bridge_opts_set(void);

/*
 * bridge_opts_parse() - @argv (argv[0] "bridge") into @cfg: 0 with the two
 * ports at argv[*@first], argv[*@first + 1]; or -EINVAL with one line in @err.
 */
int bridge_opts_parse(struct bridge_cfg *cfg, int argc, char **argv, int *first, char *err,
		      size_t errlen);

/*
 * bridge_dir_stat() - the model of direction @d: the clauses given for
 * both directions, in order, then its own (a later clause of a kind
 * replaces an earlier one, as in impair_stat_parse()).  0 with @st filled
 * (impair_stat_active() false: that direction passes frames untouched), or
 * -EINVAL with "OPTION 'VALUE': why" in @err.
 */
int bridge_dir_stat(const struct bridge_clauses *cl, enum bridge_dir d, struct impair_stat_cfg *st,
		    char *err, size_t errlen);

/*
 * bridge_dir_ntraces() - how many of the traces apply to direction @d
 * (those given for both and its own).
 */
unsigned bridge_dir_ntraces(const struct bridge_cfg *cfg, enum bridge_dir d);

/*
 * bridge_dir_impair() - the impair_open() sources of direction @d, in
 * replay's order: each trace for both directions or for @d, in the order
 * given (each with its filter, repeat count and default action), then the
 * model bridge_dir_stat() builds into @st, if it impairs anything.  @out
 * has room for bridge_dir_ntraces() + 1; *@n gets the count (0: the
 * direction passes frames untouched).  Seeds are @cfg's seed plus @d, so
 * the directions draw apart.  0, or -EINVAL with "OPTION 'VALUE': why" in
 * @err.  @cfg as bridge_opts_parse() left it.
 */
int bridge_dir_impair(const struct bridge_cfg *cfg, enum bridge_dir d, struct impair_stat_cfg *st,
		      struct impair_cfg *out, size_t *n, char *err, size_t errlen);

/*
 * bridge_trace_opt() - the option that gave the trace of direction @d
 * which the impairment engine's message @msg names ("--impair-ab"), NULL
 * when it names none.
 */
const char *bridge_trace_opt(const struct bridge_cfg *cfg, enum bridge_dir d, const char *msg);

/*
 * bridge_dir_edit() - the edits of direction @d: the options given for
 * both, each replaced by its own form where that was given (a field given
 * as --ttl-ab replaces --ttl's for IF1 -> IF2).  The pair forms of the
 * options for both (--enet-dmac A,B, --pnat twice) give IF1 -> IF2 the
 * first and IF2 -> IF1 the second: the edit chain is told the direction
 * as its side (1 for ab, 2 for ba; edit_chain_set_side()).  @cfg as
 * bridge_opts_parse() left it.
 */
void bridge_dir_edit(const struct bridge_cfg *cfg, enum bridge_dir d, struct edit_cfg *out);

#endif
