// SPDX-License-Identifier: BSD-2-Clause
/* The streaming JSON writer (replay/json.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "replay/json.h"

void json_init(struct json *w, FILE *f)
{
	*w = (struct json){ .f = f };
}

static bool fail(struct json *w)
{
	if (!w->err)
		w->err = -EINVAL;
	return false;
}

/*
 * The length of the well-formed UTF-8 sequence at @s (RFC 3629 section 4,
 * the Unicode standard's table 3-7), with its code point in *@cp; 0 if
 * the bytes there are not one (an overlong form, a surrogate, above
 * U+10FFFF, a stray or missing continuation byte).
 */
static unsigned utf8_seq(const unsigned char *s, uint32_t *cp)
{
	unsigned n, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		*cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		*cp = s[0] & 0x0f;
		if (s[0] == 0xe0)
			lo = 0xa0; /* no overlong forms */
		else if (s[0] == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		*cp = s[0] & 0x07;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f; /* nothing above U+10FFFF */
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		/* A NUL ends the string here: it is below lo, so the read stops at it. */
		if (s[i] < lo || s[i] > hi)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

static void put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		uint32_t cp;
		unsigned n;

		if (*s == '"' || *s == '\\') {
			putc('\\', f);
			putc(*s++, f);
		} else if (*s >= 0x20 && *s < 0x7f) {
			putc(*s++, f);
		} else if (*s < 0x80) {
			fprintf(f, "\\u%04x", *s++);
		} else if (!(n = utf8_seq(s, &cp))) {
			fputs("\\ufffd", f);
			s++;
		} else {
			if (cp > 0xffff) {
				cp -= 0x10000;
				fprintf(f, "\\u%04" PRIx32, 0xd800 + (cp >> 10));
				cp = 0xdc00 + (cp & 0x3ff);
			}
			fprintf(f, "\\u%04" PRIx32, cp);
			s += n;
		}
	}
	putc('"', f);
}

/* The comma and the key before a value; false (nothing written) when no value may come. */
static bool begin(struct json *w, const char *key)
{
	uint32_t bit;

	if (w->err)
		return false;
	if (w->keyed) {
		w->keyed = false;
		return key ? fail(w) : true;
	}
	if (w->done)
		return fail(w);
	if (!w->depth)
		return key ? fail(w) : true;
	bit = 1u << (w->depth - 1);
	/* A key inside an object, none inside an array. */
	if (!key != !!(w->in_array & bit))
		return fail(w);
	if (w->nonempty & bit)
		putc(',', w->f);
	w->nonempty |= bit;
	if (key) {
		put_string(w->f, key);
		putc(':', w->f);
	}
	return true;
}

/* A value was written whole: at the top, that is the document. */
static void ended(struct json *w)
{
	if (!w->depth)
		w->done = true;
}

void json_key(struct json *w, const char *key)
{
	if (!key) {
		fail(w);
		return;
	}
	if (begin(w, key))
		w->keyed = true;
}

static void open_container(struct json *w, const char *key, bool array)
{
	uint32_t bit;

	if (!begin(w, key))
		return;
	if (w->depth == JSON_DEPTH_MAX) {
		fail(w);
		return;
	}
	bit = 1u << w->depth++;
	w->nonempty &= ~bit;
	if (array)
		w->in_array |= bit;
	else
		w->in_array &= ~bit;
	putc(array ? '[' : '{', w->f);
}

void json_object(struct json *w, const char *key)
{
	open_container(w, key, false);
}

void json_array(struct json *w, const char *key)
{
	open_container(w, key, true);
}

void json_end(struct json *w)
{
	if (w->err)
		return;
	if (!w->depth || w->keyed) {
		fail(w);
		return;
	}
	w->depth--;
	putc(w->in_array & (1u << w->depth) ? ']' : '}', w->f);
	ended(w);
}

void json_str(struct json *w, const char *key, const char *s)
{
	if (!begin(w, key))
		return;
	if (s)
		put_string(w->f, s);
	else
		fputs("null", w->f);
	ended(w);
}

void json_uint(struct json *w, const char *key, uint64_t v)
{
	if (!begin(w, key))
		return;
	fprintf(w->f, "%" PRIu64, v);
	ended(w);
}

void json_int(struct json *w, const char *key, int64_t v)
{
	if (!begin(w, key))
		return;
	fprintf(w->f, "%" PRId64, v);
	ended(w);
}

void json_bool(struct json *w, const char *key, bool v)
{
	if (!begin(w, key))
		return;
	fputs(v ? "true" : "false", w->f);
	ended(w);
}

void json_null(struct json *w, const char *key)
{
	if (!begin(w, key))
		return;
	fputs("null", w->f);
	ended(w);
}

void json_double(struct json *w, const char *key, double v, unsigned decimals)
{
	if (decimals > JSON_DECIMALS_MAX) {
		fail(w);
		return;
	}
	if (!begin(w, key))
		return;
	if (isfinite(v))
		fprintf(w->f, "%.*f", (int)decimals, v);
	else
		fputs("null", w->f);
	ended(w);
}

void json_fixed(struct json *w, const char *key, uint64_t v, unsigned decimals)
{
	uint64_t scale = 1;

	if (decimals > 19) {
		fail(w);
		return;
	}
	if (!begin(w, key))
		return;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	if (decimals)
		fprintf(w->f, "%" PRIu64 ".%0*" PRIu64, v / scale, (int)decimals, v % scale);
	else
		fprintf(w->f, "%" PRIu64, v);
	ended(w);
}

int json_finish(struct json *w)
{
	if (!w->err && (w->depth || w->keyed || !w->done))
		w->err = -EINVAL;
	if ((fflush(w->f) != 0 || ferror(w->f)) && !w->err)
		w->err = errno ? -errno : -EIO;
	return w->err;
}
