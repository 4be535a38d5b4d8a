// SPDX-License-Identifier: BSD-2-Clause
/*
 * The file method (-w): writes the frames that would go on the wire to a
 * nanosecond pcap, each stamped with its scheduled send time, in virtual
 * time (a dry run of an hour-long trace takes as long as the writing).  A
 * regular output file is written unnamed (replay/outfile.h) and appears
 * under its name only at commit, which the send loop asks for only when the
 * whole run succeeded: a run that fails partway leaves nothing behind (and
 * no old file clobbered), even when killed.  Devices, FIFOs and standard
 * output are written directly.  Every record fits the snap length of the
 * file's own header (the pipeline's frame maximum) and pcap's 32-bit
 * seconds; a frame that does not is refused with its reason, never written
 * cut or wrapped.  A write error (a closed pipe, a full disk) ends the run.
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

#include "replay/outfile.h"
#include "replay/trace.h"
#include "tx_int.h"

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define OUT_BUF_BYTES (1u << 20)
/* The snap length in the header, the pipeline's frame limit: no record is ever longer. */
#define FILE_SNAPLEN PKT_FRAME_MAX_BYTES

struct file_state {
	FILE *f;
	struct outfile out;
	int64_t to_real_ns;
	int werr;          /* first write error, -errno: every later send fails with it */
	char *buf;         /* stdio buffer */
	unsigned staged;   /* frames written since the last flush() */
};

/* Map a write error onto the contract: fatal (tx_fatal()), the stream is broken. */
/* The write failed (or an earlier one did): the error sticks, so the run stops at the first. */
static __attribute__((noinline, cold)) int put_failed(struct tx *tx, struct file_state *s)
{
	int e;

	if (s->werr)
		return tx_err(tx, s->werr, "%s: write failed: %s", tx->dev, strerror(-s->werr));
	e = errno ? errno : EIO;
	s->werr = e == EPIPE || e == ENOSPC || e == EDQUOT || e == EFBIG ? -e : -EPIPE;
	return tx_err(tx, s->werr, "%s: write failed: %s", tx->dev, strerror(e));
}

static inline int put(struct tx *tx, struct file_state *s, const void *b, size_t n)
{
	if (likely(fwrite(b, 1, n, s->f) == n))
		return 0;
	return put_failed(tx, s);
}

static int file_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct file_state *s;
	uint32_t hdr[6];

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->out.fd = s->out.dirfd = -1;
	tx->priv = s;
	s->to_real_ns = cfg->clock_to_real_ns;
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->path);
	tx->batch = tx_batch(cfg);
	s->f = outfile_fopen(&s->out, cfg->path, tx->err, sizeof(tx->err));
	if (!s->f)
		return errno ? -errno : -EIO; /* tx->err says why */
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
	hdr[4] = htole32(FILE_SNAPLEN);
	/* Ethernet, as the readers make every frame, unless --dlt replaced the link layer. */
	hdr[5] = htole32(cfg->linktype ? cfg->linktype : LINKTYPE_ETHERNET);
	return put(tx, s, hdr, sizeof(hdr));
}

/* The earliest send time a pcap record cannot hold: 2^32 s (the year 2106). */
#define FILE_TS_LIMIT_NS (((uint64_t)UINT32_MAX + 1) * NSEC_PER_SEC)

/* Why @p cannot be written (too long, or too late for a pcap timestamp); -errno. */
static __attribute__((noinline, cold)) int refuse(struct tx *tx, const struct pkt *p, uint64_t ts)
{
	if (p->caplen > FILE_SNAPLEN)
		return tx_err(tx, -EMSGSIZE,
			      "%u-byte frame is longer than the output's snap length (%u bytes); not written",
			      p->caplen, FILE_SNAPLEN);
	return tx_err(tx, -ERANGE,
		      "send time %llu s is beyond what a pcap timestamp holds (2^32 s, the year 2106); not written",
		      (unsigned long long)(ts / NSEC_PER_SEC));
}

static int file_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct file_state *s = tx->priv;

	if (unlikely(s->werr)) /* an earlier write failed: the stream is broken for good */
		return put_failed(tx, s);
	for (unsigned i = 0; i < n; i++) {
		uint64_t ts;
		int64_t sum;
		uint32_t rec[4];
		int rc;

		/* A send time past int64 or before the epoch is no pcap time: refused below, never wrapped. */
		if (unlikely(v[i].sched_ns > INT64_MAX ||
			     __builtin_add_overflow((int64_t)v[i].sched_ns, s->to_real_ns, &sum) || sum < 0))
			ts = UINT64_MAX;
		else
			ts = (uint64_t)sum;

		if (unlikely(v[i].caplen > FILE_SNAPLEN || ts >= FILE_TS_LIMIT_NS)) {
			rc = refuse(tx, &v[i], ts);
			return i ? (int)i : rc;
		}
		rec[0] = htole32((uint32_t)(ts / NSEC_PER_SEC));
		rec[1] = htole32((uint32_t)(ts % NSEC_PER_SEC));
		/*
		 * The record keeps the frame's wire length, as tcprewrite does: a frame
		 * the capture cut short stays short-captured (caplen < len) rather than
		 * passing for a whole frame.  The edits keep wirelen in step with every
		 * change of length; a frame longer than its wire length (padded here) is
		 * as long on the wire as its bytes.
		 */
		rec[2] = htole32(v[i].caplen);
		rec[3] = htole32(v[i].wirelen > v[i].caplen ? v[i].wirelen : v[i].caplen);
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

	if (s->werr)
		return tx_err(tx, s->werr, "%s: write failed: %s", tx->dev, strerror(-s->werr));
	if (fflush(s->f) != 0) {
		int e = errno ? errno : EIO;

		s->werr = e == EPIPE || e == ENOSPC || e == EDQUOT || e == EFBIG ? -e : -EPIPE;
		return tx_err(tx, s->werr, "%s: write failed: %s", tx->dev, strerror(e));
	}
	return 0;
}

/* The run succeeded: the output takes its name (replay/outfile.h). */
static int file_commit(struct tx *tx)
{
	struct file_state *s = tx->priv;
	int rc = file_drain(tx);

	if (rc < 0)
		return rc;
	return outfile_commit(&s->out, tx->err, sizeof(tx->err));
}

static void file_close(struct tx *tx)
{
	struct file_state *s = tx->priv;

	if (!s)
		return;
	outfile_fclose(&s->out, s->f);
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
	.commit = file_commit,
	.close = file_close,
};
