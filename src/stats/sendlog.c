// SPDX-License-Identifier: BSD-2-Clause
/* The send log: a preallocated buffer of fixed-size records, written in chunks. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/outfile.h"
#include "replay/pkt_id.h"
#include "replay/sendlog.h"

_Static_assert(sizeof(struct sendlog_hdr) == 64, "send log header layout");
_Static_assert(sizeof(struct sendlog_entry) == 24, "send log entry layout");

struct sendlog {
	int fd;                    /* out.fd */
	struct outfile out;        /* committed at close: a log appears whole or not at all */
	char *path;
	struct sendlog_hdr hdr;
	struct sendlog_entry *buf; /* SENDLOG_BUF_ENTRIES */
	size_t n;                  /* entries in buf */
	uint64_t written;          /* entries written to the file */
	int err;                   /* first write error, -errno; later entries are dropped */
};

static int write_all(int fd, const void *b, size_t len, off_t at)
{
	const char *p = b;

	while (len) {
		ssize_t w = at < 0 ? write(fd, p, len) : pwrite(fd, p, len, at);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
		if (at >= 0)
			at += w;
	}
	return 0;
}

static void flush(struct sendlog *l)
{
	if (l->n && !l->err) {
		l->err = write_all(l->fd, l->buf, l->n * sizeof(*l->buf), -1);
		if (!l->err)
			l->written += l->n;
	}
	l->n = 0;
}

static void free_log(struct sendlog *l)
{
	outfile_close(&l->out);
	free(l->buf);
	free(l->path);
	free(l);
}

int sendlog_open(struct sendlog **lp, const char *path, int64_t real_minus_run_ns, uint64_t run_ns,
		 char *err, size_t errlen)
{
	struct sendlog *l = calloc(1, sizeof(*l));
	int rc;

	*lp = NULL;
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	l->fd = l->out.fd = l->out.dirfd = -1;
	l->path = strdup(path);
	/* Touch every page now: a page fault on the send path would show as send-time error. */
	l->buf = malloc(SENDLOG_BUF_ENTRIES * sizeof(*l->buf));
	if (!l->path || !l->buf) {
		free_log(l);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(l->buf, 0, SENDLOG_BUF_ENTRIES * sizeof(*l->buf));
	rc = outfile_open(&l->out, path, err, errlen);
	if (rc < 0) {
		if (rc != -EPERM) /* else @err says whose link it is */
			snprintf(err, errlen, "%s: cannot write the send log: %s", path, strerror(-rc));
		free_log(l);
		return rc;
	}
	l->fd = l->out.fd;
	memcpy(l->hdr.magic, SENDLOG_MAGIC, sizeof(l->hdr.magic));
	l->hdr.byte_order = SENDLOG_BYTE_ORDER;
	l->hdr.entry_bytes = sizeof(struct sendlog_entry);
	l->hdr.id_bytes = PKT_ID_BYTES;
	l->hdr.run0_ns = run_ns;
	l->hdr.real_minus_run0_ns = real_minus_run_ns;
	/* count stays 0 until close: a log cut short (a pipe's reader) is read to its end. */
	rc = write_all(l->fd, &l->hdr, sizeof(l->hdr), -1);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot write the send log: %s", path, strerror(-rc));
		free_log(l);
		return rc;
	}
	*lp = l;
	return 0;
}

void sendlog_add(struct sendlog *l, uint64_t id, uint64_t recno, uint64_t run_ns)
{
	struct sendlog_entry *e;

	if (l->n == SENDLOG_BUF_ENTRIES)
		flush(l);
	e = &l->buf[l->n++];
	e->run_ns = run_ns;
	e->id = id;
	e->recno = recno;
}

