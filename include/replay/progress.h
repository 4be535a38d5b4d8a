/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Progress while a run goes on, in one of two forms:
 *
 *   PROGRESS_LINE   on a terminal: one status line, rewritten in place about
 *                   twice a second -- packets and bytes sent, the rate, the
 *                   time elapsed, the ETA when the end is known, the send
 *                   error's p99 so far, the stalls -- and erased at the end
 *                   so the summary follows on a clean line.
 *   PROGRESS_STATS  tcpreplay's --stats N: every N seconds (N = 0: at the
 *                   end of every loop pass) its two lines,
 *                     Actual: P packets (B bytes) sent in S.SS seconds
 *                     Rated: X Bps, Y Mbps, Z pps
 *                   so scripts that read tcpreplay's output read ours.
 *
 * Besides either, or alone, a function of the caller's on an interval of
 * its own (libreplay's progress callback): progress_set_hook().
 *
 * The loop asks progress_due() (one comparison, whatever is asked for)
 * with a clock it already read; only when it is due does it gather a
 * struct progress_in and call progress_tick().  Nothing here reads a clock
 * or allocates.
 */
#ifndef REPLAY_PROGRESS_H
#define REPLAY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum progress_mode { PROGRESS_OFF, PROGRESS_LINE, PROGRESS_STATS };

/* The status line's refresh interval. */
#define PROGRESS_LINE_NS 500000000ULL

struct progress_in;

struct progress {
	enum progress_mode mode;
	uint64_t interval_ns; /* between two outputs; 0 with PROGRESS_STATS: per loop pass only */
	uint64_t next_ns;     /* the earlier of print_ns and hook_next_ns: progress_due()'s */
	uint64_t print_ns;    /* run clock of the next output; UINT64_MAX = none by time */
	size_t width;         /* PROGRESS_LINE: characters of the line now shown */
	bool lines;           /* PROGRESS_LINE as whole lines, "" erasing it (set after progress_init()) */
	FILE *f;
	/* progress_set_hook()'s function, every hook_ns from hook_next_ns; NULL = none. */
	void (*hook)(void *ctx, const struct progress_in *in);
	void *hook_ctx;
	uint64_t hook_ns, hook_next_ns;
};

/* What one output shows; elapsed_ns is the run clock since the start. */
struct progress_in {
	uint64_t sent, bytes, failed;
	uint64_t read, filtered; /* for the hook: the output leaves them out */
	uint64_t elapsed_ns;
	uint64_t total;       /* packets the run will send, 0 = not known (no ETA) */
	uint64_t err_p99_ns;  /* send error p99 so far; UINT64_MAX = not measured (dry run) */
	uint64_t stalls;
};

/*
 * progress_init() - set @p up for @mode on @f, starting at run clock
 * @start_ns.  With PROGRESS_STATS, @stats_s is tcpreplay's N (0 = per loop
 * pass); with PROGRESS_LINE it is ignored.
 */
void progress_init(struct progress *p, enum progress_mode mode, uint64_t stats_s, FILE *f,
		   uint64_t start_ns);

/* progress_due() - is an output due at run clock @now_ns? */
static inline bool progress_due(const struct progress *p, uint64_t now_ns)
{
	return now_ns >= p->next_ns;
}

/*
 * progress_set_hook() - after progress_init(): also call @fn(@ctx, in) every
 * @interval_ns (> 0) of run clock from @start_ns, whatever the mode; @fn
 * NULL: none.  Called from the loop's thread, between packets.
 */
void progress_set_hook(struct progress *p, uint64_t interval_ns,
		       void (*fn)(void *ctx, const struct progress_in *in), void *ctx,
		       uint64_t start_ns);

/* progress_print() - the output for @in, and the next one scheduled after @now_ns. */
void progress_print(struct progress *p, uint64_t now_ns, const struct progress_in *in);

/* progress_tick() - what is due at @now_ns (progress_due() said so): the output, the hook or both. */
void progress_tick(struct progress *p, uint64_t now_ns, const struct progress_in *in);

/* progress_pass_end() - a loop pass ended: with --stats 0, the output for @in. */
void progress_pass_end(struct progress *p, uint64_t now_ns, const struct progress_in *in);

/* progress_finish() - erase the status line (PROGRESS_LINE) before the summary. */
void progress_finish(struct progress *p);

/*
 * progress_format_line() - the status line for @in into @buf (no newline):
 * for tests and for progress_print().  Returns its length.
 */
size_t progress_format_line(char *buf, size_t len, const struct progress_in *in);

#endif
