// SPDX-License-Identifier: BSD-2-Clause
/* Which recorded conversation a live client is (replay/conv.h, conv_match()). */
#include <errno.h>

#include "replay/conv.h"

size_t conv_echo_len(const uint8_t *req, size_t rlen, const uint8_t *rsp, size_t slen)
{
	size_t n = 0;

	while (n < 8 && n < rlen && n < slen && req[n] == rsp[n])
		n++;
	return n;
}

int conv_match(const struct conv_cand *cand, unsigned n, const unsigned *uses, const uint8_t *got,
	       size_t len, size_t skip, enum conv_match_kind *kind)
{
	int best = -ENOENT;
	bool bexact = false;
	size_t blcp = 0, bsame = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct conv_cand *c = &cand[i];
		size_t lcp = skip, same = 0, m = c->len < len ? c->len : len;
		bool exact, better;

		while (lcp < m && c->data[lcp] == got[lcp])
			lcp++;
		for (size_t k = skip; k < m; k++)
			same += c->data[k] == got[k];
		exact = c->first_len && len >= c->first_len && lcp >= c->first_len;
		if (best < 0)
			better = true;
		else if (exact != bexact)
			better = exact;
		else if (lcp != blcp)
			better = lcp > blcp;
		else if (same != bsame)
			better = same > bsame;
		else
			better = uses && uses[i] < uses[best];
		if (better) {
			best = (int)i;
			bexact = exact;
			blcp = lcp;
			bsame = same;
		}
	}
	if (kind && best >= 0)
		*kind = bexact ? CONV_MATCH_EXACT : blcp > skip || bsame ? CONV_MATCH_PREFIX : CONV_MATCH_ORDER;
	return best;
}
