// SPDX-License-Identifier: BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>

#include "replay/log.h"

static const char *log_prog = "replay";
static enum log_level log_max = LOG_LVL_WARN;
static void (*log_sink)(void *ctx, enum log_level lvl, const char *line);
static void *log_sink_ctx;

void log_init(const char *prog, enum log_level max_level)
{
	log_prog = prog;
	log_max = max_level;
}

void log_set_sink(void (*fn)(void *ctx, enum log_level lvl, const char *line), void *ctx)
{
	log_sink = fn;
	log_sink_ctx = ctx;
}

void log_print_line(void *ctx, int level, const char *line)
{
	static const char *const tag[LOG_LVL_MAX] = {
		[LOG_LVL_ERR] = "",
		[LOG_LVL_WARN] = "warning: ",
		[LOG_LVL_INFO] = "",
		[LOG_LVL_DEBUG] = "debug: ",
	};

	/* One fprintf per line: lines from concurrent writers never interleave mid-line. */
	fprintf(stderr, "%s: %s%s\n", ctx ? (const char *)ctx : log_prog, level >= 0 && level < LOG_LVL_MAX ? tag[level] : "", line);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (lvl > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log_sink) {
		log_sink(log_sink_ctx, lvl, line);
		return;
	}
	log_print_line(NULL, (int)lvl, line);
}
