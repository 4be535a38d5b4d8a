// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz --fragroute's rules over a frame (replay/frag.h): the input's first
 * two bytes are the length of a rules file, then the file, then one
 * Ethernet frame (copied into a buffer of exactly its size: ASan sees a
 * read past it).  Checks: every frame made lies inside the work buffer
 * and holds at least the Ethernet header; the same seed makes the same
 * frames; a frame that is not IP is refused as such, whatever the rules.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct frag_rules rules;
static uint8_t buf1[1u << 22], buf2[1u << 22];
static struct frag_out o1 = { .buf = buf1, .cap = sizeof(buf1) };
static struct frag_out o2 = { .buf = buf2, .cap = sizeof(buf2) };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t s1 = 7, s2 = 7;
	char err[512];
	size_t rl, fl;
	uint8_t *f;
	int n, m;

	if (size < 2)
		return 0;
	rl = (size_t)(data[0] << 8 | data[1]);
	if (rl > size - 2)
		rl = size - 2;
	if (frag_parse((const char *)data + 2, rl, "rules", &rules, err, sizeof(err)) < 0)
		return 0;
	fl = size - 2 - rl;
	if (fl > 65535 + 22)
		fl = 65535 + 22;
	f = malloc(fl ? fl : 1);
	if (!f)
		return 0;
	memcpy(f, data + 2 + rl, fl);
	n = frag_apply(&rules, f, (uint32_t)fl, &s1, &o1);
	m = frag_apply(&rules, f, (uint32_t)fl, &s2, &o2);
	if (n != m || s1 != s2)
		abort();
	if (n == -EPROTONOSUPPORT && fl >= 14 &&
	    ((f[12] == 0x08 && f[13] == 0x00) || (f[12] == 0x86 && f[13] == 0xdd)))
		abort();
	for (int i = 0; i < n; i++) {
		if (o1.len[i] < 14 || o1.off[i] > o1.cap || o1.len[i] > o1.cap - o1.off[i] ||
		    o1.len[i] != o2.len[i] || memcmp(buf1 + o1.off[i], buf2 + o2.off[i], o1.len[i]))
			abort();
	}
	free(f);
	return 0;
}
