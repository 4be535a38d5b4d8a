// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live source of --source-interface IF: frames arriving on IF, read by
 * libpcap (AF_PACKET, immediate mode, nanosecond kernel timestamps) in a
 * thread of their own and written as a pcap stream into a pipe, which the
 * run opens as its one trace: the forwarder is the replay loop itself, and
 * edits, impairment, lanes, statistics, --limit and --duration apply
 * unchanged.  Each record's timestamp is the frame's arrival on the run
 * clock (CLOCK_MONOTONIC), the packet's deadline, to which an impairment
 * adds its delay.  The loop waits on the pipe (live_fd()) when it has no
 * whole record.  The thread ends when asked (live_stop(), live_close()),
 * at --duration, or on a capture error, and closes the pipe: the reader
 * sees its end.  When the loop falls behind, the pipe fills, the thread
 * waits, and the kernel's ring drops: counted (live_stats()), never silent.
 * Called by src/run/source.c and src/run/report.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <pcap/pcap.h>

#include "batch.h"
#include "replay/live.h"
#include "replay/compiler.h"
#include "replay/log.h"
#include "live_int.h"

#define LIVE_PIPE_BYTES (1 << 20)

struct live {
	pcap_t *pc;
	char ifname[64];
	int rfd, wfd, evfd;
	int64_t real_minus_mono; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start-up, ns */
	uint64_t end_ns;         /* CLOCK_MONOTONIC at which to stop (--duration); 0 = never */
	pthread_t th;
	bool started;
	atomic_bool failed;
	atomic_ullong captured;
	atomic_ullong too_long;   /* cut short by the snapshot length: not forwarded */
	uint32_t snaplen;
	uint64_t buffer_bytes;
	struct live_batch batch; /* the records of one pcap_dispatch(), written at once */
	char err[PCAP_ERRBUF_SIZE + 128];
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Write all of @buf, waiting for room in the pipe (the loop behind: the
 * kernel's ring fills and drops meanwhile, counted); -1 when asked to stop
 * (live_stop()) during that wait, when the reader has gone (EPIPE), or on
 * an error.
 */
static int write_all(struct live *lv, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(lv->wfd, p, len);

		if (n < 0) {
			struct pollfd pfd[2] = { { .fd = lv->wfd, .events = POLLOUT },
						 { .fd = lv->evfd, .events = POLLIN } };

			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -1;
			if ((poll(pfd, 2, -1) < 0 && errno != EINTR) || pfd[1].revents)
				return -1;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The batch into the pipe, in one write() (two, or more, only when the
 * pipe has less room): its frames are then the loop's, counted captured.
 * false when the write failed or was stopped (write_all()).
 */
static bool flush_batch(struct live *lv)
{
	struct live_batch *b = &lv->batch;

	if (!b->n)
		return true;
	if (write_all(lv, b->buf, b->len) < 0) {
		atomic_store(&lv->failed, true);
		return false;
	}
	atomic_fetch_add(&lv->captured, b->n);
	live_batch_reset(b);
	return true;
}

static void on_frame(u_char *arg, const struct pcap_pkthdr *h, const u_char *data)
{
	struct live *lv = (struct live *)arg;
	uint64_t real = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* ns precision */

	if (atomic_load_explicit(&lv->failed, memory_order_relaxed))
		return;
	if (h->caplen < h->len) {
		/* Forwarded cut, it would be a different frame: counted, and said in the summary. */
		atomic_fetch_add(&lv->too_long, 1);
		return;
	}
	/* Sized for LIVE_BATCH_FRAMES of the snapshot length: full only if pcap_dispatch() gave more. */
	if (!live_batch_fits(&lv->batch, h->caplen) && !flush_batch(lv)) {
		pcap_breakloop(lv->pc);
		return;
	}
	(void)live_batch_add(&lv->batch, live_mono_ns(real, lv->real_minus_mono), data, h->caplen, h->len);
}

/*
 * Batches.  Each wake-up takes what the ring holds, LIVE_BATCH_FRAMES at a
 * time (pcap_dispatch() with a count, so a busy ring cannot keep the
 * thread from its pipe), gathers their records in one buffer
 * (src/live/batch.c) and writes it into the pipe at once: one write() per
 * batch, where two per frame (header, frame) kept a 2-vCPU machine from
 * forwarding 90 000 frames/s.  After a full batch the thread looks at the
 * ring again without waiting.  A frame counts as captured once its batch
 * is in the pipe.
 */
static void *capture_thread(void *arg)
{
	struct live *lv = arg;
	bool more = false; /* the last pcap_dispatch() was a full batch */
	sigset_t all;

	/* Signals are the main thread's; a reader gone makes write() fail with EPIPE, not kill. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd pfd[2] = { { .fd = pcap_get_selectable_fd(lv->pc), .events = POLLIN },
					 { .fd = lv->evfd, .events = POLLIN } };
		int timeout = more ? 0 : -1, n;

		if (lv->end_ns) {
			uint64_t now = now_ns(CLOCK_MONOTONIC);

			if (now >= lv->end_ns)
				break;
			if (!more)
				timeout = (int)((lv->end_ns - now + 999999) / 1000000);
		}
		/* After a full batch the ring may hold more: look without waiting (and see a stop). */
		n = poll(pfd, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[1].revents)
			break;
		if (!pfd[0].revents && !more)
			continue;
		n = pcap_dispatch(lv->pc, (int)LIVE_BATCH_FRAMES, on_frame, (u_char *)lv);
		if (n == PCAP_ERROR) {
			snprintf(lv->err, sizeof(lv->err), "--source-interface %s: %s", lv->ifname,
				 pcap_geterr(lv->pc));
			atomic_store(&lv->failed, true);
		}
		more = n >= (int)LIVE_BATCH_FRAMES;
		/* What it gave crosses the pipe now, in one write: the loop sees it at once. */
		if (atomic_load(&lv->failed) || !flush_batch(lv))
			break;
	}
	close(lv->wfd); /* the reader sees the end of its input */
	lv->wfd = -1;
	return NULL;
}

/*
 * The ring.  Immediate mode makes libpcap use TPACKET_V2 (TPACKET_V3 would
 * hold each frame until its block fills or times out, adding up to the
 * block timeout to every frame's delay), and a V2 ring has one slot per
 * frame, sized by the snapshot length -- and by libpcap at 64 KiB when the
 * interface has offloads, whatever the snapshot length.  A snapshot length
 * of 256 KiB left a 32 MiB ring about 128 slots: at 90 000 frames/s, 1.4 ms
 * of slack, and the kernel dropped frames.  So the snapshot length is the
 * interface's MTU plus an Ethernet header and two VLAN tags (a frame longer
 * than that could not have arrived on it, and could not leave by an
 * interface of the same MTU), and the ring is --buffer-size (64 MiB by
 * default: about 32 000 slots of 2 KiB, a third of a second at 90 000
 * frames/s).  A frame the ring cut short anyway (GRO on the input) is not
 * forwarded cut: it is counted apart (too_long).
 */
int live_open(struct live **lp, const char *ifname, unsigned buffer_kib, char *err, size_t errlen)
{
	struct live *lv = calloc(1, sizeof(*lv));
	int pfd[2];
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t zone;
		uint32_t sigfigs, snaplen, linktype;
	} hdr;

	*lp = NULL;
	if (!lv) {
		snprintf(err, errlen, "--source-interface %s: out of memory", ifname);
		return -1;
	}
	lv->rfd = lv->wfd = lv->evfd = -1;
	snprintf(lv->ifname, sizeof(lv->ifname), "%s", ifname);
	lv->pc = live_capture_open("--source-interface", ifname, buffer_kib, &lv->snaplen, &lv->buffer_bytes,
				   err, errlen);
	if (!lv->pc)
		goto fail;
	/* A batch of snapshot-length frames, no larger than the pipe (one record always fits). */
	if (live_batch_init(&lv->batch, MAX((size_t)LIVE_REC_BYTES + lv->snaplen,
					    MIN((size_t)LIVE_BATCH_FRAMES * (LIVE_REC_BYTES + lv->snaplen),
						(size_t)LIVE_PIPE_BYTES))) < 0) {
		snprintf(err, errlen, "--source-interface %s: out of memory", ifname);
		goto fail;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0 || (lv->evfd = eventfd(0, EFD_CLOEXEC)) < 0) {
		snprintf(err, errlen, "--source-interface %s: %s", ifname, strerror(errno));
		goto fail;
	}
	lv->rfd = pfd[0];
	lv->wfd = pfd[1];
	(void)fcntl(lv->wfd, F_SETPIPE_SZ, LIVE_PIPE_BYTES); /* a smaller pipe only waits sooner */
	/* The pcap header (nanosecond magic) now: the reader opens the stream before the thread runs. */
	hdr.magic = 0xa1b23c4d;
	hdr.major = 2;
	hdr.minor = 4;
	hdr.zone = 0;
	hdr.sigfigs = 0;
	hdr.snaplen = lv->snaplen;
	hdr.linktype = 1; /* LINKTYPE_ETHERNET */
	if (write_all(lv, &hdr, 24) < 0 || fcntl(lv->wfd, F_SETFL, O_NONBLOCK) < 0) {
		snprintf(err, errlen, "--source-interface %s: %s", ifname, strerror(errno));
		goto fail;
	}
	lv->real_minus_mono = (int64_t)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC));
	*lp = lv;
	return 0;
fail:
	live_close(lv);
	return -1;
}

