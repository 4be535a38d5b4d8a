/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libreplay: replay's engine as a shared library (libreplay.so.0), for test
 * suites that would otherwise run the program and parse its output.
 *
 * A run is described by the program's own options (replay(1)): as an argv
 * that the same parser reads, or field by field.  Functions return 0 (or a
 * count) or -errno; the reason of the last failure on a handle is read with
 * replay_run_error().  The library never prints, never exits, installs no
 * signal handler and leaves the process's capabilities alone: the caller
 * holds the rights the run needs (cap_net_raw to send on an interface).
 * Runs in one process are serialised: replay_run_exec() on a second handle
 * waits for the first to end.
 *
 * Interface version 0; every symbol starts with replay_.
 */
#ifndef LIBREPLAY_H
#define LIBREPLAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBREPLAY_API_VERSION 0

/* The library's version ("0.1.0"), the program's. */
const char *replay_version(void);

/* Where a program would have printed a line (replay_run_set_lines(), replay_rx_set_lines()). */
enum replay_stream {
	REPLAY_STREAM_STDOUT = 1,
	REPLAY_STREAM_STDERR = 2,
	/*
	 * replay(1)'s status line: each replaces the one before (a terminal
	 * program draws it over it with \r), an empty one erases it before the
	 * summary.  Given whenever the options allow it; a program not on a
	 * terminal ignores it, as replay(1) draws none there.
	 */
	REPLAY_STREAM_STATUS = 3,
};

/* One line as the program prints it, without its newline. */
typedef void (*replay_line_fn)(void *user, enum replay_stream stream, const char *line);

/* One replay: options, then a blocking run, then its account. */
struct replay_run;

/* The account of a run: what --stats-json's totals say. */
struct replay_stats {
	uint64_t packets_read;     /* records read from the traces */
	uint64_t packets_sent;     /* packets the method accepted */
	uint64_t packets_failed;   /* packets that could not be sent */
	uint64_t packets_filtered; /* packets the edit options dropped on purpose */
	uint64_t bytes_sent;       /* frame bytes accepted */
	uint64_t duration_ns;      /* from the first send to the last */
	int stopped;               /* 1: replay_run_stop() ended it early */
	int exit_status;           /* what replay(1) would have exited with */
};

/*
 * replay_run_new_argv() - a run of @argv (@argv[0] is the program's name and
 * is skipped; the rest as replay(1) takes them).  The options are checked
 * here: a bad one gives -EINVAL, with the reason in *@err_out if not NULL
 * (freed by the caller with free()), and no handle.  --help, --version,
 * --listnics, --info, --save-opts and "replay prep" are the program's, not a
 * run's: -EINVAL too.
 */
int replay_run_new_argv(struct replay_run **run, int argc, const char *const *argv, char **err_out);

/* replay_run_new() - an empty run, built with the setters below; checked when it is run. */
int replay_run_new(struct replay_run **run);

/* replay_run_add_file() - a trace file, after those added before. */
int replay_run_add_file(struct replay_run *run, const char *path);

/*
 * replay_run_set_option() - any long option of replay(1) by its name
 * without dashes ("stats-json", "mtu"), with its argument or NULL for a flag.
 * The setters below are the common ones.
 */
int replay_run_set_option(struct replay_run *run, const char *name, const char *value);
int replay_run_set_interface(struct replay_run *run, const char *ifname); /* -i */
int replay_run_set_output_file(struct replay_run *run, const char *path); /* -w */
int replay_run_set_pps(struct replay_run *run, double pps);               /* --pps */
int replay_run_set_mbps(struct replay_run *run, double mbps);             /* --mbps */
int replay_run_set_speed(struct replay_run *run, double multiplier);     /* --speed */
int replay_run_set_topspeed(struct replay_run *run);                      /* --topspeed */
int replay_run_set_loop(struct replay_run *run, uint64_t passes);         /* --loop (0 = forever) */
int replay_run_set_limit(struct replay_run *run, uint64_t packets);       /* --limit */

