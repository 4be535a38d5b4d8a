// SPDX-License-Identifier: BSD-2-Clause
/*
 * readbench: the trace readers against libpcap, on the same file, in one run.
 *
 *   readbench drain MODE FILE
 *       Read every record as fast as possible, touching each packet's first
 *       and last byte (as a send would): prints records, bytes, seconds,
 *       records/s and GB/s, then the process's page faults and context
 *       switches (getrusage: counts that mean something on a loaded machine).
 *   readbench pace MODE FILE PPS [SECONDS]
 *       NetVCR's figure 3 experiment: ask for one record every 1/PPS s (a
 *       spin to each absolute deadline) and time each read; prints the
 *       longest read, how many took over 100 us and 1 ms, the 99.9th
 *       percentile, and the longest lateness of a read's end behind its
 *       deadline (what a send loop would see as send-time error).
 *
 * MODE: ours (the reader as replay runs it: TRACE_RA_AUTO), window (with
 * NetVCR's MADV_WILLNEED window forced), kernel (the kernel's sequential
 * read-ahead forced), none (the plain mapping, no advice, nothing
 * released), random (MADV_RANDOM: no read-ahead at all), preload (ours
 * with --preload: the file read whole into memory at open), libpcap
 * (pcap_next_ex: stdio reads, as tcpreplay does).
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "replay/trace.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct src {
	struct trace *t;
	pcap_t *pc;
};

static int src_open(struct src *s, const char *mode, const char *path)
{
	char err[PCAP_ERRBUF_SIZE];

	memset(s, 0, sizeof(*s));
	if (!strcmp(mode, "libpcap")) {
		s->pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
		if (!s->pc) {
			fprintf(stderr, "readbench: %s\n", err);
			return -1;
		}
		return 0;
	}
	static const char *const modes[TRACE_RA_MAX] = {
		[TRACE_RA_AUTO] = "ours", [TRACE_RA_WINDOW] = "window", [TRACE_RA_KERNEL] = "kernel",
		[TRACE_RA_NONE] = "none", [TRACE_RA_RANDOM] = "random",
	};
	struct trace_cfg cfg = { .readahead = TRACE_RA_MAX };

	if (!strcmp(mode, "preload")) {
		cfg.preload = true;
		mode = "ours";
	}
	for (int i = 0; i < TRACE_RA_MAX; i++)
		if (!strcmp(mode, modes[i]))
			cfg.readahead = (enum trace_readahead)i;
	if (cfg.readahead == TRACE_RA_MAX) {
		fprintf(stderr, "readbench: mode is ours, window, kernel, none, random, preload or libpcap\n");
		return -1;
	}

	if (trace_open(&s->t, path, &cfg) < 0) {
		fprintf(stderr, "readbench: %s\n", trace_strerror(s->t));
		return -1;
	}
	return 0;
}

/* One record: 1 with its bytes in *@data and its length in *@len, 0 at the end, -1 on error. */
static int src_next(struct src *s, const uint8_t **data, uint32_t *len)
{
	if (s->pc) {
		struct pcap_pkthdr *h;
		int rc = pcap_next_ex(s->pc, &h, data);

		if (rc == 1)
			*len = h->caplen;
		return rc == 1 ? 1 : rc == PCAP_ERROR_BREAK ? 0 : -1;
	} else {
		struct pkt p;
		int rc = trace_next(s->t, &p);

		if (rc != 1)
			return rc == 0 ? 0 : -1;
		*data = p.data;
		*len = p.caplen;
		return 1;
	}
}

static void src_close(struct src *s)
{
	if (s->pc)
		pcap_close(s->pc);
	trace_close(s->t);
}

