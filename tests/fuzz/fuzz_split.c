// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the --split classifier (replay/split.h): the mode string's parser
 * and every mode's classification, learning pass included.
 * Input: byte 0 picks the mode (0-7: first, client, server, bridge, router,
 * cidr:, port, mac:); for cidr: and mac: the bytes up to the first NUL are
 * the list after the colon (for the others they are skipped); the rest is
 * packets, each a 16-bit little-endian length and that many frame bytes.
 *
 * Checks: nothing outside its buffer (ASan/UBSan) whatever the frames say;
 * a refused mode says why and leaves no object; every packet classified is
 * side 1 or 2; a failed learning pass says why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PKTS_MAX 512

static const char *const modes[] = { "first", "client", "server", "bridge",
				     "router", "cidr:", "port", "mac:" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkt p[PKTS_MAX];
	char mode[300], err[256];
	const uint8_t *arg, *end;
	struct split *s;
	size_t i = 1, n = 0, alen;
	unsigned m;

	if (size < 1)
		return 0;
	m = data[0] % 8;
	arg = data + 1;
	end = memchr(arg, 0, size - 1);
	alen = end ? (size_t)(end - arg) : size - 1;
	if (alen > 250)
		alen = 250;
	i = 1 + alen + (end ? 1 : 0);
	if (m == 5 || m == 7)
		snprintf(mode, sizeof(mode), "%s%.*s", modes[m], (int)alen, (const char *)arg);
	else
		snprintf(mode, sizeof(mode), "%s", modes[m]);
	if (split_open(&s, mode, err, sizeof(err)) < 0) {
		if (s || !err[0])
			abort(); /* a refusal leaves no object and says why */
		return 0;
	}
	while (i + 2 <= size && n < PKTS_MAX) {
		size_t len = (size_t)data[i] | (size_t)data[i + 1] << 8;

		i += 2;
		if (len > size - i)
			len = size - i;
		p[n] = (struct pkt){ .data = data + i, .caplen = (uint32_t)len, .wirelen = (uint32_t)len,
				     .linktype = LINKTYPE_ETHERNET, .recno = n + 1 };
		n++;
		i += len;
	}
	if (split_needs_pass(s)) {
		int rc = 0;

		for (size_t k = 0; k < n && rc == 0; k++)
			rc = split_learn(s, &p[k]);
		if (rc == 0)
			rc = split_learn_done(s);
		if (rc < 0) {
			if (!split_strerror(s)[0])
				abort();
			split_close(s);
			return 0;
		}
	}
	for (size_t k = 0; k < n; k++) {
		int side = split_classify(s, &p[k]);

		if (side != SPLIT_INTF1 && side != SPLIT_INTF2)
			abort();
	}
	split_close(s);
	return 0;
}
