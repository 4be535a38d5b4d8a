/* SPDX-License-Identifier: BSD-2-Clause */
/* What libreplay's files share; nothing outside src/lib/ includes this. */
#ifndef REPLAY_LIB_INT_H
#define REPLAY_LIB_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include "libreplay.h"
#include "replay/log.h"

#include <pthread.h>

/* The option parsers use getopt's process-wide state: one parse at a time. */
extern pthread_mutex_t lib_parse_mu;

/*
 * lib_log_begin() - from here until lib_log_end() on the same thread, the
 * engine's error lines logged on this thread go into @err (the last one
 * kept), and what replay_set_log() asked for to its function; nothing is
 * printed.  With @others, also the lines of threads without a buffer of
 * their own (a replay's --threads workers).
 */
void lib_log_begin(char *err, size_t len, bool others);
void lib_log_end(void);

/*
 * lib_lines_open() - a stream whose every line (without its newline) goes
 * to @fn as @stream's, when it is ended (at the latest when closed); also
 * copied to @tee if not NULL.  NULL when memory ran out.
 */
FILE *lib_lines_open(replay_line_fn fn, void *user, enum replay_stream stream, FILE *tee);

#endif