static int drain(struct src *s)
{
	struct rusage ru;
	uint64_t n = 0, bytes = 0, t0 = now_ns(), t1;
	unsigned sum = 0;
	const uint8_t *d = NULL;
	uint32_t len = 0;
	int rc;

	while ((rc = src_next(s, &d, &len)) == 1) {
		if (len)
			sum += d[0] ^ d[len - 1];
		n++;
		bytes += len + 16;
	}
	t1 = now_ns();
	if (rc < 0)
		return -1;
	getrusage(RUSAGE_SELF, &ru);
	printf("records %" PRIu64 " bytes %" PRIu64 " seconds %.3f rec_per_s %.0f GB_per_s %.3f (sum %u)\n",
	       n, bytes, (t1 - t0) / 1e9, n / ((t1 - t0) / 1e9), bytes / (double)(t1 - t0), sum & 1);
	/* Counts, not times (they mean something on a loaded machine): the whole process, open included. */
	printf("faults minor %ld major %ld (exceptions and madvise(MADV_POPULATE_READ) alike), "
	       "context switches voluntary %ld involuntary %ld\n",
	       ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The machine is shared, so a long read may be the disk or the scheduler:
 * a read during which the thread blocked (a voluntary context switch, or a
 * major fault) waited for I/O; one that was only preempted did not.
 */
static void usage_now(long *vcsw, long *majflt)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	*vcsw = ru.ru_nvcsw;
	*majflt = ru.ru_majflt;
}

static int pace(struct src *s, double pps, double seconds)
{
	uint64_t n_max = (uint64_t)(pps * seconds), gap = (uint64_t)(1e9 / pps);
	uint64_t *lat = malloc(n_max * sizeof(*lat)), n = 0, over100 = 0, over1ms = 0, worst = 0;
	uint64_t late = 0, start, io_reads = 0, io_worst = 0;
	unsigned sum = 0;
	const uint8_t *d = NULL;
	uint32_t len = 0;

	if (!lat)
		return -1;
	start = now_ns() + 1000000;
	for (; n < n_max; n++) {
		uint64_t deadline = start + n * gap, t0, t1;
		long v0, m0, v1, m1;
		int rc;

		while ((t0 = now_ns()) < deadline)
			;
		usage_now(&v0, &m0);
		t0 = now_ns();
		rc = src_next(s, &d, &len);
		t1 = now_ns();
		if (rc != 1)
			break;
		if (len)
			sum += d[0] ^ d[len - 1];
		lat[n] = t1 - t0;
		over100 += lat[n] > 100000;
		over1ms += lat[n] > 1000000;
		worst = lat[n] > worst ? lat[n] : worst;
		late = t1 - deadline > late ? t1 - deadline : late;
		if (lat[n] > 20000) {
			usage_now(&v1, &m1);
			if (v1 != v0 || m1 != m0) {
				io_reads++;
				io_worst = lat[n] > io_worst ? lat[n] : io_worst;
			}
		}
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("reads %" PRIu64 " at %.0f pps: longest %.1f us, p99.9 %.1f us, p99 %.2f us, over 100 us %" PRIu64
	       ", over 1 ms %" PRIu64 ", waited for I/O %" PRIu64 " (longest %.1f us), worst lateness %.1f us (sum %u)\n",
	       n, pps, worst / 1e3, n ? lat[n * 999 / 1000] / 1e3 : 0, n ? lat[n * 99 / 100] / 1e3 : 0,
	       over100, over1ms, io_reads, io_worst / 1e3, late / 1e3, sum & 1);
	free(lat);
	return 0;
}

int main(int argc, char **argv)
{
	struct src s;
	int rc;

	if (argc < 4 || (strcmp(argv[1], "drain") && strcmp(argv[1], "pace")) ||
	    (!strcmp(argv[1], "pace") && argc < 5)) {
		fprintf(stderr, "usage: readbench drain MODE FILE | readbench pace MODE FILE PPS [SECONDS]\n");
		return 2;
	}
	if (src_open(&s, argv[2], argv[3]) < 0)
		return 1;
	if (!strcmp(argv[1], "drain"))
		rc = drain(&s);
	else
		rc = pace(&s, atof(argv[4]), argc > 5 ? atof(argv[5]) : 10);
	src_close(&s);
	return rc < 0 ? 1 : 0;
}