/*
 * replay_run_set_progress() - during each replay_run_exec(), call
 * @fn(@user, st) with the account so far: at most once in each
 * @interval_ns of the run's clock from its start (a moment missed while a
 * packet was awaited or sent is skipped, not made up), on the thread
 * running it, between packets; then once at the end with what
 * replay_run_stats() gives.  During the run st->exit_status is -1 and
 * st->duration_ns the time since the start; at the end exit_status is
 * replay(1)'s.  A non-zero return stops the run as replay_run_stop() does
 * (the end's return is ignored).  @interval_ns 0: only the end's call; @fn
 * NULL: none.  With --threads N > 1 the calls are made on the calling
 * thread (thread 0) with the sum over the threads: each other thread
 * publishes its counts at most 10 ms apart (not per packet), so the sum
 * may lag by that much; the end's call has the exact account.  A run
 * refused for its options makes none.  -EBUSY while it runs.
 */
int replay_run_set_progress(struct replay_run *run, uint64_t interval_ns,
			    int (*fn)(void *user, const struct replay_stats *st), void *user);

/*
 * replay_run_set_ready() - during each replay_run_exec(), call @fn(@user)
 * once on the thread running it when set-up is over: every trace, socket
 * and output open (with --threads, every thread's), no packet sent yet --
 * where replay(1) drops its capabilities, so a program can drop its own
 * where it counts.  A non-zero return ends the run there, nothing sent, as
 * replay_run_stop() would.  Not called for a run refused for its options
 * or whose set-up failed.  @fn NULL: none.  -EBUSY while it runs.
 */
int replay_run_set_ready(struct replay_run *run, int (*fn)(void *user), void *user);

/*
 * replay_run_set_lines() - during each replay_run_exec(), hand @fn(@user,
 * stream, line) each line replay(1) would print of its own -- the --stats
 * N lines (tcpreplay's form), the summary at the end, --oneatatime's
 * prompt (a line of its own), --source-interface's "listening on" line --
 * as it is ended, with the stream it would have gone to (the summary goes
 * to stderr when stdout carries data: --stats-json -, -w -, --send-log -),
 * and the status line as REPLAY_STREAM_STATUS's (not with -q,
 * --no-progress, --stats, -w, -v, --threads above 1), on the thread
 * running it (with --threads, thread 0).  Log lines go to
 * replay_set_log()'s function, not here.  replay_run_summary() still has
 * the summary.  @fn NULL: none (the default; the library prints nothing).
 * -EBUSY while it runs.
 */
int replay_run_set_lines(struct replay_run *run, replay_line_fn fn, void *user);

/*
 * replay_run_exec() - run it, on the calling thread, until it ends: every
 * packet sent, replay_run_stop(), or an error.  0 when replay(1) would have
 * exited 0 or the run was stopped; -EINVAL for bad options; -EIO when the
 * run failed (an input, the interface, a packet not sent: the reason in
 * replay_run_error(); the account is still there); -EBUSY while it runs.
 * A handle may be run again.
 */
int replay_run_exec(struct replay_run *run);

/*
 * replay_run_stop() - end the run after the packet being sent (a wait for
 * the next packet's time runs out first; one for a live input's next
 * packet ends within 100 ms).  Async-signal-safe (it only
 * stores to the handle) and thread-safe; before replay_run_exec() it makes
 * that send nothing.  The run's interrupt: a signal handler may call it.
 */
int replay_run_stop(struct replay_run *run);

/*
 * replay_run_interrupt() - replay_run_stop() as signal @signo (SIGINT,
 * SIGTERM; 0 is SIGINT) would stop replay(1): the account's exit_status
 * is then 128 + @signo, as the program's.  Async-signal-safe and
 * thread-safe, as replay_run_stop(); -EINVAL for a NULL handle or a
 * @signo out of range.
 */
int replay_run_interrupt(struct replay_run *run, int signo);

/*
 * replay_run_pause_toggle() - suspend the run, or resume it if suspended,
 * as replay(1)'s SIGUSR1: what is staged is sent, then nothing until the
 * next call (it resumes within 10 ms); the schedule then goes on later
 * by the time suspended (the summary says how often and how long).  Async-signal-safe (one atomic
 * add to the handle) and thread-safe.  Before replay_run_exec() the run
 * starts suspended; each replay_run_exec() leaves the handle resumed.
 */
