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

void tb_free(struct tracebuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
