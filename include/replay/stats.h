/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Run statistics: counters, the send-time error histogram, and the summary
 * in human and JSON form.
 */
#ifndef REPLAY_STATS_H
#define REPLAY_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flows.h"
#include "hist.h"
#include "sched_report.h"

/* The most output lanes a run has (-i and -I). */
#define STATS_LANES_MAX 2

/*
 * One output lane's account (an interface, or the -w file).  Each packet
 * read is routed to one lane before it is edited, so per lane too
 * read = sent + filtered + failed at the end of a run.
 */
struct stats_lane {
	const char *name;        /* "intf1", "intf2" */
	const char *method;      /* method name */
	const char *method_mode; /* how the method runs; NULL or "" = nothing to say */
	const char *dev;         /* interface or output file */
	uint64_t read, sent, failed, retried, filtered, bytes_sent; /* as in struct stats */
	uint64_t impair_dropped, impair_copies; /* as in struct stats */
	uint64_t segmented, segments; /* as in struct stats */
	uint64_t gso_frames, gso_segments; /* as in struct stats */
	uint64_t not_ip;         /* as in struct stats */
	/* -i/-I: the interface's own counters over the run (src/tx/ifcheck.c); only when if_valid. */
	bool if_valid;
	uint64_t if_tx_packets;  /* tx_packets it counted during the run */
	uint64_t if_tx_dropped;  /* tx_dropped it counted during the run */
	uint64_t if_tx_deficit;  /* sent minus if_tx_packets, when positive: reported sent, never left */
};

/*
 * One sender thread's account (--threads): its shard of the flows, with
 * read = sent + filtered + failed of its own, as the totals have.
 */
struct stats_thread {
	int cpu;                 /* the CPU it was pinned to; -1 = not pinned */
	const char *method_mode; /* its method's details ("copy mode, queue 1") */
	uint64_t read, sent, failed, retried, filtered, bytes_sent;
	uint64_t late_packets;   /* timed runs: packets it found late beyond the threshold */
	unsigned nlanes;         /* its interfaces: 2 with -I (or --dualfile), each account in lane[] */
	struct stats_lane lane[STATS_LANES_MAX]; /* its account per interface (if_* unused) */
};

/*
 * The counters a loop pass is told apart by: a snapshot of the run's
 * totals, taken when a pass begins and when it ends (the pass is the
 * difference).  in_flight is what is staged in the methods or held back
 * by impairment at that instant: packets that will end sent or failed.
 */
struct stats_counts {
	uint64_t read, sent, failed, retried, filtered, bytes_sent;
	uint64_t impair_dropped, impair_copies, in_flight;
	uint64_t segmented, segments;
};

/*
 * One loop pass (--loop) as "passes" in the JSON: what happened during it
 * (packets read, and packets that ended sent, filtered, failed or
 * dropped).  A packet still staged or held back when a pass ends is in
 * flight: counted as such at its end, and where it ends in a later pass.
 * So every identity of the totals holds per pass with the packets in
 * flight: read + impair_copies + in_flight_before = sent + filtered +
 * failed + impair_dropped + in_flight_after (+ segments - segmented with
 * --segment); and the passes sum to the
 * totals (the last pass ends with nothing in flight).
 * Once STATS_PASSES_MAX records are kept, the last one takes in every
 * later pass too (npasses > 1).
 */
struct stats_pass {
	uint64_t pass;             /* its number, from 1 */
	uint64_t npasses;          /* passes it covers: 1, more for the last past STATS_PASSES_MAX */
	struct stats_counts c;     /* the pass's counts; c.in_flight unused */
	uint64_t in_flight_before, in_flight_after; /* packets staged or held at its start and end */
	uint64_t start_ns, end_ns; /* run clock */
	uint64_t err_count, err_p50, err_p90, err_p99, err_p999, err_max; /* send error of its packets, ns */
	double err_mean;
	struct flow_counts flows;  /* the flow counts of its packets (the table lives across passes) */
};

/* Pass records kept; beyond, the last one takes in the rest (64 Ki x ~200 bytes). */
#define STATS_PASSES_MAX 65536u

#define STATS_EXTRA_MAX 2

struct json;