int replay_run_pause_toggle(struct replay_run *run);

/*
 * replay_run_set_caps() - @manage 1: each later replay_run_exec() does
 * with the capabilities what replay(1) does: before opening anything,
 * refuse a run whose options need one the calling thread lacks (naming it
 * and the setcap(8) command; -EIO) and make those granted effective; once
 * set-up is over, just before the ready callback, drop them all but what
 * the end needs (replay(1)'s rule).  Capabilities are per thread: the
 * calling thread's change, for good.  0 (the default): the library never
 * touches them.  -EBUSY while it runs.
 */
int replay_run_set_caps(struct replay_run *run, int manage);

/*
 * replay_run_stats() - the last run's account into *@st; @size is
 * sizeof(*st) as the caller knows it (a later version may add fields at
 * the end).  -ENODATA before a run.
 */
int replay_run_stats(const struct replay_run *run, struct replay_stats *st, size_t size);

/*
 * replay_run_exit_status() - replay(1)'s exit status for the last run (0
 * done, 1 failed, 2 bad options, 128 + the signal when interrupted...),
 * whatever ended it, set-up included; -1 before a run.
 */
int replay_run_exit_status(const struct replay_run *run);

/* replay_run_stats_json() - the last run's --stats-json document, or NULL before a run; the handle owns it. */
const char *replay_run_stats_json(const struct replay_run *run);

/* replay_run_summary() - the last run's summary as replay(1) prints it, or NULL; the handle owns it. */
const char *replay_run_summary(const struct replay_run *run);

/* replay_run_error() - why the last call on @run failed: one line, never NULL ("" when none). */
const char *replay_run_error(const struct replay_run *run);

/* replay_run_free() - free @run (not while it runs); NULL is fine. */
void replay_run_free(struct replay_run *run);

/*
 * replay_set_log() - pass the engine's warnings and notes (the lines
 * replay(1) prints on stderr, without its "replay: " prefix) at @max_level
 * or above in importance -- 0 errors, 1 warnings, 2 notes, 3 debugging --
 * to @fn, from whichever thread logs them.  NULL (the default): only the
 * last error is kept, for replay_run_error().  Process-wide.
 */
void replay_set_log(void (*fn)(void *ctx, int level, const char *line), void *ctx, int max_level);

/* One capture by replay-rx's engine (replay-rx(1)), on a thread of its own. */
struct replay_rx;

/*
 * replay_rx_new_argv() - a receiver of @argv as replay-rx(1) takes them
 * (-i IF, --reference TRACE, -c COUNT, --timeout, --filter...; @argv[0]
 * skipped).  A bad option: -EINVAL, the reason in *@err_out (free() it).
 */
int replay_rx_new_argv(struct replay_rx **rx, int argc, const char *const *argv, char **err_out);

/*
 * replay_rx_start() - open the capture and start receiving on a thread of
 * its own (in the calling thread's network namespace); returns once
 * frames are being captured, so a sender may begin.  -EIO when set-up
 * failed (replay_rx_error()); -EBUSY while it runs.
 */
int replay_rx_start(struct replay_rx *rx);

/*
 * replay_rx_stop() - end the capture (within 100 ms), wait for the analysis
 * and the report.  0 when there is a report (whatever it says: see
 * replay_rx_exit_status()), -EIO when the capture failed.  Thread-safe,
 * not async-signal-safe (it waits).
 */
int replay_rx_stop(struct replay_rx *rx);

/* replay_rx_wait() - as replay_rx_stop(), for a capture that ends itself (-c, --timeout, --idle, -r). */
int replay_rx_wait(struct replay_rx *rx);

/*
 * replay_rx_interrupt() - end the capture as signal @signo (SIGINT,
 * SIGTERM; 0 is SIGINT) would end replay-rx(1)'s, and return at once: the
 * capture stops within 100 ms, the analysis and the report follow, and
 * replay_rx_wait() collects them.  During set-up (inside
 * replay_rx_start()) it ends the capture before it begins, with no report
 * and exit status 128 + @signo, as the program's.  Called before
 * replay_rx_start(), it applies to the next capture.  Async-signal-safe:
 * it only stores to the handle, so a signal handler may call it; this,
 * replay_run_stop(), replay_run_interrupt() and replay_run_pause_toggle()
 * are the library's only async-signal-safe calls.
 * -EINVAL for a NULL handle or a @signo out of range.
 */
