// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the segmentation seam as a replay -w run crosses it: a trace of the
 * input's frames -> the reader -> the lane's cut (--segment) -> the pcap
 * file writer, whose output is read back.
 *
 * Input: byte 0 the MTU (--mtu 68 + 8 x byte 0: 68 to 2108); byte 1 flags
 * (bit 0: --batch 4, fewer than most cuts make; bit 1: --loop 2); then
 * frames, each a two-byte big-endian length and its bytes (the last takes
 * what is left).
 *
 * Checks: nothing outside its buffer (ASan/UBSan); a run's --stats-json
 * accounts for every frame: read + segments - segmented = sent + filtered +
 * failed; the written file reads back with one record per packet sent,
 * and a frame longer than the MTU takes is one sent whole (not IP), never
 * a segment.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/log.h"
#include "replay/run.h"
#include "replay/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPKT_MAX 16u
#define BROKEN(what)                                                                               \
	do {                                                                                       \
		fprintf(stderr, "fuzz_segment_loop: line %d: %s\n", __LINE__, what);               \
		abort();                                                                           \
	} while (0)

static char dir[64], trace_path[96], out_path[96], json_path[96];
static char json[8192];
static uint8_t pcap[24 + NPKT_MAX * 16 + 65536];

static void put32(uint8_t *b, uint32_t v)
{
	memcpy(b, &v, 4);
}

static uint64_t jget(const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (!p)
		BROKEN("a key missing from --stats-json");
	return strtoull(p + strlen(pat), NULL, 10);
}

static int init(void)
{
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/fuzz_segment_loop.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(trace_path, sizeof(trace_path), "%s/t.pcap", dir);
	snprintf(out_path, sizeof(out_path), "%s/o.pcap", dir);
	snprintf(json_path, sizeof(json_path), "%s/s.json", dir);
	log_init("fuzz_segment_loop", LOG_LVL_ERR);
	return 0;
}

/* The trace: a microsecond pcap in our byte order, one record per frame of the input; its size. */
static size_t make_trace(const uint8_t *d, size_t n)
{
	size_t off = 24;

	put32(pcap, 0xa1b2c3d4);
	pcap[4] = 2, pcap[5] = 0, pcap[6] = 4, pcap[7] = 0;
	memset(pcap + 8, 0, 8);
	put32(pcap + 16, 65535);
	put32(pcap + 20, 1);
	for (unsigned i = 0; i < NPKT_MAX && n; i++) {
		size_t len = n >= 2 ? (size_t)(d[0] << 8 | d[1]) : n;

		if (n >= 2)
			d += 2, n -= 2;
		if (len > n || i + 1 == NPKT_MAX)
			len = n;
		if (off + 16 + len > sizeof(pcap))
			break;
		put32(pcap + off, 100);
		put32(pcap + off + 4, i);
		put32(pcap + off + 8, (uint32_t)len);
		put32(pcap + off + 12, (uint32_t)len);
		memcpy(pcap + off + 16, d, len);
		off += 16 + len;
		d += len, n -= len;
	}
	return off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile sig_atomic_t stop = 0;
	char *argv[16], err[512], mtu[16];
	unsigned argc = 0, mtu_bytes;
	uint64_t nout = 0, longer = 0;
	size_t n;
	struct trace *t;
	struct opts *o;
	struct pkt p;
	int status, rc;
	FILE *f;

	if (size < 2 || init() < 0)
		return 0;
	mtu_bytes = 68 + 8u * data[0];
	n = make_trace(data + 2, size - 2);
	f = fopen(trace_path, "wb");
	if (!f || fwrite(pcap, 1, n, f) != n) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	snprintf(mtu, sizeof(mtu), "%u", mtu_bytes);
	argv[argc++] = "replay";
	argv[argc++] = "-q";
	argv[argc++] = "-t";
	argv[argc++] = "--segment";
	argv[argc++] = "--mtu";
	argv[argc++] = mtu;
	argv[argc++] = "-w";
	argv[argc++] = out_path;
	argv[argc++] = "--stats-json";
	argv[argc++] = json_path;
	if (data[1] & 1) {
		argv[argc++] = "--batch";
		argv[argc++] = "4";
	}
	if (data[1] & 2) {
		argv[argc++] = "--loop";
		argv[argc++] = "2";
	}
	argv[argc++] = trace_path;
	argv[argc] = NULL;
	o = malloc(sizeof(*o));
	if (!o)
		return 0;
	unlink(out_path);
	unlink(json_path);
	if (opts_parse(o, (int)argc, argv, err, sizeof(err)) < 0)
		BROKEN("the command line was refused");
	status = replay_main(o, &stop);
	free(o);
	f = fopen(json_path, "r");
	if (!f)
		return 0; /* the trace itself was refused before the run */
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	if (jget("packets_read") + jget("segments") - jget("packets_segmented") !=
	    jget("packets_sent") + jget("packets_filtered") + jget("packets_failed"))
		BROKEN("read + segments - segmented != sent + filtered + failed");
	if (status != 0)
		return 0;
	if (trace_open(&t, out_path, NULL) < 0)
		BROKEN("the written file does not read back");
	while ((rc = trace_next(t, &p)) == 1) {
		nout++;
		longer += p.caplen > 14u + 8u + mtu_bytes;
	}
	trace_close(t);
	if (rc < 0)
		BROKEN("the written file is broken");
	if (nout != jget("packets_sent"))
		BROKEN("records written != packets sent");
	/* Only a frame that is not IP is written longer than the MTU takes (as without --segment). */
	if (longer > jget("packets_sent") - jget("segments"))
		BROKEN("a frame longer than the MTU written among the segments");
	return 0;
}
