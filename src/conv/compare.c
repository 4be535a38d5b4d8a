// SPDX-License-Identifier: BSD-2-Clause
/*
 * A live reply against the recorded one (replay/conv.h, conv_compare()).
 * Both streams are turned into units -- a byte, or one "masked" unit for
 * each masked stretch whatever its length -- each remembering where it
 * came from, and the units are compared; so a Date header of another
 * length, or an ETag, does not shift everything after it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay/conv.h"

#define UNIT_MASK 256u

int conv_mask_init(struct conv_mask *m, const char *const *headers, unsigned nh,
		   const char *const *regexes, unsigned nr, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (nh > CONV_MASK_MAX || nr > CONV_MASK_MAX) {
		snprintf(err, errlen, "at most %d masks of each kind", CONV_MASK_MAX);
		return -EINVAL;
	}
	for (unsigned i = 0; i < nh; i++)
		m->header[m->nheader++] = headers[i];
	for (unsigned i = 0; i < nr; i++) {
		int rc = regcomp(&m->re[i], regexes[i], REG_EXTENDED);

		if (rc) {
			char why[200];

			regerror(rc, &m->re[i], why, sizeof(why));
			snprintf(err, errlen, "'%s': %s", regexes[i], why);
			conv_mask_free(m);
			return -EINVAL;
		}
		m->nre++;
	}
	return 0;
}

void conv_mask_free(struct conv_mask *m)
{
	if (!m)
		return;
	for (unsigned i = 0; i < m->nre; i++)
		regfree(&m->re[i]);
	m->nre = 0;
	m->nheader = 0;
}

struct range {
	size_t lo, hi;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

static int add_range(struct ranges *r, size_t lo, size_t hi)
{
	if (hi <= lo)
		return 0;
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 16;
		struct range *v = realloc(r->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = nc;
	}
	r->v[r->n++] = (struct range){ lo, hi };
	return 0;
}

static const uint8_t *find(const uint8_t *b, size_t n, const char *s)
{
	return memmem(b, n, s, strlen(s));
}

/* The masked header values of the header block at @b (up to its empty line at @end). */
static int mask_headers(const struct conv_mask *m, const uint8_t *s, size_t lo, size_t end,
			struct ranges *r, uint64_t *clen, bool *has_clen)
{
	size_t p = lo;

	*has_clen = false;
	while (p < end) {
		const uint8_t *eol = find(s + p, end - p, "\r\n");
		size_t le = eol ? (size_t)(eol - s) : end, colon;
		const uint8_t *c = memchr(s + p, ':', le - p);

		if (c) {
			size_t v;

			colon = (size_t)(c - s);
			for (v = colon + 1; v < le && (s[v] == ' ' || s[v] == '\t'); v++)
				;
			for (unsigned i = 0; i < m->nheader; i++)
				if (strlen(m->header[i]) == colon - p &&
				    !strncasecmp((const char *)s + p, m->header[i], colon - p) &&
				    add_range(r, v, le) < 0)
					return -ENOMEM;
			if (colon - p == 14 && !strncasecmp((const char *)s + p, "Content-Length", 14)) {
				uint64_t n = 0;

				for (size_t k = v; k < le && isdigit(s[k]) && n < (1ull << 40); k++)
					n = n * 10 + (uint64_t)(s[k] - '0');
				*clen = n;
				*has_clen = true;
			}
		}
		p = le + 2;
	}
	return 0;
}

/* Every header block of an HTTP/1 stream, bodies skipped by Content-Length. */
static int http_ranges(const struct conv_mask *m, const uint8_t *s, size_t n, struct ranges *r)
{
	size_t p = 0;

	while (p < n) {
		const uint8_t *h = p + 7 <= n && !memcmp(s + p, "HTTP/1.", 7) ? s + p
										: find(s + p, n - p, "HTTP/1.");
		const uint8_t *e;
		uint64_t clen = 0;
		bool has;
		size_t lo, end;

		if (!h)
			break;
		lo = (size_t)(h - s);
		if (lo != p && s[lo - 1] != '\n') {
			p = lo + 7;
			continue;
		}
		e = find(s + lo, n - lo, "\r\n\r\n");
		end = e ? (size_t)(e - s) + 2 : n;
		if (mask_headers(m, s, lo, end, r, &clen, &has) < 0)
			return -ENOMEM;
		p = end + 2;
		if (has && clen <= n - (p < n ? p : n))
			p += clen;
	}
	return 0;
}

/*
 * Every match of @re in @s, which is NUL-terminated at @n (REG_STARTEND
 * needs no terminator, but sanitizers' regexec() checks the string as a C
 * string; bytes past a NUL inside are searched all the same).
 */
