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
#include "sched_report.h"

/*
 * struct hist - log-linear histogram of non-negative ns values in fixed
 * memory: exact below 2^HIST_SUB_BITS, then 2^HIST_SUB_BITS buckets per power of two, so
 * any reported percentile is within 1/2^HIST_SUB_BITS (3.1 %) of the true value.
 */
#define HIST_SUB_BITS 5
#define HIST_BUCKETS  ((64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t count;              /* values added */
	uint64_t min, max;           /* exact extremes, ns */
	long double sum;             /* for the mean, ns */
	uint64_t bucket[HIST_BUCKETS];
};

/* hist_init() - empty @h. */
void hist_init(struct hist *h);

/* hist_bucket() - index of the bucket holding @v. */
static inline unsigned hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < (1u << HIST_SUB_BITS))
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* floor(log2 v) >= HIST_SUB_BITS */
	return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (unsigned)((v >> (e - HIST_SUB_BITS)) - (1u << HIST_SUB_BITS));
}

/* hist_add() - count one value. */
static inline void hist_add(struct hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += (long double)v;
	h->bucket[hist_bucket(v)]++;
}

/*
 * hist_pct() - the @q quantile (0..1) of the values: the midpoint of the bucket holding it,
 * clamped to [min, max]; 0 when empty.
 */
uint64_t hist_pct(const struct hist *h, double q);

/* hist_mean() - arithmetic mean, ns; 0 when empty. */
double hist_mean(const struct hist *h);

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
	/* -i/-I: the interface's own counters over the run (src/checks.c); only when if_valid. */
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
};

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
	void (*extra_print)(const void *arg, FILE *f);
	int (*extra_json)(const void *arg, FILE *f); /* one JSON value, the value of extra_key */
	const char *extra_key;
	const void *extra_arg;
	/*
	 * The lanes: one (-i or -w), or two (-i and -I).  With one, the summary
	 * and the JSON are the lane's without naming it; with two, each side
	 * gets its lines and its "intf1"/"intf2" object beside the totals.
	 */
	unsigned nlanes;
	struct stats_lane lane[STATS_LANES_MAX];
	/* --threads N: the totals above are the threads' sums; each thread's own, one line each */
	unsigned nthreads;       /* 0: one thread, nothing more to say */
	const struct stats_thread *thread;
};

/* stats_init() - zero @s and its histogram. */
void stats_init(struct stats *s);

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

/* stats_write_json() - one JSON object and a newline to @f; 0 or -errno. */
int stats_write_json(const struct stats *s, FILE *f);

/* Write @str to @f as a JSON string, with the escapes RFC 8259 requires (NULL as ""). */
void stats_json_str(FILE *f, const char *str);

#endif
