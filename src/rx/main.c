// SPDX-License-Identifier: BSD-2-Clause
/* replay-rx: argv -> options -> the engine (engine.c); the only caller of exit codes. */
#include <signal.h>
#include <stdio.h>

#include "replay/log.h"
#include "replay/prologue.h"
#include "rx.h"

static volatile sig_atomic_t stop_signal;

static int parse(void *opts, struct prologue_flags *fl, int argc, char **argv, char *err,
		 size_t errlen)
{
	struct rx_opts *o = opts;
	int rc = rx_opts_parse(o, argc, argv, err, errlen);

	if (rc < 0)
		return rc;
	fl->help = o->help;
	fl->version = o->version;
	fl->level = o->quiet ? LOG_LVL_ERR
		    : o->verbose >= 2 ? LOG_LVL_DEBUG
		    : o->verbose ? LOG_LVL_INFO
				 : LOG_LVL_WARN;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct prologue p = {
		.prog = "replay-rx",
		.usage_status = RX_EXIT_USAGE,
		.parse = parse,
		.usage = rx_opts_usage,
	};
	struct rx_opts o;
	int rc = prologue(&p, &o, argc, argv, &stop_signal);

	/* From here a signal ends the capture, not the report. */
	return rc >= 0 ? rc : rx_engine_run(&o, &stop_signal, NULL);
}
