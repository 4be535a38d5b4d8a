/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run's files and what each owns (struct replay is their parts), in
 * the order calls go: a file calls only files below it in this list, never
 * one above.  Nothing outside src/run/ includes this.
 *
 *   run.c        replay_main(): open, run (one thread or --threads), report, take down
 *   setup.c      replay_open(): every input and output, and the plan the loop reads;
 *                replay_teardown()
 *   threads.c    --threads: the same loop in each thread from one origin, then the merge
 *   loop.c       replay_run(): the earliest of the producers, through its stages, out of its lane
 *   impairing.c  the impairment stage: drop, pass, hold until a later deadline, copies
 *   source.c     the trace source: passes x files, pairs merged by timestamp, rewinds
 *   pass.c       loop passes, the --loop 0 guard, the progress and --stats lines
 *   route.c      a packet's lane (-I: --split, -c) and --split's learning
 *   lane.c       output lanes: staging, kicks, back-pressure, every packet's fate
 *   suspend.c    SIGUSR1: the run suspended until the next one, the schedule moved back
 *   report.c     after the run: the -w commit, the summary, --stats-json, the send log
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
#include "replay/frag.h"
#include "replay/impair.h"
#include "replay/flows.h"
#include "replay/live.h"
#include "replay/outfile.h"
#include "replay/progress.h"
#include "replay/sched.h"
#include "replay/segment.h"
#include "replay/sendlog.h"
#include "replay/slots.h"
#include "replay/split.h"
#include "replay/stats.h"
#include "replay/trace.h"
#include "replay/tx.h"

enum step {
	STEP_NEXT,  /* go on */
	STEP_AGAIN, /* the source's input has no whole record yet: wait for it (source_fd()) */
	STEP_STOP,  /* a signal (*stop), or, without one, the source is done: its end, --limit, --duration */
	STEP_ERROR, /* the run cannot go on (a read error, the interface gone); logged */
	STEP_EDGE,  /* a burst's (loop.c): a file ended while packets read from it wait to be staged */
};

/* What became of a packet read: each ends in exactly one, counted by account(). */
enum fate {
	FATE_SENT,        /* handed to the kernel (or written) by the method */
	FATE_FILTERED,    /* dropped on purpose by the edit chain */
	FATE_FAILED,      /* could not be converted or sent; the reason is logged */
	FATE_EDIT_FAILED, /* the edit chain failed on it; the reason is logged */
	FATE_IMPAIRED,    /* dropped by an impairment action, or for want of room in its queue */
};

/*
 * What set-up resolves once from the options (setup.c, plan()): the loop
 * reads this, never the options.
 */
struct run_plan {
	bool timed;                  /* deadlines are waited for and their errors measured */
	bool live;                   /* --source-interface: a frame is due at its arrival stamp */
	bool oneatatime;             /* ask how many packets to send next */
	bool ts_warn_jump;           /* recorded timing without --maxsleep: a long jump is said */
	bool ts_warn_back;           /* recorded timing: a step back is said */
	bool passes_json;            /* --stats-json records each loop pass (one thread) */
	uint64_t passes;             /* --loop: passes over the file list; 0 = endless */
	uint64_t limit;              /* --limit; 0 = none */
	uint64_t loop_delay_ns;      /* before each pass after the first */
	uint64_t duration_ns;        /* --duration; 0 = none */
	uint64_t late_threshold_ns;  /* a held frame sent later than this after its deadline is late */
	uint64_t speed_num, speed_den; /* --speed, for the timestamp jump's warning */
	enum progress_mode progress; /* the status line, --stats lines, or nothing */
	bool line_ok;                /* the options allow the status line (a terminal aside) */
	uint64_t stats_s;            /* --stats N: every N s; 0: per loop pass */
	const char *out_name;        /* the interface or file packets go to: --oneatatime's question */
};

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
	struct stats_lane st;        /* its counters (the run's totals are their sums: lanes_collect()) */
	uint32_t seg_max;            /* --segment: a longer frame is cut first (stage_cut()); UINT32_MAX: never */
	uint32_t seg_mtu;            /* the MTU it is cut to: the interface's, or --mtu with -w */
	bool gso;                    /* --gso: a TCP frame the kernel may cut goes whole (segment_vnet()) */
	struct segment_out seg;      /* the frames cut from one (buf NULL without --segment) */
	struct ifcheck ifc;          /* an interface's own TX counters around the run */
	char mode[320];              /* the method's details for the summary */
};

