// SPDX-License-Identifier: BSD-2-Clause
/*
 * The file method (-w): writes the frames that would go on the wire to a
 * nanosecond pcap, each stamped with its scheduled send time.  It runs in
 * virtual time, so a dry run of an hour-long trace takes as long as the
 * writing.  A regular output file appears under its name only when the run
 * drains; a run that fails before that leaves nothing behind (and no old
 * file clobbered).  Devices and FIFOs are written directly.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/trace.h"
#include "tx_int.h"

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define OUT_BUF_BYTES (1u << 20)

struct file_state {
	FILE *f;
	char *path;        /* final name, or NULL for stdout */
	char *tmp;         /* temporary name while writing */
	int64_t to_real_ns;
	bool committed;
	char *buf;         /* stdio buffer */
	unsigned staged;   /* frames written since the last flush() */
};

static int put(struct tx *tx, struct file_state *s, const void *b, size_t n)
{
	if (fwrite(b, 1, n, s->f) != n)
		return tx_err(tx, errno ? -errno : -EIO, "%s: write failed: %s", tx->dev,
			      strerror(errno ? errno : EIO));
	return 0;
}

static int file_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct file_state *s;
	struct stat st;
	uint32_t hdr[6];
	int fd;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	tx->priv = s;
	s->to_real_ns = cfg->clock_to_real_ns;
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->path);
	tx->batch = tx_batch(cfg);
	if (!strcmp(cfg->path, "-")) {
		s->f = stdout;
	} else if (stat(cfg->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or FIFO (/dev/null, a pipe to a reader): write to it as it is. */
		s->f = fopen(cfg->path, "wb");
		if (!s->f)
			return tx_err(tx, -errno, "%s: cannot write: %s", cfg->path, strerror(errno));
	} else {
		s->path = strdup(cfg->path);
		if (!s->path || asprintf(&s->tmp, "%s.tmp.XXXXXX", cfg->path) < 0) {
			s->tmp = NULL;
			return tx_err(tx, -ENOMEM, "out of memory");
		}
		fd = mkstemp(s->tmp);
		if (fd < 0) {
			int err = errno;

			free(s->tmp);
			s->tmp = NULL;
			return tx_err(tx, -err, "%s: cannot create: %s", cfg->path, strerror(err));
		}
		mode_t um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
		s->f = fdopen(fd, "wb");
		if (!s->f) {
			close(fd);
			return tx_err(tx, -errno, "%s: %s", cfg->path, strerror(errno));
		}
	}
	if (s->f != stdout) {
		/* A large buffer: one write() per megabyte, not per frame. */
		s->buf = malloc(OUT_BUF_BYTES);
		if (s->buf)
			setvbuf(s->f, s->buf, _IOFBF, OUT_BUF_BYTES);
	}
	hdr[0] = htole32(PCAP_MAGIC_NSEC);
	hdr[1] = htole32(2u | 4u << 16); /* version 2.4; le16 major, le16 minor */
	hdr[2] = 0;                      /* thiszone */
	hdr[3] = 0;                      /* sigfigs */
	hdr[4] = htole32(TRACE_RECORD_MAX_BYTES);
	hdr[5] = htole32(cfg->linktype);
	return put(tx, s, hdr, sizeof(hdr));
}

static int file_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct file_state *s = tx->priv;

	for (unsigned i = 0; i < n; i++) {
		uint64_t ts = v[i].sched_ns + (uint64_t)s->to_real_ns;
		uint32_t rec[4];
		int rc;

		rec[0] = htole32((uint32_t)(ts / NSEC_PER_SEC));
		rec[1] = htole32((uint32_t)(ts % NSEC_PER_SEC));
		/* What the wire carries is what we send: caplen bytes, both lengths. */
		rec[2] = htole32(v[i].caplen);
		rec[3] = htole32(v[i].caplen);
		rc = put(tx, s, rec, sizeof(rec));
		if (rc == 0)
			rc = put(tx, s, v[i].data, v[i].caplen);
		if (rc < 0)
			return i ? (int)i : rc;
		s->staged++;
	}
	return (int)n;
}

/* Frames are written (into the stdio buffer) as they are staged; a flush only reports them. */
static int file_flush(struct tx *tx)
{
	struct file_state *s = tx->priv;
	int n = (int)s->staged;

	s->staged = 0;
	return n;
}

/*
 * Only called after back-pressure or a fatal error, which a file never
 * reports, so there is never anything to take back.
 */
static void file_discard(struct tx *tx)
{
	struct file_state *s = tx->priv;

	s->staged = 0;
}

static int file_wait(struct tx *tx, int err)
{
	(void)tx;
	(void)err;
	return 0;
}

static int file_drain(struct tx *tx)
{
	struct file_state *s = tx->priv;

	if (fflush(s->f) != 0)
		return tx_err(tx, -errno, "%s: write failed: %s", tx->dev, strerror(errno));
	if (s->tmp && !s->committed) {
		if (rename(s->tmp, s->path) < 0)
			return tx_err(tx, -errno, "%s: cannot rename from %s: %s", s->path, s->tmp,
				      strerror(errno));
		s->committed = true;
	}
	return 0;
}

static void file_close(struct tx *tx)
{
	struct file_state *s = tx->priv;

	if (!s)
		return;
	if (s->f && s->f != stdout)
		fclose(s->f);
	else if (s->f)
		fflush(s->f);
	if (s->tmp && !s->committed)
		unlink(s->tmp);
	free(s->tmp);
	free(s->path);
	free(s->buf);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_file_ops = {
	.name = "file",
	.flags = TX_F_VIRTUAL_TIME,
	.open = file_open,
	.send = file_send,
	.flush = file_flush,
	.discard = file_discard,
	.wait = file_wait,
	.drain = file_drain,
	.close = file_close,
};