int replay_rx_interrupt(struct replay_rx *rx, int signo);

/*
 * replay_rx_set_lines() - during each capture, hand @fn(@user, stream,
 * line) each line replay-rx(1) would print of its own, as it is ended,
 * with the stream it would have gone to: the "listening on" line (stderr,
 * once the capture is open), then the report table (stdout; stderr when
 * stdout carries data; none with -q) and with --json - the JSON report
 * (stdout).  On the receiver's thread, never concurrently with itself.
 * Log lines go to replay_set_log()'s function, not here.  -w - still
 * writes its pcap stream to the process's stdout: it is data asked for by
 * that name, not a line.  @fn NULL: none (the default; the library prints
 * nothing).  Set before replay_rx_start(): -EBUSY while it runs.
 */
int replay_rx_set_lines(struct replay_rx *rx, replay_line_fn fn, void *user);

/* A receiver's counts while it captures (replay_rx_set_progress()). */
struct replay_rx_progress {
	uint64_t frames;     /* frames captured so far (those the filter let through) */
	uint64_t bytes;      /* their lengths on the wire */
	uint64_t elapsed_ns; /* since the capture began */
	int done;            /* 1: the last call, the capture over: the report's "received" */
};

/*
 * replay_rx_set_progress() - during each capture, call @fn(@user, p) with
 * the frames and bytes so far: at most once in each @interval_ns of the
 * capture (a moment missed is skipped, not made up), on the receiver's
 * thread, never per frame; then once when the capture has ended, with
 * p->done 1 and the counts the report gives.  The counts grow by whole
 * ring blocks (a block is handed over when full or after --block-timeout),
 * never go down, and with --fanout are the rings' summed.  Matching
 * against --reference is done after the capture, so no loss or duplicate
 * counts are given while it runs.  After replay_rx_start() returned 0
 * exactly one last call is made, before replay_rx_wait() or
 * replay_rx_stop() returns (a capture that failed: the counts seen last).
 * A non-zero return ends the capture as replay_rx_stop() would (the last
 * call's return is ignored); the report follows.  @interval_ns 0: only the
 * last call; @fn NULL: none; -r makes only the last.  Set before
 * replay_rx_start(): -EBUSY while it runs (also from inside a call).
 */
int replay_rx_set_progress(struct replay_rx *rx, uint64_t interval_ns,
			   int (*fn)(void *user, const struct replay_rx_progress *p), void *user);

/*
 * replay_rx_set_ready() - during each capture, call @fn(@user) once on the
 * receiver's thread when the capture is open (the socket bound, its
 * filter and ring in place, or -r's file open; outputs open) and no frame
 * read yet, before replay_rx_start() returns.  A non-zero return ends the
 * capture there as replay_rx_stop() would (the report follows).  Not
 * called when set-up failed.  @fn NULL: none.  -EBUSY while it runs.
 */
int replay_rx_set_ready(struct replay_rx *rx, int (*fn)(void *user), void *user);

/* replay_rx_exit_status() - replay-rx(1)'s exit status for the last capture (0 exact, 3 mismatch...), -1 before. */
int replay_rx_exit_status(const struct replay_rx *rx);

/* replay_rx_report_json() - the last capture's report as --json writes it, or NULL; the handle owns it. */
const char *replay_rx_report_json(const struct replay_rx *rx);

/* replay_rx_report() - the last capture's report table, or NULL; the handle owns it. */
const char *replay_rx_report(const struct replay_rx *rx);

/* replay_rx_error() - why the last call on @rx failed: one line, never NULL. */
const char *replay_rx_error(const struct replay_rx *rx);

/* replay_rx_free() - stop it if it runs, and free it; NULL is fine. */
void replay_rx_free(struct replay_rx *rx);

#ifdef __cplusplus
}
#endif

#endif
