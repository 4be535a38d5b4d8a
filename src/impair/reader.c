// SPDX-License-Identifier: BSD-2-Clause
/*
 * Streaming reader of impairment traces, binary or text (replay/impair.h):
 * a fixed 64 KiB window refilled by read(), so memory stays bounded for a
 * trace of any length; a seek back to the first action for a repeat.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "impair_int.h"

#define WIN 65536

struct impair_reader {
	int fd;
	enum impair_fmt fmt;
	char *path;
	size_t pos, len;   /* unread bytes are buf[pos..len) */
	uint64_t off;      /* file offset of buf[pos] */
	uint64_t first;    /* file offset of the first action */
	uint64_t line;     /* text: number of the line last read */
	uint64_t nact;     /* actions read in this pass */
	bool eof;
	const volatile sig_atomic_t *stop; /* impair_reader_set_stop(); NULL: none */
	char err[512];
	uint8_t buf[WIN];
	char linebuf[IMPAIR_LINE_MAX + 1];
};

static int rd_fail(struct impair_reader *r, int rc, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int rd_fail(struct impair_reader *r, int rc, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "%s: %s", r->path ? r->path : "impairment trace", msg);
	return rc;
}

/* Make at least @need bytes available unless the file ends first; returns what is available. */
static ssize_t fill(struct impair_reader *r, size_t need)
{
	while (r->len - r->pos < need && !r->eof) {
		ssize_t n;

		/*
		 * Once a window (64 KiB), from the second on: a trace of any
		 * length, even one of comments only, stops; one that fits a
		 * window is read whole (it takes no time).
		 */
		if (r->stop && *r->stop && r->off >= WIN)
			return rd_fail(r, -EINTR, "interrupted while it was read, at offset 0x%" PRIx64,
				       r->off + (r->len - r->pos));
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		}
		n = read(r->fd, r->buf + r->len, WIN - r->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return rd_fail(r, -errno, "read: %s", strerror(errno));
		}
		if (!n)
			r->eof = true;
		r->len += (size_t)n;
	}
	return (ssize_t)(r->len - r->pos);
}

static int start(struct impair_reader *r)
{
	ssize_t n;

	r->pos = r->len = 0;
	r->eof = false;
	r->nact = 0;
	r->line = 0;
	if (lseek(r->fd, 0, SEEK_SET) < 0)
		return rd_fail(r, -errno, "cannot seek: %s", strerror(errno));
	r->off = 0;
	n = fill(r, IMPAIR_HDR_LEN);
	if (n < 0)
		return (int)n;
	if (n < 4 || memcmp(r->buf, IMPAIR_MAGIC, 4)) {
		r->fmt = IMPAIR_FMT_TEXT;
		r->first = 0;
		return 0;
	}
	const uint8_t *h = r->buf;

	r->fmt = IMPAIR_FMT_BIN;
	if (n < IMPAIR_HDR_LEN)
		return rd_fail(r, -EBADMSG, "binary header cut short (%zd of %d bytes)", n,
			       IMPAIR_HDR_LEN);
	if ((h[4] | h[5] << 8) != IMPAIR_VERSION)
		return rd_fail(r, -EBADMSG, "format version %u is not supported (only %d)",
			       h[4] | h[5] << 8, IMPAIR_VERSION);
	if ((h[6] | h[7] << 8) != 4)
		return rd_fail(r, -EBADMSG, "word size %u is not supported (only 4)", h[6] | h[7] << 8);
	for (int i = 8; i < IMPAIR_HDR_LEN; i++)
		if (h[i])
			return rd_fail(r, -EBADMSG, "header byte %d is %u, not 0 (flags and reserved)",
				       i, h[i]);
	r->pos = IMPAIR_HDR_LEN;
	r->off = r->first = IMPAIR_HDR_LEN;
	return 0;
}

