/* SPDX-License-Identifier: BSD-2-Clause */
/* Build traces in memory for reader tests: no temp files. */
#ifndef TRACEBUF_H
#define TRACEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracebuf {
	uint8_t *data;
	size_t len, cap;
	bool swap; /* write multi-byte fields in the other byte order */
};

#define PCAP_USEC 0xa1b2c3d4u
#define PCAP_NSEC 0xa1b23c4du
#define PCAP_MOD  0xa1b2cd34u

void tb_bytes(struct tracebuf *b, const void *p, size_t n);
void tb_u16(struct tracebuf *b, uint16_t v);
void tb_u32(struct tracebuf *b, uint32_t v);

/* tb_pcap_header() - classic pcap file header, version 2.4. */
void tb_pcap_header(struct tracebuf *b, uint32_t magic, uint32_t snaplen, uint32_t linktype);

/* tb_pcap_record() - record header and @caplen bytes of @data (or a pattern if NULL). */
void tb_pcap_record(struct tracebuf *b, uint32_t sec, uint32_t frac, uint32_t caplen,
		    uint32_t wirelen, const uint8_t *data);

/* tb_frame() - a deterministic test frame of @len bytes: Ethernet header, then a pattern seeded by @seed. */
void tb_frame(uint8_t *out, size_t len, unsigned seed);

void tb_free(struct tracebuf *b);

#endif
