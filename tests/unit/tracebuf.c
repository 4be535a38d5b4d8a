// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "tracebuf.h"

void tb_bytes(struct tracebuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->data = realloc(b->data, b->cap);
		if (!b->data)
			abort();
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void tb_u16(struct tracebuf *b, uint16_t v)
{
	if (b->swap)
		v = __builtin_bswap16(v);
	tb_bytes(b, &v, 2);
}

void tb_u32(struct tracebuf *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	tb_bytes(b, &v, 4);
}

void tb_pcap_header(struct tracebuf *b, uint32_t magic, uint32_t snaplen, uint32_t linktype)
{
	tb_u32(b, magic);
	tb_u16(b, 2);
	tb_u16(b, 4);
	tb_u32(b, 0);
	tb_u32(b, 0);
	tb_u32(b, snaplen);
	tb_u32(b, linktype);
}

void tb_frame(uint8_t *out, size_t len, unsigned seed)
{
	static const uint8_t hdr[14] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00 };

	for (size_t i = 0; i < len; i++)
		out[i] = i < sizeof(hdr) ? hdr[i] : (uint8_t)(seed * 31 + i * 7);
}

void tb_pcap_record(struct tracebuf *b, uint32_t sec, uint32_t frac, uint32_t caplen,
		    uint32_t wirelen, const uint8_t *data)
{
	tb_u32(b, sec);
	tb_u32(b, frac);
	tb_u32(b, caplen);
	tb_u32(b, wirelen);
	if (data) {
		tb_bytes(b, data, caplen);
	} else {
		uint8_t *f = malloc(caplen ? caplen : 1);

		if (!f)
			abort();
		tb_frame(f, caplen, sec ^ frac);
		tb_bytes(b, f, caplen);
		free(f);
	}
}

void tb_ng_block(struct tracebuf *b, uint32_t type, const struct tracebuf *body)
{
	static const uint8_t zero[4];
	uint32_t len = 12 + (uint32_t)((body->len + 3) & ~(size_t)3);

	tb_u32(b, type);
	tb_u32(b, len);
	tb_bytes(b, body->data, body->len);
	tb_bytes(b, zero, (4 - body->len % 4) % 4);
	tb_u32(b, len);
}

void tb_ng_opt(struct tracebuf *body, uint16_t code, const void *val, uint16_t len)
{
	static const uint8_t zero[4];

	tb_u16(body, code);
	tb_u16(body, len);
	tb_bytes(body, val, len);
	tb_bytes(body, zero, (4 - len % 4) % 4);
}

void tb_ng_opt_end(struct tracebuf *body)
{
	tb_u16(body, 0);
	tb_u16(body, 0);
}

void tb_ng_shb(struct tracebuf *b)
{
	struct tracebuf body = { .swap = b->swap };

	tb_u32(&body, 0x1a2b3c4d);
	tb_u16(&body, 1);
	tb_u16(&body, 0);
	tb_u32(&body, 0xffffffff);
	tb_u32(&body, 0xffffffff);
	tb_ng_block(b, 0x0a0d0d0a, &body);
	tb_free(&body);
}

void tb_ng_idb(struct tracebuf *b, uint16_t linktype, uint32_t snaplen, int tsresol,
	       const int64_t *tsoffset, int fcslen)
{
	struct tracebuf body = { .swap = b->swap };
	bool opts = tsresol >= 0 || tsoffset || fcslen >= 0;

	tb_u16(&body, linktype);
	tb_u16(&body, 0);
	tb_u32(&body, snaplen);
	if (tsresol >= 0) {
		uint8_t r = (uint8_t)tsresol;

		tb_ng_opt(&body, 9, &r, 1);
	}
	if (tsoffset) {
		uint64_t v = (uint64_t)*tsoffset;

		if (b->swap)
			v = __builtin_bswap64(v);
		tb_ng_opt(&body, 14, &v, 8);
	}
	if (fcslen >= 0) {
		uint8_t f = (uint8_t)fcslen;

		tb_ng_opt(&body, 13, &f, 1);
	}
	if (opts)
		tb_ng_opt_end(&body);
	tb_ng_block(b, 1, &body);
	tb_free(&body);
}