int impair_reader_open(struct impair_reader **rp, const char *path)
{
	struct impair_reader *r = calloc(1, sizeof(*r));
	struct stat st;

	*rp = r;
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->path = strdup(path);
	if (!r->path)
		return rd_fail(r, -ENOMEM, "out of memory");
	/* Non-blocking: a FIFO with no writer would hold open() forever; it is refused below. */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (r->fd < 0)
		return rd_fail(r, -errno, "%s", strerror(errno));
	if (fstat(r->fd, &st) < 0)
		return rd_fail(r, -errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return rd_fail(r, -EINVAL, "not a regular file (a trace is read again for a repeat)");
	if (fcntl(r->fd, F_SETFL, 0) < 0)
		return rd_fail(r, -errno, "%s", strerror(errno));
	return start(r);
}

void impair_reader_set_stop(struct impair_reader *r, const volatile sig_atomic_t *stop)
{
	r->stop = stop;
}

int impair_reader_rewind(struct impair_reader *r)
{
	return start(r);
}

/* One 32-bit word: 1, 0 at a clean end (if @end_ok), <0 on a cut-short word. */
static int get_word(struct impair_reader *r, uint32_t *w, bool end_ok, uint64_t act_off)
{
	ssize_t n = fill(r, 4);
	const uint8_t *b = r->buf + r->pos;

	if (n < 0)
		return (int)n;
	if (n < 4) {
		if (!n && end_ok)
			return 0;
		return rd_fail(r, -EBADMSG, "action %" PRIu64 " at offset 0x%" PRIx64
			       " cut short by the end of the file", r->nact + 1, act_off);
	}
	*w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	r->pos += 4;
	r->off += 4;
	return 1;
}

static int bad(struct impair_reader *r, uint64_t act_off, const char *why)
{
	return rd_fail(r, -EBADMSG, "action %" PRIu64 " at offset 0x%" PRIx64 ": %s", r->nact + 1,
		       act_off, why);
}

static int get_delay(struct impair_reader *r, uint32_t w, uint64_t *ns, uint64_t act_off)
{
	static const uint64_t mul[] = { 1, 1000, 1000000 };
	uint32_t unit = w >> IMPAIR_W_UNIT_SHIFT & 3, v = w & IMPAIR_W_VALUE_MASK;
	int rc;

	if (unit == IMPAIR_W_UNIT_WIDE) {
		uint32_t lo, hi;

		if (v)
			return bad(r, act_off, "a wide delay with a value in its first word");
		if ((rc = get_word(r, &lo, false, act_off)) < 0 ||
		    (rc = get_word(r, &hi, false, act_off)) < 0)
			return rc;
		*ns = (uint64_t)hi << 32 | lo;
	} else {
		*ns = v * mul[unit];
	}
	if (*ns > IMPAIR_DELAY_MAX)
		return bad(r, act_off, "delay above 3600s");
	return 0;
}

static int next_bin(struct impair_reader *r, struct impair_action *a)
{
	uint64_t act_off = r->off;
	uint32_t w, ext;
	int rc = get_word(r, &w, true, act_off);

	if (rc <= 0)
		return rc;
	if (w & IMPAIR_W_RESERVED)
		return bad(r, act_off, "reserved bits 30..31 set");
	if (w & IMPAIR_W_DROP) {
		if (w != IMPAIR_W_DROP)
			return bad(r, act_off, "'drop' with other bits set");
		a->drop = true;
		return 1;
	}
	if ((rc = get_delay(r, w, &a->delay_ns, act_off)) < 0)
		return rc;
	if (!(w & IMPAIR_W_EXT))
		return 1;
	if ((rc = get_word(r, &ext, false, act_off)) < 0)
		return rc;
	if (ext >> 16)
		return bad(r, act_off, "reserved bits of the extension word set");
	a->ndup = (uint8_t)ext;
	a->ncorrupt = (uint8_t)(ext >> 8);
	if (!a->ndup && !a->ncorrupt)
		return bad(r, act_off, "an extension with no copies and no corruptions");
	for (unsigned i = 0; i < a->ndup; i++) {
		if ((rc = get_word(r, &w, false, act_off)) < 0)
			return rc;
		if (w & ~IMPAIR_W_DELAY_MASK)
			return bad(r, act_off, "flags set in the delay of a copy");
		if ((rc = get_delay(r, w, &a->dup_delay_ns[i], act_off)) < 0)
			return rc;
	}
	for (unsigned i = 0; i < a->ncorrupt; i++) {
		if ((rc = get_word(r, &w, false, act_off)) < 0)
			return rc;
		a->corrupt[i].kind = (enum impair_corrupt_kind)(w >> IMPAIR_C_KIND_SHIFT);
		a->corrupt[i].pos = w & IMPAIR_C_POS_MASK;
		if (w >> IMPAIR_C_KIND_SHIFT > IMPAIR_CORRUPT_RANDOM)
			return bad(r, act_off, "unknown corruption kind 3");
		if (a->corrupt[i].kind == IMPAIR_CORRUPT_RANDOM && !a->corrupt[i].pos)
			return bad(r, act_off, "'corrupt random 0'");
	}
	return 1;
}

static int next_text(struct impair_reader *r, struct impair_action *a)
{
	for (;;) {
		const uint8_t *nl;
		size_t n, len;
		ssize_t avail = fill(r, 1);
		char err[300];

		if (avail < 0)
			return (int)avail;
		if (!avail)
			return 0;
		/* A whole line in the window, or the file's last line. */
		for (;;) {
			nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
			if (nl || r->eof || r->len - r->pos > IMPAIR_LINE_MAX)
				break;
			avail = fill(r, r->len - r->pos + 1);
			if (avail < 0)
				return (int)avail;
		}
		r->line++;
		len = nl ? (size_t)(nl - (r->buf + r->pos)) : r->len - r->pos;
		if (len > IMPAIR_LINE_MAX)
			return rd_fail(r, -EBADMSG, "line %" PRIu64 ": longer than %d bytes",
				       r->line, IMPAIR_LINE_MAX);
		memcpy(r->linebuf, r->buf + r->pos, len);
		r->linebuf[len] = 0;
		n = len + (nl ? 1 : 0);
		r->pos += n;
		r->off += n;
		if (strlen(r->linebuf) != len)
			return rd_fail(r, -EBADMSG, "line %" PRIu64 ", column %zu: a NUL byte",
				       r->line, strlen(r->linebuf) + 1);
		const char *p = r->linebuf;

		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			continue;
		if (impair_action_parse(r->linebuf, a, err, sizeof(err)) < 0)
			return rd_fail(r, -EBADMSG, "line %" PRIu64 ", %s", r->line, err);
		return 1;
	}
}

int impair_reader_next(struct impair_reader *r, struct impair_action *a)
{
	int rc;

	if (r->fd < 0)
		return -EBADF;
	impair_action_pass(a);
	rc = r->fmt == IMPAIR_FMT_BIN ? next_bin(r, a) : next_text(r, a);
	if (rc == 1)
		r->nact++;
	return rc;
}

enum impair_fmt impair_reader_fmt(const struct impair_reader *r)
{
	return r->fmt;
}

const char *impair_reader_strerror(const struct impair_reader *r)
{
	return r->err[0] ? r->err : "no error";
}

void impair_reader_close(struct impair_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r);
}
