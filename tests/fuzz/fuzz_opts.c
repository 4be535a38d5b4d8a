// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz both programs' option parsers: the input, split at NUL bytes, is the
 * argument vector after the program name, given to replay's opts_parse()
 * and to replay-rx's rx_opts_parse().  Each must accept or refuse with a
 * reason -- never crash, read out of bounds, overflow (UBSan) or
 * exit (the parsers return every error; none calls exit()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/opts.h"
#include "rx.h"

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Split @buf (@len bytes, NUL at buf[len]) into argv after @prog; returns argc. */
static int split(char *buf, size_t len, char *prog, char **argv)
{
	int argc = 0;

	argv[argc++] = prog;
	for (size_t i = 0; i <= len && argc < ARGS_MAX; i++) {
		argv[argc++] = buf + i;
		i += strlen(buf + i);
	}
	argv[argc] = NULL;
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[ARGS_MAX + 1], err[512];
	char prog_replay[] = "replay", prog_rx[] = "replay-rx";
	struct rx_opts ro;
	struct opts *o;
	int argc, rc;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	o = malloc(sizeof(*o));
	if (!buf || !o)
		goto out;
	/* replay: the parse may permute argv, so each program gets a fresh split. */
	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = split(buf, size, prog_replay, argv);
	err[0] = '\0';
	rc = opts_parse(o, argc, argv, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap(); /* every refusal says why */
	if (rc == 0 && !o->help && !o->version) {
		/* What the summary prints must name every value parsed. */
		if (!opt_enum_name(tx_method_choices, (int)o->method)[0] ||
		    !strcmp(sched_timer_name(o->sched.timer), "?") ||
		    !strcmp(sched_late_name(o->sched.late), "?"))
			__builtin_trap();
		for (unsigned i = 0; i < o->nwarn; i++)
			if (!o->warn[i][0])
				__builtin_trap();
	}

	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = split(buf, size, prog_rx, argv);
	err[0] = '\0';
	rc = rx_opts_parse(&ro, argc, argv, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap();
out:
	free(buf);
	free(o);
	return 0;
}
