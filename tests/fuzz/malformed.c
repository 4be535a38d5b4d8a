// SPDX-License-Identifier: BSD-2-Clause
/*
 * A large, deterministic corpus of malformed traces, run through every
 * reader as the fuzz targets do (fuzz_common.h): good traces of each format
 * -- classic pcap in each encoding, pcapng with two sections, options,
 * skipped blocks, SPB/PB and converted link types, ERF with extension
 * headers, padding, IP and META records -- cut at every byte, every byte
 * replaced by boundary values, every aligned word by absurd, zero and
 * off-by-one lengths in both byte orders.  Each must end in a clean error or
 * a clean stop, the same from memory and from a pipe; ASan and UBSan (the
 * sanitizer build) catch what that cannot see.  Tens of thousands of files,
 * no files: all built in memory.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "tracebuf.h"

static char current[160]; /* the mutation being run, for a crash report */

static void on_crash(int sig)
{
	/* async-signal-safe: write(2) only */
	static const char msg[] = "malformed: crashed on ";

	(void)!write(2, msg, sizeof(msg) - 1);
	(void)!write(2, current, strlen(current));
	(void)!write(2, "\n", 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Run one input from an exactly-sized heap copy, so ASan sees a read past its
 * end; with @probe also as an unnamed format (the magic may have changed).
 */
static void run(const uint8_t *data, size_t len, const char *format, bool probe)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		abort();
	memcpy(copy, data, len);
	fuzz_reader(copy, len, format);
	if (probe)
		fuzz_reader(copy, len, NULL);
	free(copy);
}

static unsigned long mutate_all(const char *name, const struct tracebuf *seed, const char *format)
{
	static const uint8_t bytes[] = { 0x00, 0xff, 0x80, 0x7f, 0x01, 0x0c };
	/* lengths: absurd, just past the caps, zero, and around the block and header minimums */
	static const uint32_t words[] = { 0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x00100000u,
					  0x00100004u, 0x00040000u, 0x00040001u, 11, 12, 13, 16, 28,
					  0x0c000000u, 0x1c000000u };
	uint8_t *b = malloc(seed->len);
	unsigned long n = 0;

	if (!b)
		abort();
	for (size_t cut = 0; cut <= seed->len; cut++, n++) {
		snprintf(current, sizeof(current), "%s cut at %zu", name, cut);
		run(seed->data, cut, format, cut < 64);
	}
	for (size_t i = 0; i < seed->len; i++) {
		for (size_t k = 0; k < sizeof(bytes); k++, n++) {
			memcpy(b, seed->data, seed->len);
			b[i] = bytes[k];
			snprintf(current, sizeof(current), "%s byte %zu = 0x%02x", name, i, bytes[k]);
			run(b, seed->len, format, i < 12);
		}
		memcpy(b, seed->data, seed->len);
		b[i] ^= 0x80;
		run(b, seed->len, format, i < 12);
		n++;
	}
	for (size_t i = 0; i + 4 <= seed->len; i += 2) {
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++, n++) {
			memcpy(b, seed->data, seed->len);
			memcpy(b + i, &words[k], 4);
			snprintf(current, sizeof(current), "%s word %zu = 0x%08x", name, i, words[k]);
			run(b, seed->len, format, i < 12);
		}
	}
	free(b);
	printf("%s: %lu malformed variants, all clean\n", name, n);
	return n;
}

static void seed_pcap(struct tracebuf *b, uint32_t magic, bool swap, uint32_t linktype)
{
	*b = (struct tracebuf){ .swap = swap };
	tb_pcap_header(b, magic, 128, linktype);
	tb_pcap_record(b, 1700000000, 1, 60, 60, NULL);
	tb_pcap_record(b, 1700000000, 2, 20, 1000, NULL);
	tb_pcap_record(b, 1700000001, 3, 130, 90, NULL);
}

static void seed_pcapng(struct tracebuf *b)
{
	static const uint8_t sll[36] = { 0, 1, 0, 1, 0, 6, 2, 1, 2, 3, 4, 5, 0, 0, 8, 0, 0x45 };
	static const uint8_t raw[24] = { 0x60, 0, 0, 0, 0, 0, 17, 64 };
	struct tracebuf body = { 0 };
	int64_t off = -5;
	uint32_t flags = 4u << 5;

	*b = (struct tracebuf){ 0 };
	tb_ng_shb(b);
	tb_ng_idb(b, LINKTYPE_ETHERNET, 96, 9, &off, 4);
	tb_ng_idb(b, LINKTYPE_LINUX_SLL, 0, 0x80 | 32, NULL, -1);
	tb_ng_epb(b, 0, 1700000000000000000ull, 64, 64, NULL, &flags);
	tb_ng_epb(b, 1, 1ull << 62, sizeof(sll), sizeof(sll), sll, NULL);
	tb_u32(&body, 0x7f5a);
	tb_ng_block(b, 0x00000bad, &body);
	tb_ng_spb(b, 100, NULL, 40);
	b->swap = true;
	body.swap = true;
	tb_ng_shb(b);
	tb_ng_idb(b, LINKTYPE_RAW, 0, 6, NULL, -1);
	tb_ng_pb(b, 0, 1700000000000000ull, sizeof(raw), sizeof(raw), raw);
	tb_ng_block(b, 4, &body);
	tb_ng_epb(b, 0, 1700000000000001ull, 20, 20, raw, NULL);
	tb_free(&body);
}

static void seed_erf(struct tracebuf *b)
{
	static const uint8_t ip4[20] = { 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2 };
	uint64_t ts = 1700000000ull << 32;

	*b = (struct tracebuf){ 0 };
	tb_erf(b, ts, 2, 0, 0, 64, 0, NULL, 60, 0);
	tb_erf(b, ts + 1, 27, 0, 0, 0, 0, NULL, 12, 0);
	tb_erf(b, ts + 2, 2, 1, 0, 68, 2, NULL, 68, 8);
	tb_erf(b, ts + 3, 22, 2, 1, 20, 1, ip4, 20, 8);
	tb_erf(b, ts + 4, 11, 3, 9, 1518, 0, NULL, 40, 0);
}

int main(void)
{
	struct tracebuf b;
	unsigned long n = 0;

	signal(SIGABRT, on_crash);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	seed_pcap(&b, PCAP_USEC, false, 1);
	n += mutate_all("pcap-usec-le", &b, "pcap");
	tb_free(&b);
	seed_pcap(&b, PCAP_NSEC, true, 1u | 0x04000000u | 2u << 28);
	n += mutate_all("pcap-nsec-be-fcs", &b, "pcap");
	tb_free(&b);
	seed_pcap(&b, PCAP_USEC, true, LINKTYPE_LINUX_SLL2);
	n += mutate_all("pcap-usec-be-sll2", &b, "pcap");
	tb_free(&b);
	seed_pcapng(&b);
	n += mutate_all("pcapng", &b, "pcapng");
	tb_free(&b);
	seed_erf(&b);
	n += mutate_all("erf", &b, "erf");
	tb_free(&b);
	printf("%lu malformed traces in all\n", n);
	return 0;
}