/* The lanes (lane.c), and what every staged packet may also go to. */
struct lanes {
	struct lane lane[STATS_LANES_MAX];
	unsigned n;                  /* 1 (-i or -w), 2 (-i and -I) */
	struct sendlog *slog;        /* --send-log, or NULL */
	struct decode *decode;       /* -v: tcpdump decoding each packet staged, or NULL */
	bool per_pkt;                /* slog or decode: stage_one()'s one branch for both */
	uint64_t fails_logged;       /* send failures logged, for the rate limit */
	uint64_t edit_fails_logged;  /* edit failures logged, for the rate limit */
	unsigned seg_said;           /* --segment: the reasons a frame was not cut already said (bits) */
	struct frag_rules *frag;     /* --fragroute: the rules every frame goes through; NULL = none */
	struct frag_out *frag_out;   /* the frames they make of one */
	uint64_t frag_rng;           /* their random state, from --fragroute-seed */
	bool frag_said;              /* a frame the rules could not take was said */
	int frag_side;               /* --fragdir: 0 = every frame, else the side (SPLIT_INTF1/2) they take */
};

/* What was read of one input file, over every pass (--stats-json "files"). */
struct source_file {
	uint64_t records, bytes;     /* records handed out, and their captured bytes */
};

/*
 * The trace source (source.c).  Every input is checked before sending,
 * but a file is held open only while it is read (trace_release()): many
 * files, few descriptors.
 */
/* The most packets the source reads from its file at once (src.batch): a burst's worth. */
#define SOURCE_AHEAD TX_BATCH_DEFAULT

struct source {
	struct trace **traces;       /* one per input file, checked before sending, open while read */
	struct source_file *files;   /* one per input file */
	int nfiles;
	struct live *live;           /* --source-interface: the capture behind traces[0]; NULL if none */
	unsigned width;              /* files read side by side: 1, 2 with --dualfile, all with --merge */
	bool tie_last;               /* --merge: a tie goes to the file given last (mergecap); else the first */
	uint64_t pass;               /* from 0 */
	int f;                       /* the first file of the group being read */
	bool in_file;                /* traces[f ..] are being read (rewound if need be) */
	struct pkt *pend;            /* [width]: each file's next packet, read ahead (width > 1) */
	bool *have, *done;           /* [width]: pend[k] holds one; file k has ended */
	unsigned side;               /* the file in its group of the packet just read (--dualfile: its lane) */
	const struct trace *waiting; /* STEP_AGAIN: the input whose next record has not all arrived */
	uint64_t prev_ts;            /* the last record's timestamp, for the jump warning */
	bool jump_warned, back_warned; /* one warning of each a run */
	bool hold_end;               /* a burst holds views into the file: its end waits (STEP_EDGE) */
	bool batch;                  /* read traces[f] in batches (the burst path): ahead holds the rest */
	unsigned ahead_i, ahead_n;   /* ahead[ahead_i, ahead_n): read from traces[f], not yet taken */
	struct pkt ahead[SOURCE_AHEAD];
};

/* How a packet picks its lane (route.c): -I with --split or -c, or one lane. */
struct route {
	struct split *split;         /* --split classifier, or NULL */
	struct split_cache *cache;   /* -c tcpprep cache, or NULL */
	bool prep_sides;             /* the sides come from the --prep sidecar (replay prep --split) */
	bool sides1;                 /* one lane, but -c/--split give the edits their direction */
	bool nosend_skips;           /* one lane (-i), -c: a packet without the send bit is skipped */
	bool dualfile;               /* two lanes: a packet's file names its lane */
	int side;                    /* the packet's side (SPLIT_INTF1/2) for the chain; 0 = none */
};