static void tb_data(struct tracebuf *body, const uint8_t *data, uint32_t len, unsigned seed)
{
	if (data) {
		tb_bytes(body, data, len);
	} else {
		uint8_t *f = malloc(len ? len : 1);

		if (!f)
			abort();
		tb_frame(f, len, seed);
		tb_bytes(body, f, len);
		free(f);
	}
}

static void tb_pad4(struct tracebuf *b)
{
	static const uint8_t zero[4];

	tb_bytes(b, zero, (4 - b->len % 4) % 4);
}

void tb_ng_epb(struct tracebuf *b, uint32_t ifid, uint64_t ts_units, uint32_t caplen,
	       uint32_t origlen, const uint8_t *data, const uint32_t *flags)
{
	struct tracebuf body = { .swap = b->swap };

	tb_u32(&body, ifid);
	tb_u32(&body, (uint32_t)(ts_units >> 32));
	tb_u32(&body, (uint32_t)ts_units);
	tb_u32(&body, caplen);
	tb_u32(&body, origlen);
	tb_data(&body, data, caplen, (unsigned)ts_units);
	tb_pad4(&body);
	if (flags) {
		uint32_t v = b->swap ? __builtin_bswap32(*flags) : *flags;

		tb_ng_opt(&body, 2, &v, 4);
		tb_ng_opt_end(&body);
	}
	tb_ng_block(b, 6, &body);
	tb_free(&body);
}

void tb_ng_pb(struct tracebuf *b, uint16_t ifid, uint64_t ts_units, uint32_t caplen,
	      uint32_t origlen, const uint8_t *data)
{
	struct tracebuf body = { .swap = b->swap };

	tb_u16(&body, ifid);
	tb_u16(&body, 0); /* drops count */
	tb_u32(&body, (uint32_t)(ts_units >> 32));
	tb_u32(&body, (uint32_t)ts_units);
	tb_u32(&body, caplen);
	tb_u32(&body, origlen);
	tb_data(&body, data, caplen, (unsigned)ts_units);
	tb_ng_block(b, 2, &body);
	tb_free(&body);
}

void tb_ng_spb(struct tracebuf *b, uint32_t origlen, const uint8_t *data, uint32_t datalen)
{
	struct tracebuf body = { .swap = b->swap };

	tb_u32(&body, origlen);
	tb_data(&body, data, datalen, origlen);
	tb_ng_block(b, 3, &body);
	tb_free(&body);
}

void tb_erf(struct tracebuf *b, uint64_t ts, uint8_t type, uint8_t flags, uint16_t lctr,
	    uint16_t wlen, unsigned next, const uint8_t *payload, size_t plen, size_t pad_to)
{
	bool eth = type == 2 || type == 11 || type == 16 || type == 20;
	size_t rlen = 16 + 8 * next + (eth ? 2 : 0) + plen;
	uint8_t h[16];

	if (pad_to)
		rlen = (rlen + pad_to - 1) / pad_to * pad_to;
	for (int i = 0; i < 8; i++)
		h[i] = (uint8_t)(ts >> (8 * i));
	h[8] = (uint8_t)(type | (next ? 0x80 : 0));
	h[9] = flags;
	h[10] = (uint8_t)(rlen >> 8), h[11] = (uint8_t)rlen;
	h[12] = (uint8_t)(lctr >> 8), h[13] = (uint8_t)lctr;
	h[14] = (uint8_t)(wlen >> 8), h[15] = (uint8_t)wlen;
	tb_bytes(b, h, 16);
	for (unsigned i = 0; i < next; i++) {
		uint8_t e[8] = { (uint8_t)((i + 1 < next ? 0x80 : 0) | 3), 0, 0, 0, 0, 0, 0, (uint8_t)i };

		tb_bytes(b, e, 8);
	}
	if (eth)
		tb_bytes(b, "\0\0", 2);
	tb_data(b, payload, (uint32_t)plen, (unsigned)ts);
	for (size_t i = 16 + 8 * next + (eth ? 2 : 0) + plen; i < rlen; i++)
		tb_bytes(b, "\xee", 1);
}

void tb_free(struct tracebuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
