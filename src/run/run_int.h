/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run, shared by its two files: src/run/loop.c (the loop) and
 * src/run/setup.c (building the pipeline before the loop, taking it down
 * and reporting after).  Nothing else includes this.
 */
#ifndef REPLAY_RUN_INT_H
#define REPLAY_RUN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/run.h"
#include "replay/checks.h"
#include "replay/decode.h"
#include "replay/dqueue.h"
#include "replay/edit.h"
#include "replay/impair.h"
#include "replay/flows.h"
#include "replay/live.h"
#include "replay/outfile.h"
#include "replay/progress.h"
#include "replay/sched.h"
#include "replay/sendlog.h"
#include "replay/slots.h"
#include "replay/split.h"
#include "replay/stats.h"
#include "replay/trace.h"
#include "replay/tx.h"

/* A packet staged in the method, remembered until it is reported handed over or failed. */
struct staged {
	const struct trace *t; /* for messages */
	uint64_t recno, off;   /* for messages */
	uint64_t deadline_ns;  /* run-clock deadline; unused untimed */
	uint32_t caplen;       /* bytes */
	uint64_t id;           /* pkt_id() for the send log; 0 without one */
};

/*
 * An output lane: one method's handle with the FIFO of what is staged in
 * it, and its share of the accounting.  -i (or -w) is lane 0, -I lane 1.
 */
struct lane {
	struct tx *tx;
	struct staged *q;            /* FIFO of staged packets, qcap = the method's batch */
	unsigned qhead, qn, qcap;
	uint64_t kick_ns;            /* run clock just before the last kick, with a send log */
	uint64_t settle_ns;          /* run clock when the last kick returned (timed runs) */
	struct stats_lane st;        /* its counters (the run's totals are their sums: replay_collect()) */
	struct ifcheck ifc;          /* an interface's own TX counters around the run */
	char mode[320];              /* the method's details for the summary */
};

/* Where the source is in passes x files (src/run/loop.c, source_read()). */
struct source {
	uint64_t pass;               /* from 0 */
	int f;                       /* the file being read */
	bool in_file;                /* r->traces[f] is being read (rewound if need be) */
	uint64_t read_before, sent_before, filtered_before, failed_before; /* at the pass's start */
	uint64_t prev_ts;            /* the last record's timestamp in this file, for the jump warning */
	bool jump_warned, back_warned; /* one warning of each a run */
	uint64_t skipped;            /* --threads: packets read that were other threads' */
	/* --dualfile: the pair traces[f], traces[f + 1] is read side by side (source_read_dual()) */
	struct pkt pend[2];          /* each file's next packet, read ahead */
	bool have[2], done[2];       /* pend[k] holds one; file k of the pair has ended */
	unsigned side;               /* the file (0 or 1) of the packet just read: its lane */
};

/* A frame held back by impairment (a delay, a delayed copy): its own copy in a slab slot. */
struct held {
	struct pkt p;                /* p.data is the slot; p.sched_ns the impaired deadline */
	const struct trace *t;       /* for messages */
	struct lane *l;              /* the lane it leaves by */
	unsigned slot;               /* its slot's id (slots_get()), given back when sent */
};

/*
 * Impairment (--impair, --loss, ...; src/run/loop.c, run_impaired()): the
 * engine, the deadline-ordered queue of held frames, and their memory, all
 * allocated before the run (--impair-limit frames, include/replay/slots.h).
 */
struct impairing {
	struct impair *im;
	struct dqueue dq;
	struct held *held;           /* one per slot id (slots_ids()) */
	struct slots slots;          /* the frames' memory, resident before the run */
	unsigned nheld, limit;       /* frames held now; at most --impair-limit */
	bool limit_hit;              /* --limit reached: read no more, send what is held */
	bool wait_failed;            /* a held frame sent while the live input was silent failed the run */
	uint8_t *scratch;            /* one frame: a corrupted frame sent at once */
	struct impair_action *act;   /* the current packet's action (about 4 KiB: not on the stack) */
};