/* Loop passes and progress (pass.c). */
struct passes {
	uint64_t read_before, moved_before, filtered_before, failed_before; /* at the pass's start */
	bool futile;                 /* --loop 0: a pass sent, staged, held or dropped nothing: stopped */
	uint64_t futile_read, futile_filtered, futile_failed; /* that pass's packets */
	struct progress progress;    /* the status line or --stats N lines (replay/progress.h) */
	/*
	 * struct replay_hooks' progress function, for progress_set_hook().
	 * With --threads, thread 0's sums the threads' counts and each other
	 * thread's publishes its own (threads_progress_hook()).
	 */
	void (*hook)(void *ctx, const struct progress_in *in);
	void *hook_ctx;
	uint64_t hook_ns;
};

/* A frame held back by impairment (a delay, a delayed copy): its own copy in a slab slot. */
struct held {
	struct pkt p;                /* p.data is the slot; p.sched_ns the impaired deadline */
	const struct trace *t;       /* for messages */
	struct lane *l;              /* the lane it leaves by */
	unsigned slot;               /* its slot's id (slots_get()), given back when sent */
};

/*
 * The impairment stage (impairing.c): the engine, the deadline-ordered queue
 * of held frames and their memory, all allocated before the run
 * (--impair-limit frames, include/replay/slots.h).
 */
struct impairing {
	struct impair *im;           /* NULL: no impairment */
	struct dqueue dq;
	struct held *held;           /* one per slot id (slots_ids()) */
	struct slots slots;          /* the frames' memory, resident before the run */
	unsigned nheld, limit;       /* frames held now; at most --impair-limit */
	uint8_t *scratch;            /* one frame: a corrupted frame sent at once */
	struct impair_action *act;   /* the current packet's action (about 4 KiB: not on the stack) */
};

/* The reports (report.c). */
struct reports {
	FILE *summary;               /* where the summary (and progress) goes */
	FILE *err;                   /* where the program's own stderr lines go; NULL: nowhere */
	FILE *status;                /* the status line as whole lines (the library's), or NULL */
	bool lines;                  /* summary hands over whole lines: a prompt ends its line */
	FILE *json;                  /* --stats-json output, opened before sending */
	struct outfile json_out;     /* its file, committed after writing */
	struct live_stats live_st;   /* the live source's counts, once it has ended */
};

/* --threads (threads.c): this run is thread idx of n. */
struct shard {
	unsigned idx, n;             /* n 0: one thread */
	uint64_t skipped;            /* packets read that were other threads' */
	struct replay *workers;      /* thread 0's: n runs, [0] unused (thread 0 is this one) */
	struct rt_cfg rt_cfg;        /* a worker's real-time set-up, applied on its own thread */
	const char *method_name[STATS_LANES_MAX]; /* a worker's methods: thread 0's lanes', by name */
	struct stats_thread *thread_st; /* thread 0's: each thread's line of the summary */
	bool origin_given;           /* st.start_ns is the origin the threads share: run_start() keeps it */
	int status;                  /* a thread's exit status (replay_run()) */
	/*
	 * With a progress hook: a worker's counts as it last published them
	 * (relaxed stores, at its hook's interval, never per packet), read by
	 * thread 0; and thread 0's copy of the caller's hook, which it calls
	 * with the sum.
	 */
	struct progress_in pub;
	void (*user_hook)(void *ctx, const struct progress_in *in);
	void *user_ctx;
};

struct replay {
	const struct opts *o;        /* the options: set-up and reports only, never the loop */
	volatile sig_atomic_t *stop;
	volatile sig_atomic_t *suspend; /* SIGUSR1s caught, odd = suspended (suspend.c); NULL: never */
	bool poll_flags;             /* stop and suspend are set without a signal (the library's): waits look */
	bool stopped;                /* a signal came while an input was opened: nothing is sent */
	struct run_plan plan;
	struct source src;
	struct route route;
	struct edit_chain *chain;    /* NULL when no edit was asked for */
	struct edit_prep *prep;      /* --prep sidecar, checked against the trace */
	struct sched sched;
	struct clock_virtual vclock;
	struct rt rt;                /* real-time set-up; rt_release() at the end */
	struct impairing imp;
	struct lanes out;
	struct passes pass;
	uint64_t ask_left;           /* --oneatatime: packets still to send before asking again */
	struct stats st;             /* the run's account: the lanes' sums after the loop */
	struct flow_table *flows;    /* flow statistics, counted as each packet goes to its lane; NULL: off */
	struct reports rep;
	struct shard th;
};