int sendlog_close(struct sendlog *l, int64_t real_minus_run_ns, uint64_t run_ns, char *err,
		  size_t errlen)
{
	int rc;

	if (!l)
		return 0;
	flush(l);
	rc = l->err;
	if (!rc) {
		l->hdr.count = l->written;
		l->hdr.run1_ns = run_ns;
		l->hdr.real_minus_run1_ns = real_minus_run_ns;
		/* A pipe cannot be rewritten: its reader goes by the first header, to the end. */
		rc = write_all(l->fd, &l->hdr, sizeof(l->hdr), 0);
		if (rc == -ESPIPE)
			rc = 0;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s: cannot write the send log: %s", l->path, strerror(-rc));
	else
		rc = outfile_commit(&l->out, err, errlen);
	free_log(l);
	return rc;
}

static int load_fail(struct sendlog_data *d, char *err, size_t errlen, int rc, const char *path,
		     const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	sendlog_free(d);
	return rc;
}

int sendlog_load(struct sendlog_data *d, const char *path, char *err, size_t errlen)
{
	struct stat st;
	size_t avail;
	FILE *f;

	memset(d, 0, sizeof(*d));
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the send log: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return load_fail(d, err, errlen, -EINVAL, path, "not a regular file");
	}
	if (fread(&d->hdr, sizeof(d->hdr), 1, f) != 1 ||
	    memcmp(d->hdr.magic, SENDLOG_MAGIC, sizeof(d->hdr.magic))) {
		fclose(f);
		return load_fail(d, err, errlen, -EINVAL, path,
				 "not a send log (written by replay --send-log)");
	}
	if (d->hdr.byte_order != SENDLOG_BYTE_ORDER) {
		fclose(f);
		return load_fail(d, err, errlen, -EINVAL, path,
				 "send log written on a host of the other byte order");
	}
	if (d->hdr.entry_bytes != sizeof(struct sendlog_entry) || !d->hdr.id_bytes) {
		fclose(f);
		return load_fail(d, err, errlen, -EINVAL, path, "unsupported send log version");
	}
	/*
	 * The two clock samples: slewing moves CLOCK_REALTIME by at most 500 ppm, so an
	 * offset that changed by more than the whole interval between them is not from
	 * a run of replay (or the clock was stepped, and interpolation would be wrong).
	 */
	if (d->hdr.run1_ns && (d->hdr.run1_ns < d->hdr.run0_ns ||
			       fabsl((long double)d->hdr.real_minus_run1_ns -
				     (long double)d->hdr.real_minus_run0_ns) >
				       (long double)(d->hdr.run1_ns - d->hdr.run0_ns))) {
		fclose(f);
		return load_fail(d, err, errlen, -EINVAL, path,
				 "send log's clock samples are inconsistent (clock stepped, or corrupt)");
	}
	avail = ((size_t)st.st_size - sizeof(d->hdr)) / sizeof(struct sendlog_entry);
	d->count = d->hdr.count ? d->hdr.count : avail;
	if (d->count > avail) {
		fclose(f);
		return load_fail(d, err, errlen, -EINVAL, path,
				 "send log is shorter than its header says (truncated?)");
	}
	d->e = malloc((d->count ? d->count : 1) * sizeof(*d->e));
	if (!d->e) {
		fclose(f);
		return load_fail(d, err, errlen, -ENOMEM, path, "out of memory");
	}
	if (d->count && fread(d->e, sizeof(*d->e), d->count, f) != d->count) {
		fclose(f);
		return load_fail(d, err, errlen, -EIO, path, "read error");
	}
	fclose(f);
	return 0;
}

uint64_t sendlog_realtime(const struct sendlog_data *d, uint64_t run_ns)
{
	const struct sendlog_hdr *h = &d->hdr;
	long double off = (long double)h->real_minus_run0_ns, t;

	/* Linear between the two samples: NTP slews CLOCK_REALTIME by up to 500 ppm. */
	if (h->run1_ns > h->run0_ns)
		off += ((long double)h->real_minus_run1_ns - (long double)h->real_minus_run0_ns) *
		       ((long double)run_ns - (long double)h->run0_ns) /
		       (long double)(h->run1_ns - h->run0_ns);
	/* A foreign header can put the result outside the clock's range: clamp, never wrap. */
	t = (long double)run_ns + off;
	if (!(t > 0))
		return 0;
	if (t >= 18446744073709551615.0L)
		return UINT64_MAX;
	return (uint64_t)t;
}

void sendlog_free(struct sendlog_data *d)
{
	free(d->e);
	d->e = NULL;
	d->count = 0;
}