struct stats {
	uint64_t read;       /* records read from the traces (not counting one interrupted by a signal) */
	uint64_t sent;       /* packets the method accepted */
	uint64_t failed;     /* packets that could not be sent, each with a reason logged */
	uint64_t retried;    /* send attempts repeated after back-pressure (ENOBUFS, EAGAIN, full ring) */
	uint64_t filtered;   /* packets the edit chain dropped on purpose */
	uint64_t bytes_sent; /* frame bytes accepted by the method */
	uint64_t start_ns;   /* run clock at the start, ns */
	uint64_t end_ns;     /* run clock after the last send, ns */
	uint64_t early;      /* sends that returned before their deadline (counted as 0 error) */
	struct hist send_err; /* actual minus scheduled send time, ns (NetVCR's epsilon) */
	struct sched_report sched; /* the scheduler's own account; sched.timer NULL when untimed */
	struct sched_start_report start; /* --start-at: asked for and reached; start.set false without it */
	struct flow_counts flows; /* flow statistics (replay/flows.h); flows.enabled false: not counted */
	const char *method;  /* method name (of intf1 with two lanes) */
	const char *method_mode; /* how the method runs ("copy mode, queue 0"); NULL or "" = nothing to say */
	const char *dev;     /* interface or output file (intf1 with two lanes) */
	/*
	 * Impairment (--impair, --loss, ...): then every packet read, and every
	 * copy an action added, ends sent, filtered, failed or impair_dropped:
	 * read + impair_copies = sent + filtered + failed + impair_dropped,
	 * printed as such.  impair_qdropped is the part of impair_dropped that
	 * found no room in the queue.  The impairment module's own account is
	 * printed and written by the hooks, as "impairment" in the JSON.
	 */
	bool impaired;
	uint64_t impair_dropped, impair_qdropped, impair_copies;
	/*
	 * --segment: frames longer than the MTU cut into @segments frames in
	 * all, each ending sent or failed on its own: then read + copies +
	 * segments - segmented = sent + filtered + failed + impair_dropped.
	 */
	bool segmenting;
	bool fragrouting;          /* --fragroute: segmented and segments count the frames through its
				      rules and the frames they became (segmenting is set too) */
	uint64_t segmented, segments;
	/*
	 * --gso: frames longer than the MTU handed to the kernel whole, each
	 * counted one packet sent, and the @gso_segments it cuts them into.
	 */
	uint64_t gso_frames, gso_segments;
	/*
	 * An interface without a link-layer header (tun, an IP tunnel): layer3
	 * set, and not_ip the failed frames that carried no IP packet to send
	 * there (ARP, LLDP...), said once in the summary.
	 */
	bool layer3;
	uint64_t not_ip;
	/*
	 * Other modules' accounts (the impairment's, the live source's): each
	 * printed after the packet lines and written as "key": value in the
	 * JSON, in order.  print may be NULL (the caller prints it elsewhere).
	 */
	struct stats_extra {
		void (*print)(const void *arg, FILE *f);
		void (*json)(const void *arg, struct json *w); /* one JSON value (key NULL), the value of key */
		const char *key;
		const void *arg;
	} extra[STATS_EXTRA_MAX];
	unsigned nextra;
	/*
	 * The lanes: one (-i or -w), or two (-i and -I).  With one, the summary
	 * and the JSON are the lane's without naming it; with two, each side
	 * gets its lines and its "intf1"/"intf2" object beside the totals.
	 */
	unsigned nlanes;
	struct stats_lane lane[STATS_LANES_MAX];
	/* --threads N: the totals above are the threads' sums; each thread's own, one line each */
	unsigned nthreads;       /* 0: one thread, nothing more to say */
	const char *threads_auto; /* the threads were chosen unasked (no --threads): why; NULL = asked */
	const struct stats_thread *thread;
	/*
	 * Loop passes (stats_pass_begin(), stats_pass_end()): the records,
	 * the open pass's snapshot and its own send-error histogram.
	 */
	bool passes_on;              /* passes are recorded (and written as "passes") */
	bool pass_open;              /* a pass has begun and not been recorded */
	struct stats_pass *passes;
	size_t npasses, passes_cap;
	uint64_t pass_no;            /* passes begun */
	struct stats_counts pass_mark; /* the totals when the open pass (or the merged tail) began */
	struct flow_counts pass_flows; /* flow counts then */
	uint64_t pass_start_ns;
	struct hist pass_err;        /* send errors of packets sent during the open pass (the merged tail's, once merging) */
};

/* stats_init() - zero @s and its histogram. */
void stats_init(struct stats *s);

/* stats_free() - release what @s holds (its pass records); @s is then as after stats_init(). */
void stats_free(struct stats *s);

/*
 * stats_add() - another sender's account @s (--threads: a thread's, over
 * its shard of the flows) added into @into: the counters, each lane's
 * (the same interfaces in the same order), the send-error histogram, the
 * flow counts; the later end; --start-at's earliest first send.  The
 * scheduler's report is its own (sched_report_add()); passes, extras and
 * the thread lines are not added.
 */
void stats_add(struct stats *into, const struct stats *s);

/* stats_add_err() - a sent packet's send error @v, ns: to the run's histogram and its pass's. */
static inline void stats_add_err(struct stats *s, uint64_t v)
{
	hist_add(&s->send_err, v);
	if (s->passes_on)
		hist_add(&s->pass_err, v);
}

/*
 * stats_pass_begin() - a loop pass begins at run clock @now_ns with the
 * totals @c (and s->flows as they are).  Does nothing unless s->passes_on.
 */
void stats_pass_begin(struct stats *s, uint64_t now_ns, const struct stats_counts *c);

/*
 * stats_pass_end() - the open pass ends at @now_ns with the totals @c:
 * it is recorded as their difference from its beginning.  Nothing when no
 * pass is open.  0, or -ENOMEM (the pass is then not recorded, and
 * s->passes_on is cleared: the JSON has no "passes" rather than wrong ones).
 */
int stats_pass_end(struct stats *s, uint64_t now_ns, const struct stats_counts *c);

/* stats_elapsed_ns() - end minus start, ns. */
static inline uint64_t stats_elapsed_ns(const struct stats *s)
{
	return s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0;
}

/* stats_pps() / stats_mbps() - average rates over the elapsed time; 0 when no time passed. */
double stats_pps(const struct stats *s);
double stats_mbps(const struct stats *s);

/* stats_print() - the human summary, tcpreplay's in spirit, to @f. */
void stats_print(const struct stats *s, FILE *f);

/*
 * The JSON's "schema_version": 1 had no such key; 2 adds it and "passes"
 * (with s->passes_on).  Keys are only ever added.
 */
#define STATS_JSON_SCHEMA 2

/* stats_write_json() - one JSON object and a newline to @f; 0 or -errno (json_finish()). */
int stats_write_json(const struct stats *s, FILE *f);

#endif