/* ---- run.c, setup.c, threads.c, loop.c ----------------------------------- */

/*
 * replay_open() - build the run @o describes into @r: check every path,
 * acquire the capabilities (without @hooks), set up real time, open the
 * inputs, the edit chain, the output (with the method fallback) and the
 * send log, set up and calibrate the scheduler, resolve the plan, start
 * the interface check, drop the capabilities.  Returns 0, or -1 with the
 * error logged and everything undone.  A signal while an input was awaited
 * is not an error: r->stopped is set and the run sends nothing.  @suspend:
 * the count of SIGUSR1s caught (suspend.c), or NULL.
 */
int replay_open(struct replay *r, const struct opts *o, volatile sig_atomic_t *stop,
		volatile sig_atomic_t *suspend,
		const struct replay_hooks *hooks);

/*
 * replay_open_worker() - thread @idx's own run beside @main's (--threads):
 * its own traces, edit chain, flow table, --split classifier (or -c cache)
 * and socket on each interface (for xdp its queue of each), and a
 * scheduler like main's.  Called by replay_open() while capabilities are
 * still held.  0, or -1 logged (and undone).
 */
int replay_open_worker(struct replay *w, const struct replay *main, unsigned idx,
		       const struct sched_cfg *scfg);

/* replay_teardown() - take down whatever replay_open() (or replay_open_worker()) built; safe on a half-built run. */
void replay_teardown(struct replay *r);

/*
 * replay_threads_run() - --threads: run @r (thread 0, on the calling
 * thread) and @w[1 .. n - 1] (each on a thread of its own, pinned) from one
 * origin; merge every thread's account into r->st, one line each.  Returns
 * the exit status so far.
 */
int replay_threads_run(struct replay *r, struct replay *w, unsigned n);

/*
 * threads_progress_hook() - with --threads and the caller's progress hook
 * set in r->pass (thread 0): make thread 0's hook the sum over the threads,
 * and have each worker @w publish its counts at the same interval (at most
 * THREADS_PUBLISH_NS).  Called once the workers are open.
 */
void threads_progress_hook(struct replay *r, struct replay *w, unsigned n);

/*
 * replay_run() - the run after replay_open(): the loop, what is left staged,
 * the drain, the end time, the lanes' sums and the scheduler's report.
 * Returns the exit status so far (replay_report() gives the final one).
 */
int replay_run(struct replay *r);

/* A packet on its way to its lane: the source's next, read and edited, with its lane and deadline. */
struct item {
	struct pkt *p;               /* p->sched_ns: when it is due on the run clock, in every mode */
	const struct trace *t;       /* for messages */
	struct lane *l;
	uint64_t deadline;           /* the schedule's deadline (0 at top speed) */
};

/* ---- impairing.c --------------------------------------------------------- */

/*
 * impair_stage() - @it, from the source and due before every frame held,
 * through the impairment: dropped, sent now, or held until its impaired
 * deadline, and its copies likewise.  STEP_STOP without a signal: --limit
 * was reached (no more is read; what is held still goes).
 */
enum step impair_stage(struct replay *r, struct item *it);

/*
 * impair_send_held() - the earliest held frame, sent at its deadline
 * (lane_send()); *@mark is that deadline.  A signal during its wait leaves
 * it held, for impair_fail_held().
 */
enum step impair_send_held(struct replay *r, uint64_t *mark);

/* impair_fail_held() - the run ended with frames still held: each fails, in one line. */
void impair_fail_held(struct replay *r);

