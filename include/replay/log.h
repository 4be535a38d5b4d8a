/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging for the programs' top levels (main.c, replay.c, rx/).  Modules never
 * print: they return -errno and keep the detail in their object; the caller
 * that decides logs it once, through these functions.
 */
#ifndef REPLAY_LOG_H
#define REPLAY_LOG_H

#include "compiler.h"

enum log_level {
	LOG_LVL_ERR,   /* "prog: what: why", always shown */
	LOG_LVL_WARN,  /* "prog: warning: ...", hidden by --quiet */
	LOG_LVL_INFO,  /* progress and choices, shown with -v */
	LOG_LVL_DEBUG, /* -vv */
	LOG_LVL_MAX
};

/*
 * log_init() - set the program name prefixed to every line (not copied; must
 * outlive the program, e.g. a string literal) and the most verbose level shown.
 */
void log_init(const char *prog, enum log_level max_level);

/* log_level_enabled() - true when messages of @lvl would be printed. */
int log_level_enabled(enum log_level lvl);

/* log_msg() - print one line to stderr; a trailing newline is added. */
void log_msg(enum log_level lvl, const char *fmt, ...) PRINTF_LIKE(2, 3);

#define log_err(...)   log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