struct replay {
	const struct opts *o;
	volatile sig_atomic_t *stop;
	/* sources */
	struct trace **traces;       /* one per input file, all opened before sending */
	struct live *live;           /* --source-interface: the capture behind traces[0]; NULL if none */
	struct live_stats live_st;   /* its counts, once it has ended (replay_close()) */
	struct source src;           /* the position in passes x files */
	bool stopped;                /* a signal came while an input was opened: nothing is sent */
	/* edits */
	struct edit_chain *chain;    /* NULL when no edit was asked for */
	struct edit_prep *prep;      /* --prep sidecar, checked against the trace */
	/* schedule */
	struct sched sched;
	struct clock_virtual vclock;
	struct rt rt;                /* real-time set-up; rt_release() at the end */
	bool timed;                  /* deadlines are waited for and their errors measured */
	/* the output lanes, and how a packet picks one (two lanes only) */
	struct lane lane[STATS_LANES_MAX];
	unsigned nlanes;             /* 1 (-i or -w), 2 (-i and -I) */
	struct split *split;         /* --split classifier, or NULL */
	struct split_cache *cache;   /* -c tcpprep cache, or NULL */
	bool prep_sides;            /* -I: the sides come from the --prep sidecar (replay prep --split) */
	bool sides1;                /* one lane, but -c/--split give the edits their direction */
	int side;                   /* the packet's side (SPLIT_INTF1/2) for the chain; 0 = none */
	struct impairing imp;        /* imp.im NULL: no impairment */
	/* accounting (account() in src/run/loop.c) */
	struct stats st;
	uint64_t ask_left;           /* --oneatatime: packets still to send before asking again */
	struct flow_table *flows;    /* flow statistics, counted as each packet goes to its lane; NULL: off */
	uint64_t fails_logged;       /* send failures logged, for the rate limit */
	uint64_t edit_fails_logged;  /* edit failures logged, for the rate limit */
	struct sendlog *slog;        /* --send-log, or NULL */
	struct decode *decode;       /* -v: tcpdump decoding each packet staged, or NULL */
	bool per_pkt;                /* slog or decode: stage_one()'s one branch for both */
	struct progress progress;    /* the status line or --stats N lines (replay/progress.h) */
	enum progress_mode progress_mode;
	FILE *summary;               /* where the summary (and progress) goes */
	/* --threads (src/run/threads.c): this run is shard @shard of @nshards (0: one thread) */
	unsigned shard, nshards;
	struct replay *workers;      /* thread 0's: nshards runs, [0] unused (thread 0 is this one) */
	struct rt_cfg rt_cfg;        /* a worker's real-time set-up, applied on its own thread */
	const char *method_name[STATS_LANES_MAX]; /* a worker's methods: thread 0's lanes', by name */
	struct stats_thread *thread_st; /* thread 0's: each thread's line of the summary */
	bool origin_given;           /* st.start_ns is the origin the threads share: run_start() keeps it */
	int status;                  /* a thread's exit status (replay_run()) */
	/* reports */
	FILE *json;                  /* --stats-json output, opened before sending */
	struct outfile json_out;     /* its file, committed after writing */
};

/*
 * replay_open() - build the run @o describes into @r: check every path,
 * acquire the capabilities (without @hooks), set up real time, open the
 * inputs, the edit chain, the output (with the method fallback) and the
 * send log, set up and calibrate the scheduler, start the interface check,
 * drop the capabilities.  Returns 0, or -1 with the error logged and
 * everything undone.  A signal while an input was awaited is not an error:
 * r->stopped is set and the run sends nothing.
 */
int replay_open(struct replay *r, const struct opts *o, volatile sig_atomic_t *stop,
		const struct replay_hooks *hooks);

/*
 * replay_close() - after the loop (and its drain): close the send log, end
 * the interface check, commit the -w output if the run failed nowhere,
 * print the summary and write --stats-json, then take everything down.
 * @status is the loop's verdict; returns the process exit status.
 */
int replay_close(struct replay *r, int status);

/*
 * replay_collect() - after the loop: each lane's counters into r->st.lane[],
 * their sums into r->st's totals (src/run/loop.c).
 */
void replay_collect(struct replay *r);

/*
 * replay_run() - the run after replay_open(): the loop, what is left staged,
 * the drain, the end time, replay_collect() and the scheduler's report.
 * Returns the exit status so far (replay_close() gives the final one).
 */
int replay_run(struct replay *r);

/*
 * replay_open_worker() - thread @idx's own run beside @main's (--threads):
 * its own traces, edit chain, flow table, --split classifier (or -c cache)
 * and socket on each interface (for xdp its queue of each), and a
 * scheduler like main's.  Called by replay_open() while capabilities are
 * still held.  0, or -1 logged (and undone).
 */
int replay_open_worker(struct replay *w, const struct replay *main, unsigned idx,
		       const struct sched_cfg *scfg);

/* replay_close_worker() - take down what replay_open_worker() built. */
void replay_close_worker(struct replay *w);

/*
 * replay_threads_run() - --threads: run @r (thread 0, on the calling
 * thread) and @w[1 .. n - 1] (each on a thread of its own, pinned) from one
 * origin; merge every thread's account into r->st, one line each in
 * r->threads.  Returns the exit status so far.
 */
int replay_threads_run(struct replay *r, struct replay *w, unsigned n);

/* impairing_open() / impairing_close() - the engine and its queue (src/run/loop.c); 0 or -1 logged. */
int impairing_open(struct replay *r);
void impairing_close(struct replay *r);

#endif
