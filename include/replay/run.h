/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef REPLAY_RUN_H
#define REPLAY_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct opts;

#include "replay/opts.h"
#include "replay/sched.h"
#include "replay/tx.h"

/* Exit statuses, documented in replay(1). */
enum {
	EXIT_DONE = 0,    /* every packet sent */
	EXIT_FAIL = 1,    /* a runtime or input error, or a packet failed */
	EXIT_USAGE = 2,   /* bad options */
};

/*
 * replay_main() - run the replay @o describes: open and check every input
 * and the output before sending anything, send, drain, report.  *@stop is set
 * to the signal number by a SIGINT/SIGTERM handler; the run then ends after
 * the current packet.  Returns the process exit status.
 */
int replay_main(const struct opts *o, volatile sig_atomic_t *stop);

/*
 * replay_main_suspendable() - replay_main(), suspended and resumed by
 * *@suspend, the count of SIGUSR1s a handler caught: odd, nothing more is
 * sent (the run sleeps) until it is even again or *@stop is set; the
 * schedule then goes on from where it was, later by the time suspended,
 * which the summary and --stats-json report.
 */
int replay_main_suspendable(const struct opts *o, volatile sig_atomic_t *stop,
			    volatile sig_atomic_t *suspend);

/*
 * replay_check_paths() - before anything is written: may no output of @o
 * (-w, --stats-json, --send-log, --save-opts, prep's -o) overwrite one of
 * its inputs (the traces, the --load-opts files, the -c cache, the --prep
 * sidecar, the --impair traces) or another output?  Compared by device and
 * inode after following symbolic links (replay/outfile.h).  0, or -EEXIST
 * (-ENOMEM) with one line in @err.
 */
int replay_check_paths(const struct opts *o, char *err, size_t errlen);

/*
 * prep_main() - "replay prep TRACE -o OUT [edit options]": write the prep
 * sidecar for @o->files[0].  Returns the process exit status.
 */
int prep_main(const struct opts *o);

struct split;

/*
 * split_learn_trace() - one pass over the trace @path before sending (a reader of
 * its own): with @sp, pass one of the --split modes that need it (the
 * caller ends it with split_learn_done()); always the packet count into
 * *@n.  0, or -1 after logging why.  src/run/route.c; replay prep uses it too.
 */
int split_learn_trace(const char *path, struct split *sp, uint64_t *n);

/*
 * impair_main() - "replay impair convert IN OUT" (src/cli/cmd_impair.c): @argv
 * starts at "impair".  Returns the exit status.
 */
int impair_main(int argc, char **argv);

/*
 * replay_info() - --info: describe each of @o's files on standard output.
 * Returns the exit status (EXIT_FAIL if any file could not be read whole).
 */
int replay_info(const struct opts *o);

struct stats;
struct progress_in;

/*
 * What tests and the shared library substitute: a mock method, a fake
 * clock, where the summary goes, a look at the account.  NULL members mean
 * the real ones.  A run with hooks touches the capabilities only with caps.
 */
struct replay_hooks {
	const struct tx_ops *tx_ops; /* used instead of the method the options name */
	struct clock *clock;         /* used instead of the monotonic (or virtual) clock */
	FILE *summary;               /* the summary and progress lines, instead of stdout (or stderr) */
	FILE *out, *err;             /* with summary: those lines instead into the one stdout or stderr would have been */
	FILE *status;                /* with out and err: the status line, each a whole line, "" erasing it */
	volatile sig_atomic_t *suspend; /* as replay_main_suspendable()'s, or NULL */
	bool caps;                   /* check and drop the capabilities as replay(1) does */
	/* After the report, before the run is taken down: the account, as the summary and --stats-json had it. */
	void (*done)(void *ctx, const struct stats *st, int status);
	/*
	 * Every progress_ns of run clock from the start (slots missed while a
	 * packet was sent are skipped): the counts so far, on the loop's
	 * thread, between packets.  With --threads, on thread 0, the sum over
	 * the threads (threads_progress_hook()).  NULL or progress_ns 0: none.
	 */
	void (*progress)(void *ctx, const struct progress_in *in);
	uint64_t progress_ns;
	/*
	 * Set-up is over, on the run's thread: every input, socket and output
	 * open, the first packet not sent -- where replay(1) drops its
	 * capabilities.  Non-zero: the run sends nothing, as if stopped.
	 */
	int (*ready)(void *ctx);
	void *ctx;                   /* done()'s, progress()'s and ready()'s */
};

/* replay_main_hooked() - replay_main() with @hooks (which may be NULL). */
int replay_main_hooked(const struct opts *o, volatile sig_atomic_t *stop,
		       const struct replay_hooks *hooks);

#endif