/* impair_stage_open() - the engine, its queue and slots (nothing without impairment); 0 or -1 logged. */
int impair_stage_open(struct replay *r);
void impair_stage_close(struct replay *r);

/* ---- source.c ------------------------------------------------------------ */

/* source_open() - every input (--source-interface's capture first) for thread @main's run or its own; 0 or -errno logged. */
int source_open(struct replay *r, const struct replay *main);
void source_close(struct replay *r);

/* ---- pass.c -------------------------------------------------------------- */

/* pass_start() - the run's first pass begins at r->st.start_ns, and the progress output with it. */
void pass_start(struct replay *r);

/*
 * pass_end() - a pass over the file list ended: its --stats 0 lines; then
 * STEP_NEXT to go on, or STEP_STOP when there was nothing in it to read,
 * or (--loop 0) when nothing of it was sent, staged, held or dropped by
 * impairment -- every packet filtered out or failed, as every pass after
 * it would be: STEP_ERROR, logged (STEP_STOP, quietly, in one of several
 * threads, whose share it was: replay_threads_run() judges the run).
 */
enum step pass_end(struct replay *r);

/* pass_next() - the next pass begins (the last one is recorded for --stats-json). */
void pass_next(struct replay *r);

/* pass_record() - the open pass is recorded at run clock @now (--stats-json's "passes"). */
void pass_record(struct replay *r, uint64_t now);

/* pass_log_futile() - --loop 0's error: a whole pass of @read packets, @filtered and @failed, sent nothing. */
void pass_log_futile(uint64_t read, uint64_t filtered, uint64_t failed);

/* progress_show() - the status line or --stats lines, at run clock @now. */
void progress_show(struct replay *r, uint64_t now);

/* ---- route.c ------------------------------------------------------------- */

/* route_side() - the side (SPLIT_INTF1/2, SPLIT_NOSEND) of packet @p as read: -c, the sidecar or --split. */
int route_side(struct replay *r, const struct pkt *p);

/* route_two() - the lane of @p with two lanes (-I, --dualfile); NULL: not to be sent. */
struct lane *route_two(struct replay *r, const struct pkt *p);

/* route_open() - -I's classifier (--split, its learning pass) or -c's cache; 0 or -errno logged. */
int route_open(struct replay *r);
void route_close(struct replay *r);

/*
 * route_check_mtus() - -I with interfaces of different MTUs: every frame
 * fits the side it will leave by, read before sending; 0 or -1 logged.
 */
int route_check_mtus(struct replay *r);

/* ---- report.c ------------------------------------------------------------ */

/* realtime_minus_mono_ns() - CLOCK_REALTIME minus CLOCK_MONOTONIC now: the run clock's offset, ns. */
uint64_t realtime_minus_mono_ns(void);

/* report_open_json() - --stats-json, opened before sending; 0 or -errno logged. */
int report_open_json(struct replay *r);

/* report_open_send_log() - --send-log, once the run clock is set up; 0 or -errno logged. */
int report_open_send_log(struct replay *r);

/* report_close_send_log() - write the send log out (the run's end, or set-up undone); 0 or -1 logged. */
int report_close_send_log(struct replay *r);

/* report_finish_decode() - -v: tcpdump's pipe closed and waited for; how it ended is said. */
void report_finish_decode(struct replay *r);

/*
 * replay_report() - after the loop (and its drain): close the send log, end
 * the interface check, commit the -w output if the run failed nowhere,
 * print the summary and write --stats-json.  @status is the loop's
 * verdict; returns the process exit status.
 */
int replay_report(struct replay *r, int status);

/* ---- suspend.c ----------------------------------------------------------- */

/* run_suspended() - is the run to be suspended: an odd count of SIGUSR1s caught? */
static inline bool run_suspended(const struct replay *r)
{
	return r->suspend && (*r->suspend & 1);
}

/*
 * run_suspend() - sleep (never spin) until the count is even again or a
 * stop comes, then move the schedule and what is staged back by the time
 * suspended; returns it, ns, for a deadline the caller holds.
 */
uint64_t run_suspend(struct replay *r);

#endif
