// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bytes of a stream as they are stored, before any decompression: the
 * ones the codec probe already read, a memory stream in its test-sized
 * chunks, or read() on the descriptor, waiting the way the caller's
 * cfg.stop and cfg.nonblock ask.  Below both the plain reader (source.c)
 * and the decompressors (decomp.c).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

/*
 * Wait until the stream has input (or its end), unless the caller's stop
 * flag is up: 0, or -EINTR to stop; with a record marked (cfg.nonblock),
 * -EAGAIN at once instead of a wait.  Input at hand costs one poll().
 * SIGINT and SIGTERM are blocked from the flag's check until ppoll()
 * unblocks them atomically, so a signal that comes just before the wait
 * cannot be lost in a read() that a silent pipe never ends.
 */
static int stream_wait(struct trace *t)
{
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
	sigset_t block, old;
	int rc = 0;

	if ((!t->cfg.stop && t->nb_mark == SIZE_MAX) || t->smem)
		return 0;
	if (poll(&pfd, 1, 0) > 0)
		return 0;
	if (t->nb_mark != SIZE_MAX)
		return -EAGAIN;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0)
		return 0;
	while (!*t->cfg.stop) {
		if (ppoll(&pfd, 1, NULL, &old) >= 0 || errno != EINTR)
			break;
	}
	if (*t->cfg.stop)
		rc = -EINTR;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

ssize_t trace_src_raw_read(struct trace *t, uint8_t *buf, size_t len)
{
	ssize_t n;

	if (t->sniff_pos < t->sniff_len) {
		/* A plain stream's first bytes, read while looking for a codec's magic. */
		size_t k = MIN(len, t->sniff_len - t->sniff_pos);

		memcpy(buf, t->sniff + t->sniff_pos, k);
		t->sniff_pos += k;
		return (ssize_t)k;
	}
	if (t->smem) {
		size_t chunk = t->cfg.stream_chunk_bytes ? t->cfg.stream_chunk_bytes : len;
		size_t k = MIN(MIN(len, chunk), t->smem_len - t->smem_pos);

		memcpy(buf, t->smem + t->smem_pos, k);
		t->smem_pos += k;
		return (ssize_t)k;
	}
	for (;;) {
		int rc = stream_wait(t);

		if (rc < 0)
			return rc;
		n = read(t->fd, buf, len);
		/* Another signal than the caller's: not a reason to stop. */
		if (n < 0 && errno == EINTR && t->cfg.stop && !*t->cfg.stop)
			continue;
		return n < 0 ? -errno : n;
	}
}
