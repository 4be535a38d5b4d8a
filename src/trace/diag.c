// SPDX-License-Identifier: BSD-2-Clause
/*
 * The readers' error and warning texts (trace_int.h): "NAME: record N at
 * offset 0xOFF: why", kept in the struct trace for trace_strerror() and
 * trace_warnings().  Below everything else in src/trace/: the formats, the
 * source and the link-type conversion report through it, and it calls none
 * of them.
 */
#include <stdarg.h>
#include <stdio.h>

#include "trace_int.h"

static void vformat(char *buf, size_t len, const char *prefix, const char *fmt, va_list ap)
	PRINTF_LIKE(4, 0);
static void vformat(char *buf, size_t len, const char *prefix, const char *fmt, va_list ap)
{
	int n = snprintf(buf, len, "%s", prefix);

	if (n < 0 || (size_t)n >= len)
		return;
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

int trace_err(struct trace *t, int err, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: ", t->name);
	va_start(ap, fmt);
	vformat(t->err, sizeof(t->err), prefix, fmt, ap);
	va_end(ap);
	return err;
}

int trace_off_err(struct trace *t, int err, uint64_t off, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: offset 0x%llx: ", t->name, (unsigned long long)off);
	va_start(ap, fmt);
	vformat(t->err, sizeof(t->err), prefix, fmt, ap);
	va_end(ap);
	return err;
}

int trace_rec_err(struct trace *t, int err, uint64_t recno, uint64_t off, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: record %llu at offset 0x%llx: ", t->name,
		 (unsigned long long)recno, (unsigned long long)off);
	va_start(ap, fmt);
	vformat(t->err, sizeof(t->err), prefix, fmt, ap);
	va_end(ap);
	return err;
}

void trace_rec_warn(struct trace *t, uint64_t recno, uint64_t off, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	if (t->nwarn++)
		return;
	snprintf(prefix, sizeof(prefix), "%s: record %llu at offset 0x%llx: ", t->name,
		 (unsigned long long)recno, (unsigned long long)off);
	va_start(ap, fmt);
	vformat(t->warn, sizeof(t->warn), prefix, fmt, ap);
	va_end(ap);
}

void trace_off_warn(struct trace *t, uint64_t off, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	if (t->nwarn++)
		return;
	snprintf(prefix, sizeof(prefix), "%s: offset 0x%llx: ", t->name, (unsigned long long)off);
	va_start(ap, fmt);
	vformat(t->warn, sizeof(t->warn), prefix, fmt, ap);
	va_end(ap);
}