int live_start(struct live *lv, uint64_t duration_ns, char *err, size_t errlen)
{
	int rc;

	/* --duration counts from the start of forwarding, not from the set-up. */
	if (duration_ns && __builtin_add_overflow(now_ns(CLOCK_MONOTONIC), duration_ns, &lv->end_ns))
		lv->end_ns = UINT64_MAX; /* saturated: never reached */
	else if (!duration_ns)
		lv->end_ns = 0;
	rc = pthread_create(&lv->th, NULL, capture_thread, lv);
	if (rc) {
		snprintf(err, errlen, "--source-interface %s: cannot start the capture: %s", lv->ifname,
			 strerror(rc));
		return -1;
	}
	lv->started = true;
	return 0;
}

int live_fd(const struct live *lv)
{
	return lv->rfd;
}

void live_stop(struct live *lv)
{
	uint64_t one = 1;

	if (lv && lv->evfd >= 0)
		(void)!write(lv->evfd, &one, sizeof(one));
}

const char *live_error(const struct live *lv)
{
	return lv && lv->err[0] ? lv->err : NULL;
}

/* Stop the capture (if running) and join it; then its counts are final. */
static void finish(struct live *lv)
{
	if (lv->started) {
		live_stop(lv);
		pthread_join(lv->th, NULL);
		lv->started = false;
	}
}

void live_stats(struct live *lv, struct live_stats *st)
{
	struct pcap_stat ps = { 0 };

	finish(lv);
	*st = (struct live_stats){ .captured = atomic_load(&lv->captured), .too_long = atomic_load(&lv->too_long),
				   .snaplen = lv->snaplen, .buffer_bytes = lv->buffer_bytes };
	if (lv->pc && pcap_stats(lv->pc, &ps) == 0) {
		st->kernel_dropped = ps.ps_drop;
		st->if_dropped = ps.ps_ifdrop;
	}
}

const char *live_name(const struct live *lv)
{
	return lv->ifname;
}

void live_close(struct live *lv)
{
	if (!lv)
		return;
	finish(lv);
	if (lv->wfd >= 0)
		close(lv->wfd);
	if (lv->rfd >= 0)
		close(lv->rfd);
	if (lv->evfd >= 0)
		close(lv->evfd);
	if (lv->pc)
		pcap_close(lv->pc);
	live_batch_free(&lv->batch);
	free(lv);
}
