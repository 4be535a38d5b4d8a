/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef REPLAY_RUN_CFG_H
#define REPLAY_RUN_CFG_H

#include <stdbool.h>
#include <stdint.h>

/*
 * struct run_cfg - the run's own options (src/cli/opts.c binds each row to
 * a field here, as o->run): how many passes, when to stop, what to show
 * while sending.  Set-up (src/run/setup.c) resolves them once, with the
 * other modules' options, into what the loop reads; the loop never reads
 * the options themselves.
 */
/* --fragdir: the -c cache's side whose frames go through --fragroute's rules. */
enum { FRAGDIR_C2S = 1, FRAGDIR_S2C = 2, FRAGDIR_BOTH = 3 };

struct run_cfg {
	uint64_t loop;             /* --loop: passes over the file list; 0 = forever */
	uint64_t limit;            /* --limit: stop after this many packets sent or failed; 0 = none */
	uint64_t loopdelay_ns;     /* before each pass after the first, ns (--loopdelay-ms or -ns) */
	uint64_t duration_ns;      /* --duration: send no packet due this long after the start; 0 = none */
	bool oneatatime;           /* --oneatatime: ask on stdin how many packets to send next */
	bool dualfile;             /* -2, --dualfile: files in pairs, one per interface, merged by timestamp */
	bool merge;                /* --merge: all the files played as one, merged by timestamp */
	bool segment;              /* --segment: a frame longer than the MTU is cut to fit (replay/segment.h) */
	const char *fragroute;     /* --fragroute FILE: fragroute's rules over each frame (replay/frag.h) */
	uint64_t fragroute_seed;   /* --fragroute-seed; OPT_AUTO = --fuzz-seed's, else 1 */
	int fragdir;               /* --fragdir: 0 = not given (every frame), else a FRAGDIR_ value */
	uint64_t stats_s;          /* --stats N: lines every N s (0: per loop pass); OPT_AUTO = none */
	bool no_progress;          /* --no-progress: no status line on a terminal */
	bool no_flow_stats;        /* --no-flow-stats: count no flows (replay/flows.h) */
	uint64_t flow_expiry_s;    /* --flow-expiry: idle longer than this, s, a flow counts again; 0 = never */
};

#endif
