// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send log: preallocated buffers of fixed-size records, filled by the
 * send loop and written by a thread of their own (sendlog.h says why).
 *
 * Hand-over.  The loop fills buf[handed % SENDLOG_BUFS]; when it is full it
 * records its length, counts it handed and signals the writer (one mutex
 * lock and one condition-variable signal per SENDLOG_BUF_ENTRIES packets;
 * the mutex is never held across a write).  The writer writes buffers in
 * the order handed, counting them done.  A buffer is the loop's again once
 * it is done: the loop waits only when handed - done reaches SENDLOG_BUFS.
 * After a write error the writer keeps consuming buffers without writing,
 * so the loop never waits on a writer that has given up; the first error
 * is reported at close, and the file is not committed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
	struct sendlog_entry *mem; /* SENDLOG_BUFS * SENDLOG_BUF_ENTRIES, one allocation */

	/* The loop's side. */
	struct sendlog_entry *cur; /* the buffer being filled */
	size_t n;                  /* entries in cur */
	uint64_t stalls;           /* waits for a free buffer */
	uint64_t stall_ns;         /* their time in all */

	/* Shared, under mu. */
	pthread_mutex_t mu;
	pthread_cond_t to_writer;     /* a buffer was handed over, or closing */
	pthread_cond_t to_loop;       /* a buffer was written */
	size_t len[SENDLOG_BUFS];     /* entries handed over in each buffer */
	uint64_t handed;              /* buffers handed over */
	uint64_t done;                /* buffers written (or dropped after an error) */
	bool closing;

	/* The writer's; read by the loop's thread after the join. */
	pthread_t th;
	bool th_started;
	int avoid_cpu;    /* the opener's only CPU, kept off; -1 if it had several */
	uint64_t written; /* entries written to the file */
	int err;          /* first write error, -errno; later buffers are not written */
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

static struct sendlog_entry *buf_of(struct sendlog *l, uint64_t k)
{
	return l->mem + (size_t)(k % SENDLOG_BUFS) * SENDLOG_BUF_ENTRIES;
}

/*
 * Normal priority and, when the opener was pinned to one CPU (--cpu), any
 * CPU but that one: inherited SCHED_FIFO on the sender's CPU would make
 * each write a stall of its own.  Failures leave what was inherited.
 */
static void writer_place(const struct sendlog *l)
{
	struct sched_param sp = { .sched_priority = 0 };

	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	if (l->avoid_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (c != l->avoid_cpu)
				CPU_SET(c, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
}

static void *writer_main(void *arg)
{
	struct sendlog *l = arg;

	writer_place(l);
	pthread_mutex_lock(&l->mu);
	for (;;) {
		const struct sendlog_entry *b;
		size_t len;

		while (l->done == l->handed && !l->closing)
			pthread_cond_wait(&l->to_writer, &l->mu);
		if (l->done == l->handed)
			break; /* closing, and all written */
		b = buf_of(l, l->done);
		len = l->len[l->done % SENDLOG_BUFS];
		pthread_mutex_unlock(&l->mu);
		if (!l->err) {
			l->err = write_all(l->fd, b, len * sizeof(*b), -1);
			if (!l->err)
				l->written += len;
		}
		pthread_mutex_lock(&l->mu);
		l->done++;
		pthread_cond_signal(&l->to_loop);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Hand the loop's buffer to the writer and take the next free one; @stall counts a wait. */
static void hand_over(struct sendlog *l, bool stall)
{
	pthread_mutex_lock(&l->mu);
	l->len[l->handed % SENDLOG_BUFS] = l->n;
	l->handed++;
	pthread_cond_signal(&l->to_writer);
	if (l->handed - l->done >= SENDLOG_BUFS) {
		uint64_t t0 = stall ? mono_ns() : 0;

		while (l->handed - l->done >= SENDLOG_BUFS)
			pthread_cond_wait(&l->to_loop, &l->mu);
		if (stall) {
			l->stalls++;
			l->stall_ns += mono_ns() - t0;
		}
	}
	pthread_mutex_unlock(&l->mu);
	l->cur = buf_of(l, l->handed);
	l->n = 0;
}

static void free_log(struct sendlog *l)
{
	if (l->th_started) {
		pthread_mutex_lock(&l->mu);
		l->closing = true;
		pthread_cond_signal(&l->to_writer);
		pthread_mutex_unlock(&l->mu);
		pthread_join(l->th, NULL);
	}
	pthread_cond_destroy(&l->to_loop);
	pthread_cond_destroy(&l->to_writer);
	pthread_mutex_destroy(&l->mu);
	outfile_close(&l->out);
	free(l->mem);
	free(l->path);
	free(l);
}

static int start_writer(struct sendlog *l)
{
	sigset_t all, prev;
	cpu_set_t set;
	int rc;

	l->avoid_cpu = -1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) == 1)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				l->avoid_cpu = c;
	/* Every signal blocked in the writer: SIGINT and the rest go to the send loop's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &prev);
	rc = pthread_create(&l->th, NULL, writer_main, l);
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	if (rc)
		return -rc;
	l->th_started = true;
	return 0;
}

int sendlog_open(struct sendlog **lp, const char *path, int64_t real_minus_run_ns, uint64_t run_ns,
		 char *err, size_t errlen)
{
	const size_t bytes = (size_t)SENDLOG_BUFS * SENDLOG_BUF_ENTRIES * sizeof(struct sendlog_entry);
	struct sendlog *l = calloc(1, sizeof(*l));
	int rc;

	*lp = NULL;
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	l->fd = l->out.fd = l->out.dirfd = -1;
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->to_writer, NULL);
	pthread_cond_init(&l->to_loop, NULL);
	l->path = strdup(path);
	/* Touch every page now: a page fault on the send path would show as send-time error. */
	l->mem = malloc(bytes);
	if (!l->path || !l->mem) {
		free_log(l);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(l->mem, 0, bytes);
	l->cur = l->mem;
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
	rc = start_writer(l);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot start the send log's writer thread: %s", path,
			 strerror(-rc));
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
		hand_over(l, true);
	e = &l->cur[l->n++];
	e->run_ns = run_ns;
	e->id = id;
	e->recno = recno;
}

uint64_t sendlog_stalls(const struct sendlog *l, uint64_t *stall_ns)
{
	if (stall_ns)
		*stall_ns = l ? l->stall_ns : 0;
	return l ? l->stalls : 0;
}

int sendlog_close(struct sendlog *l, int64_t real_minus_run_ns, uint64_t run_ns, char *err,
		  size_t errlen)
{
	int rc;

	if (!l)
		return 0;
	if (l->n)
		hand_over(l, false);
	/* The writer finishes what was handed over, then exits: its results are ours after the join. */
	pthread_mutex_lock(&l->mu);
	l->closing = true;
	pthread_cond_signal(&l->to_writer);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->th, NULL);
	l->th_started = false;
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
