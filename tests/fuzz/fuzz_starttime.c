// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz --start-at's time parser (sched_time_parse(), sched_parse_instant()):
 * the input, up to its first NUL, is the option's argument.
 *
 * Checks: nothing outside its buffer (ASan/UBSan: no overflow in the
 * calendar or the nanosecond count); a refusal says why and writes no
 * result; an accepted time formats back (sched_time_format()) to a string
 * that parses to the same instant; an RFC 3339 time and the same instant
 * as @SECONDS.NANOS agree; the option parser's error names the value.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256], back[64], epoch[64], err[512];
	struct sched_instant in = { 0 };
	const char *why = NULL;
	uint64_t ns = 7, again = 9;
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

	memcpy(s, data, n);
	s[n] = '\0';
	if (sched_time_parse(s, &ns, &why) < 0) {
		if (!why || !*why || ns != 7)
			abort();
		if (sched_parse_instant(&in, s, err, sizeof(err)) != -EINVAL || in.set)
			abort();
		/* The value is named, quoted (err is long enough for any 255-byte input). */
		if (strncmp(err, "'", 1) || strncmp(err + 1, s, strlen(s)) || !strchr(err, ':'))
			abort();
		return 0;
	}
	if (why)
		abort();
	if (sched_parse_instant(&in, s, err, sizeof(err)) != 0 || !in.set || in.ns != ns)
		abort();
	sched_time_format(ns, back, sizeof(back));
	if (sched_time_parse(back, &again, &why) != 0 || again != ns)
		abort();
	snprintf(epoch, sizeof(epoch), "@%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
	/* The @ form holds a little less than 64 bits of ns: only where it does. */
	if (ns / 1000000000u < 18446744070u && (sched_time_parse(epoch, &again, &why) != 0 || again != ns))
		abort();
	return 0;
}