static int regex_ranges(const regex_t *re, const uint8_t *s, size_t n, struct ranges *r)
{
	size_t p = 0;

	while (p <= n) {
		regmatch_t mt = { .rm_so = (regoff_t)p, .rm_eo = (regoff_t)n };

		/* REG_STARTEND: the stream is bytes, NULs and all, not a C string. */
		if (regexec(re, (const char *)s, 1, &mt, REG_STARTEND | (p ? REG_NOTBOL : 0)))
			break;
		if (add_range(r, (size_t)mt.rm_so, (size_t)mt.rm_eo) < 0)
			return -ENOMEM;
		p = (size_t)mt.rm_eo > (size_t)mt.rm_so ? (size_t)mt.rm_eo : (size_t)mt.rm_so + 1;
	}
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct units {
	uint16_t *u;
	size_t *from; /* offset in the stream of each unit */
	size_t n;
};

static int to_units(const struct conv_mask *m, const uint8_t *s, size_t n, struct units *out)
{
	struct ranges r = { 0 };
	size_t k = 0, ri = 0;
	int rc = -ENOMEM;

	out->u = malloc((n + 1) * sizeof(*out->u));
	out->from = malloc((n + 1) * sizeof(*out->from));
	if (!out->u || !out->from)
		goto out;
	if (m && m->nheader && http_ranges(m, s, n, &r) < 0)
		goto out;
	if (m && m->nre) {
		uint8_t *z = malloc(n + 1);

		if (!z)
			goto out;
		memcpy(z, s, n);
		z[n] = '\0';
		for (unsigned i = 0; i < m->nre; i++)
			if (regex_ranges(&m->re[i], z, n, &r) < 0) {
				free(z);
				goto out;
			}
		free(z);
	}
	if (r.n)
		qsort(r.v, r.n, sizeof(*r.v), range_cmp);
	for (size_t p = 0; p < n;) {
		while (ri < r.n && r.v[ri].hi <= p)
			ri++;
		if (ri < r.n && r.v[ri].lo <= p) {
			size_t hi = r.v[ri].hi;

			/* Overlapping masks make one stretch. */
			while (ri + 1 < r.n && r.v[ri + 1].lo <= hi) {
				ri++;
				if (r.v[ri].hi > hi)
					hi = r.v[ri].hi;
			}
			out->u[k] = UNIT_MASK;
			out->from[k++] = p;
			p = hi;
			continue;
		}
		out->u[k] = s[p];
		out->from[k++] = p++;
	}
	out->from[k] = n;
	out->n = k;
	rc = 0;
out:
	free(r.v);
	return rc;
}

int conv_compare(const struct conv_mask *m, enum conv_cmp mode, const uint8_t *rec, size_t rlen,
		 const uint8_t *live, size_t llen, struct conv_diff *d)
{
	struct units a = { 0 }, b = { 0 };
	size_t i;
	int rc = -ENOMEM;

	memset(d, 0, sizeof(*d));
	if (mode == CONV_CMP_NONE) {
		d->equal = true;
		return 0;
	}
	if (mode == CONV_CMP_LENGTH) {
		d->equal = rlen == llen;
		d->rec_off = d->live_off = rlen < llen ? rlen : llen;
		return 0;
	}
	if (!m || (!m->nheader && !m->nre)) {
		/* Nothing masked: the bytes themselves, without the units' memory (ten bytes a byte). */
		for (i = 0; i < rlen && i < llen && rec[i] == live[i]; i++)
			;
		d->equal = i == rlen && i == llen;
		d->rec_off = d->live_off = i;
		return 0;
	}
	if (to_units(m, rec, rlen, &a) < 0 || to_units(m, live, llen, &b) < 0)
		goto out;
	for (i = 0; i < a.n && i < b.n && a.u[i] == b.u[i]; i++)
		;
	d->equal = i == a.n && i == b.n;
	d->rec_off = a.from[i];
	d->live_off = b.from[i];
	rc = 0;
out:
	free(a.u);
	free(a.from);
	free(b.u);
	free(b.from);
	return rc;
}

char *conv_escape(char *out, size_t outlen, const uint8_t *b, size_t n)
{
	size_t o = 0;

	if (!outlen)
		return out;
	for (size_t i = 0; i < n; i++) {
		char e[8];
		int k;

		switch (b[i]) {
		case '\r': k = snprintf(e, sizeof(e), "\\r"); break;
		case '\n': k = snprintf(e, sizeof(e), "\\n"); break;
		case '\t': k = snprintf(e, sizeof(e), "\\t"); break;
		case '\\': k = snprintf(e, sizeof(e), "\\\\"); break;
		case '"': k = snprintf(e, sizeof(e), "\\\""); break;
		default:
			k = b[i] >= 0x20 && b[i] < 0x7f ? snprintf(e, sizeof(e), "%c", b[i])
							: snprintf(e, sizeof(e), "\\x%02x", b[i]);
		}
		if (o + (size_t)k >= outlen)
			break;
		memcpy(out + o, e, (size_t)k);
		o += (size_t)k;
	}
	out[o] = '\0';
	return out;
}
