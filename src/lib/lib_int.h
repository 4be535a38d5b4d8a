/* SPDX-License-Identifier: BSD-2-Clause */
/* What libreplay's files share; nothing outside src/lib/ includes this. */
#ifndef REPLAY_LIB_INT_H
#define REPLAY_LIB_INT_H

#include <stddef.h>

#include "replay/log.h"

/*
 * lib_log_begin() - from here until lib_log_end(), the engine's error lines
 * go into @err (the last one kept), and what replay_set_log() asked for to
 * its function; nothing is printed.  The caller holds the run lock.
 */
void lib_log_begin(char *err, size_t len);
void lib_log_end(void);

#endif
