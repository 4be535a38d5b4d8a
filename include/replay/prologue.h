/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What main() of replay and of replay-rx do before their work, in one
 * place: prologue() takes argv to parsed options, answers --help and
 * --version, runs the program's own commands that end it, sets the log
 * level, and only then lets SIGINT and SIGTERM stop the work instead of
 * ending the process.
 */
#ifndef REPLAY_PROLOGUE_H
#define REPLAY_PROLOGUE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "log.h"

/* What the parsed options ask of the prologue. */
struct prologue_flags {
	bool help, version;    /* --help, --version */
	enum log_level level;  /* the most verbose log level to show (-q, -v, --debug) */
};

/* One program's part. */
struct prologue {
	const char *prog;      /* "replay": the log's prefix and --version's first word */
	int usage_status;      /* the exit status after a bad option */
	/*
	 * A command of its own, recognised in @argv before the options are
	 * parsed ("replay impair ..."): -1 to go on, or its exit status.  May be NULL.
	 */
	int (*subcommand)(int argc, char **argv);
	/* argv -> *@opts: 0, or -errno with one line in @err; fills *@fl from the options. */
	int (*parse)(void *opts, struct prologue_flags *fl, int argc, char **argv, char *err,
		     size_t errlen);
	void (*usage)(FILE *f); /* --help's text */
	/*
	 * The program's commands that end it (replay's --listnics, --info...),
	 * run at the options' log level and before the signals are caught, so
	 * that SIGINT still ends them: -1 to go on, or the exit status.  May be NULL.
	 */
	int (*commands)(void *opts);
};

/*
 * prologue() - the start of main(), in this order: SIGINT and SIGTERM back
 * to their default action (a non-interactive shell starts a background job
 * with SIGINT ignored, and that is inherited: a run that never ends by
 * itself could not be interrupted); log as @p->prog at the warning level;
 * @p->subcommand; @p->parse into @opts (a bad option: its line, then
 * @p->usage_status); --help, --version (printed on stdout, then 0); the log
 * level asked for; @p->commands; finally SIGINT and SIGTERM set *@stop to
 * the signal's number, without SA_RESTART so that a sleep or a poll() is
 * cut short, and SIGPIPE is ignored (a closed output pipe is a write error
 * to report, not a silent death).  Returns -1 when the program is to run,
 * or the exit status main() returns.
 */
int prologue(const struct prologue *p, void *opts, int argc, char **argv,
	     volatile sig_atomic_t *stop);

/*
 * prologue_catch_signals() - prologue()'s last step alone, for a command
 * that reaches it later (replay bridge, live, serve): SIGINT and SIGTERM set
 * *@stop to the signal's number, without SA_RESTART, and SIGPIPE is ignored.
 */
void prologue_catch_signals(volatile sig_atomic_t *stop);

/*
 * prologue_catch_suspend() - SIGUSR1 adds one to *@toggles, without
 * SA_RESTART (a sleep is cut short): tcpreplay's suspend and resume, an odd
 * count meaning suspended.  The handler only counts; the run decides.
 */
void prologue_catch_suspend(volatile sig_atomic_t *toggles);

#endif
