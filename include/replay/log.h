/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging for the programs' top levels (main.c, replay.c, rx/).  Modules never
 * print: they return -errno and hand the detail up by one of two conventions,
 * and the caller that decides logs it once, through these functions.
 *
 * Error conventions:
 *  - Long-lived objects hold their own text.  A function on a trace, an edit
 *    chain, a transmit method returns -errno and keeps the reason in the
 *    object, read with trace_strerror(), edit_chain_strerror(),
 *    tx_strerror().  Constructors set the object pointer even on failure
 *    (unless memory ran out) so the reason can be read before closing it.
 *  - One-shot calls write into the caller's buffer.  A function that leaves
 *    no object behind (option parsing, opening or committing a sidecar or a
 *    send log) takes `char *err, size_t errlen` and formats the reason
 *    there, one line without the program name, returning -errno.
 */
#ifndef REPLAY_LOG_H
#define REPLAY_LOG_H

#include "compiler.h"

enum log_level {
	LOG_LVL_ERR,   /* "prog: what: why", always shown */
	LOG_LVL_WARN,  /* "prog: warning: ...", hidden by --quiet */
	LOG_LVL_INFO,  /* progress and choices, shown with --debug */
	LOG_LVL_DEBUG, /* --debug --debug */
	LOG_LVL_MAX
};

/*
 * log_init() - set the program name prefixed to every line (not copied; must
 * outlive the program, e.g. a string literal) and the most verbose level shown.
 */
void log_init(const char *prog, enum log_level max_level);

/*
 * log_set_sink() - send every line shown to @fn (with @ctx, its level and
 * the text without prefix or newline) instead of stderr; NULL: stderr
 * again.  The shared library's default collects the last error.  @fn may be
 * called from any of the run's threads at once.
 */
void log_set_sink(void (*fn)(void *ctx, enum log_level lvl, const char *line), void *ctx);

/*
 * log_print_line() - @line as log_msg() prints it with no sink: the program's
 * name (@ctx, a string, or log_init()'s when NULL), the level's tag, a
 * newline, to stderr.  Shaped as a sink, for a program that takes its
 * library's log lines back (replay_set_log(); the library sets its own name).
 */
void log_print_line(void *ctx, int level, const char *line);

/* log_msg() - print one line to stderr (or give it to the sink); a trailing newline is added. */
void log_msg(enum log_level lvl, const char *fmt, ...) PRINTF_LIKE(2, 3);

#define log_err(...)   log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
