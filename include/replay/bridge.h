/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay bridge IF1 IF2: an inline impairment bridge.  Every frame that
 * arrives on one port leaves by the other, each direction impaired by its
 * own statistical model (netem's, include/replay/impair.h), on one clock.
 * "ab" is IF1 to IF2, "ba" IF2 to IF1.  The options: src/bridge/opts.c;
 * the forwarding: src/bridge/bridge.c; the command: src/bridge/cmd.c.
 */
#ifndef REPLAY_BRIDGE_H
#define REPLAY_BRIDGE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/impair.h"
#include "replay/optparse.h"

enum bridge_dir { BRIDGE_AB, BRIDGE_BA, BRIDGE_DIRS };
/* Where an impairment option applies: both directions, or one. */
enum bridge_target { BRIDGE_BOTH, BRIDGE_ONLY_AB, BRIDGE_ONLY_BA };

#define BRIDGE_CLAUSES_MAX 64

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

struct bridge_cfg {
	struct bridge_clauses impair; /* --loss, --delay, ... and their -ab/-ba forms */
	uint64_t seed;		/* --impair-seed: the models' draws (ab's; ba's is seed + 1) */
	uint32_t limit;		/* --impair-limit: frames held per direction; 0 = the model's */
	int method;		/* --method: enum tx_method */
	uint32_t buffer_kib;	/* --buffer-size: each port's capture ring, KiB; 0 = default */
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

/* One direction's account.  received = forwarded + dropped_impair + dropped_limit + failed + held
 * at the end. */
struct bridge_dir_stats {
	uint64_t received; /* frames captured on the input port */
	uint64_t
	    copies; /* copies the model's duplicate made (each then forwarded, dropped or failed) */
	uint64_t forwarded;	 /* handed to the kernel on the output port */
	uint64_t bytes;		 /* their bytes */
	uint64_t dropped_impair; /* dropped by the model's loss */
	uint64_t dropped_limit;	 /* dropped because the delay queue held --impair-limit frames */
	uint64_t failed;       /* not sent: too long for the output port, cut by the capture, a send
				  error, held at a stop */
	uint64_t too_long;     /* of failed: longer than the output port's MTU (or cut short by the
				  capture) */
	uint64_t held_at_stop; /* of failed: still held when a signal stopped the bridge */
	uint64_t kernel_dropped; /* the input ring was full: dropped by the kernel before capture */
	uint64_t late;		 /* held frames sent more than 1 ms after their deadline */
	uint32_t held_peak;	 /* the most frames held at once */
};

struct bridge;

/*
 * bridge_open() - the ports @if1, @if2 (captured, promiscuous), a sender on
 * each (@cfg->method), each direction's model and delay queue, allocated
 * and touched now.  0, or -errno with one line in @err.
 */
int bridge_open(struct bridge **bp, const struct bridge_cfg *cfg, const char *if1, const char *if2,
		char *err, size_t errlen);

/*
 * bridge_run() - forward until *@stop (a signal's number) or @cfg's
 * duration.  At a stop what is held is not sent early: it is counted
 * failed (held_at_stop).  0, or -errno with one line in @err (a port
 * failed or went away).
 */
int bridge_run(struct bridge *b, const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* bridge_port_mtu() - port @port's (0: IF1, 1: IF2) MTU at open; 0 if it could not be read. */
unsigned bridge_port_mtu(const struct bridge *b, int port);

/*
 * bridge_frame_fits() - can the frame @f of @len bytes leave by a port of
 * MTU @mtu (0: any)?  The MTU counts neither the Ethernet header nor up to
 * two VLAN tags.
 */
bool bridge_frame_fits(const uint8_t *f, uint32_t len, unsigned mtu);

/* bridge_name() - direction @d's ports, "IF1 -> IF2". */
const char *bridge_name(const struct bridge *b, enum bridge_dir d);
const struct bridge_dir_stats *bridge_stats(const struct bridge *b, enum bridge_dir d);
/* bridge_impair_stats() - direction @d's model's counts, NULL when it impairs nothing. */
const struct impair_stats *bridge_impair_stats(const struct bridge *b, enum bridge_dir d);
void bridge_close(struct bridge *b);

/* bridge_main() - "replay bridge [options] IF1 IF2": the exit status. */
int bridge_main(int argc, char **argv);

#endif
