// SPDX-License-Identifier: BSD-2-Clause
/* -v/--verbose: the pcap stream to tcpdump (see replay/decode.h). */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/compiler.h"
#include "replay/decode.h"
#include "replay/log.h"

extern char **environ;

#define DECODE_ARGS_MAX 64

struct decode {
	int fd;          /* the pipe's write end; -1 once decoding stopped */
	pid_t pid;       /* tcpdump, or 0 (decode_open_fd()) */
	int stopped;     /* a write failed: decoding stopped */
	uint8_t buf[DECODE_REC_BYTES + PKT_FRAME_MAX_BYTES]; /* one record, header and bytes */
};

int decode_split_args(char *buf, char **argv, int max)
{
	int n = 0;

	for (char *s = strtok(buf, " \t\n"); s; s = strtok(NULL, " \t\n")) {
		if (n >= max - 1)
			return -1;
		argv[n++] = s;
	}
	argv[n] = NULL;
	return n;
}

/* Write @n bytes whole: a signal or a full pipe may cut a write() short. */
static int write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static __attribute__((noinline, cold)) void stop(struct decode *d, int rc)
{
	if (rc == -EPIPE)
		log_warn("-v: %s stopped reading (it exited?): decoding stops, sending goes on", DECODE_PROG);
	else
		log_warn("-v: cannot write to %s: %s: decoding stops, sending goes on", DECODE_PROG, strerror(-rc));
	d->stopped = 1;
	close(d->fd);
	d->fd = -1;
}

static int put_header(struct decode *d)
{
	uint32_t h[6] = {
		htole32(DECODE_MAGIC_NSEC),
		htole32(2u | 4u << 16), /* version 2.4 */
		0,                      /* thiszone */
		0,                      /* sigfigs */
		htole32(PKT_FRAME_MAX_BYTES),
		htole32(LINKTYPE_ETHERNET),
	};

	return write_all(d->fd, (const uint8_t *)h, sizeof(h));
}

static struct decode *alloc_decode(int fd)
{
	struct decode *d = malloc(sizeof(*d));

	if (d) {
		d->fd = fd;
		d->pid = 0;
		d->stopped = 0;
	}
	return d;
}

int decode_open_fd(struct decode **dp, int fd, char *err, size_t errlen)
{
	struct decode *d = alloc_decode(fd);
	int rc;

	*dp = NULL;
	if (!d) {
		close(fd);
		snprintf(err, errlen, "-v: out of memory");
		return -ENOMEM;
	}
	rc = put_header(d);
	if (rc < 0) {
		snprintf(err, errlen, "-v: cannot write the pcap header: %s", strerror(-rc));
		close(fd);
		free(d);
		return rc;
	}
	*dp = d;
	return 0;
}

int decode_start(struct decode **dp, const char *args, char *err, size_t errlen)
{
	char *argv[DECODE_ARGS_MAX + 5], *copy = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dflt;
	struct decode *d;
	int p[2], n = 0, rc;
	pid_t pid;

	*dp = NULL;
	argv[n++] = DECODE_PROG;
	if (args) {
		copy = strdup(args);
		if (!copy) {
			snprintf(err, errlen, "-v: out of memory");
			return -ENOMEM;
		}
		rc = decode_split_args(copy, argv + n, DECODE_ARGS_MAX + 1);
		if (rc < 0) {
			snprintf(err, errlen, "-A: more than %d arguments for %s", DECODE_ARGS_MAX, DECODE_PROG);
			free(copy);
			return -E2BIG;
		}
		n += rc;
	}
	argv[n++] = "-n";
	argv[n++] = "-l";
	argv[n++] = "-r";
	argv[n++] = "-";
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0) {
		rc = -errno;
		snprintf(err, errlen, "-v: cannot make a pipe for %s: %s", DECODE_PROG, strerror(errno));
		free(copy);
		return rc;
	}
	/* What the child sees: the pipe as stdin, replay's stdout, default signals, none blocked. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], STDIN_FILENO);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
	/* Nothing else of replay's (sockets, the -w output, a capture's pipe) stays open in tcpdump. */
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
#endif
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dflt);
	/*
	 * A process group of its own: a Ctrl-C at the terminal stops replay,
	 * which closes the pipe, and tcpdump then prints what it still holds
	 * and ends (decode_finish()), rather than dying mid-stream beside it.
	 */
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	fflush(stdout); /* what replay printed comes first */
	rc = posix_spawnp(&pid, DECODE_PROG, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(copy);
	close(p[0]);
	if (rc) {
		close(p[1]);
		if (rc == ENOENT)
			snprintf(err, errlen, "-v decodes with %s, which is not on PATH: install tcpdump (or drop -v)",
				 DECODE_PROG);
		else
			snprintf(err, errlen, "-v: cannot start %s: %s", DECODE_PROG, strerror(rc));
		return -rc;
	}
	d = alloc_decode(p[1]);
	if (!d) {
		close(p[1]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "-v: out of memory");
		return -ENOMEM;
	}
	d->pid = pid;
	rc = put_header(d);
	if (rc < 0) {
		/* tcpdump died at once (bad -A arguments): its own message is on stderr. */
		char why[256];

		close(d->fd);
		d->fd = -1;
		decode_finish(d, why, sizeof(why));
		snprintf(err, errlen, "-v: %s did not start reading (%s)", DECODE_PROG,
			 rc == -EPIPE ? why : strerror(-rc));
		return rc;
	}
	*dp = d;
	return 0;
}

void decode_pkt(struct decode *d, const struct pkt *p)
{
	uint32_t rec[4];
	uint32_t n = p->caplen < PKT_FRAME_MAX_BYTES ? p->caplen : PKT_FRAME_MAX_BYTES;
	int rc;

	if (d->stopped)
		return;
	rec[0] = htole32((uint32_t)(p->ts_ns / NSEC_PER_SEC));
	rec[1] = htole32((uint32_t)(p->ts_ns % NSEC_PER_SEC));
	rec[2] = htole32(n);
	rec[3] = htole32(p->wirelen > n ? p->wirelen : n);
	memcpy(d->buf, rec, sizeof(rec));
	memcpy(d->buf + sizeof(rec), p->data, n);
	rc = write_all(d->fd, d->buf, sizeof(rec) + n);
	if (rc < 0)
		stop(d, rc);
}

int decode_stopped(const struct decode *d)
{
	return d->stopped;
}

int decode_finish(struct decode *d, char *err, size_t errlen)
{
	int status = 0, rc = 0;
	bool termed = false;

	if (!d)
		return 0;
	if (d->fd >= 0)
		close(d->fd); /* tcpdump reads the end of the stream and exits */
	while (d->pid > 0 && waitpid(d->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 0;
			break;
		}
		/* A signal while tcpdump finishes: it is asked to stop too, and waited for. */
		if (!termed)
			kill(d->pid, SIGTERM);
		termed = true;
	}
	if (d->pid > 0 && WIFEXITED(status) && WEXITSTATUS(status)) {
		snprintf(err, errlen, "-v: %s exited with status %d", DECODE_PROG, WEXITSTATUS(status));
		rc = -1;
	} else if (d->pid > 0 && WIFSIGNALED(status) && !(termed && WTERMSIG(status) == SIGTERM)) {
		snprintf(err, errlen, "-v: %s was killed by signal %d (%s)", DECODE_PROG, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		rc = -1;
	}
	free(d);
	return rc;
}
