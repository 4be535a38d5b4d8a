// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the impairment seam as a replay -w run crosses it: a trace the input
 * describes -> the send loop's impairment stage (src/run/impairing.c:
 * the engine, the deadline queue, the slab of held frames, corruption on a
 * private copy) -> the pcap file writer, whose output is read back.
 *
 * Input: byte 0 flags (bit 0: a netem-like model instead of a trace; bits
 * 1-2: --impair-limit 1, 2, 3 or the default; bit 3: --topspeed; bit 4:
 * --loop 2; bit 5: --impair-flow "greater 100"; bit 6: a snaplen of 128,
 * shorter than some frames, so that a frame too long for a slot fails,
 * named); byte 1 the packet count (1..24); two bytes per packet (its length,
 * 14..269, and the gap before it, in 37 us steps); the rest is the
 * impairment trace (any bytes, as a file) or the model's spec (a string).
 *
 * Checks: nothing outside its buffer (ASan/UBSan); a run that ends 0 wrote
 * a file that reads back with one record for each packet sent, each as long
 * as one of the trace's packets, timestamps never going back (the loop
 * always sends the earlier of the source and the queue); and read + copies
 * = sent + filtered + failed + impaired-dropped in its --stats-json.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/run.h"
#include "replay/log.h"
#include "replay/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPKT_MAX 24u
#define BROKEN(what)                                                                               \
	do {                                                                                       \
		fprintf(stderr, "fuzz_impair_loop: line %d: %s\n", __LINE__, what);                \
		abort();                                                                           \
	} while (0)

static char dir[64], trace_path[96], imp_path[96], out_path[96], json_path[96];
static char json[8192];

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
	snprintf(dir, sizeof(dir), "/tmp/fuzz_impair_loop.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(trace_path, sizeof(trace_path), "%s/t.pcap", dir);
	snprintf(imp_path, sizeof(imp_path), "%s/i.imp", dir);
	snprintf(out_path, sizeof(out_path), "%s/o.pcap", dir);
	snprintf(json_path, sizeof(json_path), "%s/s.json", dir);
	log_init("fuzz_impair_loop", LOG_LVL_ERR);
	return 0;
}

static int write_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (fwrite(b, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pcap[24 + NPKT_MAX * (16 + 270)];
	static char spec[512];
	uint32_t lens[NPKT_MAX];
	volatile sig_atomic_t stop = 0;
	char *argv[24], err[512];
	char limit[8];
	unsigned npkt, flags, argc = 0;
	size_t off = 24, rest;
	uint64_t t_us = 0, prev_ts = 0, nout = 0;
	struct trace *t;
	struct opts *o;
	struct pkt p;
	int status, rc;
	FILE *f;

	if (size < 2 || init() < 0)
		return 0;
	flags = data[0];
	npkt = 1 + data[1] % NPKT_MAX;
	if (size < 2 + 2 * (size_t)npkt)
		return 0;
	/* The trace: a microsecond pcap in our byte order. */
	put32(pcap, 0xa1b2c3d4);
	pcap[4] = 2, pcap[5] = 0, pcap[6] = 4, pcap[7] = 0;
	memset(pcap + 8, 0, 8);
	put32(pcap + 16, flags & 0x40 ? 128 : 65535);
	put32(pcap + 20, 1);
	for (unsigned i = 0; i < npkt; i++) {
		uint32_t len = 14 + data[2 + 2 * i], ts;

		t_us += data[3 + 2 * i] * 37u;
		ts = (uint32_t)t_us;
		lens[i] = len;
		put32(pcap + off, 100 + ts / 1000000);
		put32(pcap + off + 4, ts % 1000000);
		put32(pcap + off + 8, len);
		put32(pcap + off + 12, len);
		for (uint32_t k = 0; k < len; k++)
			pcap[off + 16 + k] = (uint8_t)(k < 12 ? 0x02 : i + k);
		off += 16 + len;
	}
	if (write_file(trace_path, pcap, off) < 0)
		return 0;
	data += 2 + 2 * (size_t)npkt;
	rest = size - 2 - 2 * (size_t)npkt;

	argv[argc++] = "replay";
	argv[argc++] = "-q";
	argv[argc++] = "-w";
	argv[argc++] = out_path;
	argv[argc++] = "--stats-json";
	argv[argc++] = json_path;
	if (flags & 1) {
		size_t n = rest < sizeof(spec) - 1 ? rest : sizeof(spec) - 1;

		memcpy(spec, data, n);
		spec[n] = '\0';
		argv[argc++] = "--impair-stat";
		argv[argc++] = spec;
	} else {
		if (write_file(imp_path, data, rest) < 0)
			return 0;
		argv[argc++] = "--impair";
		argv[argc++] = imp_path;
		argv[argc++] = "--impair-repeat";
		argv[argc++] = "2";
		if (flags & 0x20) {
			argv[argc++] = "--impair-flow";
			argv[argc++] = "greater 100";
		}
	}
	if ((flags >> 1) & 3) {
		snprintf(limit, sizeof(limit), "%u", (flags >> 1) & 3);
		argv[argc++] = "--impair-limit";
		argv[argc++] = limit;
	}
	if (flags & 0x08)
		argv[argc++] = "--topspeed";
	if (flags & 0x10) {
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
	err[0] = '\0';
	if (opts_parse(o, (int)argc, argv, err, sizeof(err)) < 0) {
		if (!err[0])
			BROKEN("a refusal without a reason");
		free(o);
		return 0;
	}
	status = replay_main(o, &stop);
	free(o);
	if (status != 0)
		return 0;
	f = fopen(json_path, "r");
	if (!f)
		BROKEN("a run that ended 0 wrote no --stats-json");
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	if (jget("packets_read") + jget("impair_copies") !=
	    jget("packets_sent") + jget("packets_filtered") + jget("packets_failed") +
		    jget("packets_impair_dropped"))
		BROKEN("read + copies != sent + filtered + failed + impaired-dropped");
	if (trace_open(&t, out_path, NULL) < 0)
		BROKEN("the written file does not read back");
	while ((rc = trace_next(t, &p)) == 1) {
		bool known = false;

		for (unsigned i = 0; i < npkt && !known; i++)
			known = p.caplen == lens[i];
		if (!known)
			BROKEN("a written frame as long as no packet of the trace");
		if (p.ts_ns < prev_ts)
			BROKEN("timestamps going back: the loop sent a later frame first");
		prev_ts = p.ts_ns;
		nout++;
	}
	trace_close(t);
	if (rc < 0)
		BROKEN("the written file is broken");
	if (nout != jget("packets_sent"))
		BROKEN("records written != packets sent");
	return 0;
}
