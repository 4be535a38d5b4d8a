// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz both programs' option parsers: the input, split at NUL bytes, is the
 * argument vector after the program name, given to replay's opts_parse()
 * and to replay-rx's rx_opts_parse().  Each must accept or refuse with a
 * reason -- never crash, read out of bounds, overflow (UBSan) or
 * exit (the parsers return every error; none calls exit()).  The same
 * bytes are also a config file read by replay's --load-opts, then written
 * back by --save-opts and read again: what is saved must load.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The input as a config file: loaded, saved, loaded again. */
static void config_file(const uint8_t *data, size_t size, struct opts *o)
{
	static char cfg[64], saved[64];
	char a0[] = "replay", a1[] = "--load-opts", a3[] = "-w", a4[] = "o.pcap", a5[] = "a.pcap";
	char *argv[7] = { a0, a1, cfg, a3, a4, a5, NULL };
	char err[512];
	FILE *f;
	int rc;

	if (!cfg[0]) {
		int fd = open("/dev/null", O_RDONLY);

		/* An argument naming /dev/stdin must not wait for a terminal. */
		if (fd >= 0 && fd != 0) {
			dup2(fd, 0);
			close(fd);
		}
		snprintf(cfg, sizeof(cfg), "/tmp/fuzz_opts.%d.cfg", (int)getpid());
		snprintf(saved, sizeof(saved), "/tmp/fuzz_opts.%d.saved", (int)getpid());
	}
	f = fopen(cfg, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	err[0] = '\0';
	rc = opts_parse(o, 6, argv, err, sizeof(err));
	if (rc < 0 && !err[0])
		__builtin_trap();
	if (rc == 0) {
		/* Saved, then loaded: the same options must parse again. */
		char s1[] = "--save-opts", s2[] = "x.cfg";
		char *sv[9] = { a0, a1, cfg, a3, a4, s1, s2, a5, NULL };

		if (opts_parse(o, 8, sv, err, sizeof(err)) < 0)
			__builtin_trap();
		f = fopen(saved, "wb");
		if (!f)
			abort();
		rc = opts_save(f, err, sizeof(err));
		if (fclose(f))
			abort();
		if (rc >= 0) {
			argv[2] = saved;
			if (opts_parse(o, 6, argv, err, sizeof(err)) < 0) {
				fprintf(stderr, "saved options do not load: %s\n", err);
				__builtin_trap();
			}
		}
		unlink(saved);
	}
	unlink(cfg);
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

	config_file(data, size, o);

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
