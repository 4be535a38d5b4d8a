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

/*
 * pcapng, in the byte order b->swap selects.  A block is built by writing its
 * body (fields, then options with tb_ng_opt() and tb_ng_opt_end()) into a
 * scratch tracebuf of the same byte order, then wrapping it with
 * tb_ng_block(), which adds type, lengths and padding.
 */
void tb_ng_block(struct tracebuf *b, uint32_t type, const struct tracebuf *body);
void tb_ng_opt(struct tracebuf *body, uint16_t code, const void *val, uint16_t len);
void tb_ng_opt_end(struct tracebuf *body);
/* tb_ng_shb() - Section Header Block 1.0, section length unknown, no options. */
void tb_ng_shb(struct tracebuf *b);
/* tb_ng_idb() - IDB; @tsresol < 0: no if_tsresol; @tsoffset NULL: no if_tsoffset; @fcslen < 0: none. */
void tb_ng_idb(struct tracebuf *b, uint16_t linktype, uint32_t snaplen, int tsresol,
	       const int64_t *tsoffset, int fcslen);
/* tb_ng_epb() - Enhanced Packet Block of @caplen bytes of @data (a pattern if NULL); @flags NULL: no epb_flags. */
void tb_ng_epb(struct tracebuf *b, uint32_t ifid, uint64_t ts_units, uint32_t caplen,
	       uint32_t origlen, const uint8_t *data, const uint32_t *flags);
/* tb_ng_pb() - the obsolete Packet Block. */
void tb_ng_pb(struct tracebuf *b, uint16_t ifid, uint64_t ts_units, uint32_t caplen,
	      uint32_t origlen, const uint8_t *data);
/* tb_ng_spb() - Simple Packet Block holding @datalen bytes of @data. */
void tb_ng_spb(struct tracebuf *b, uint32_t origlen, const uint8_t *data, uint32_t datalen);

/*
 * tb_erf() - one ERF record: @ts is 32.32 fixed point; @next extension
 * headers; for Ethernet types the 2-byte pad goes before @payload; @pad_to
 * rounds the record length up (DAG cards pad to 8), filling with 0xee.
 */
void tb_erf(struct tracebuf *b, uint64_t ts, uint8_t type, uint8_t flags, uint16_t lctr,
	    uint16_t wlen, unsigned next, const uint8_t *payload, size_t plen, size_t pad_to);

void tb_free(struct tracebuf *b);

#endif
