// SPDX-License-Identifier: BSD-2-Clause
/*
 * The JSON writer (replay/json.h), two ways from one input:
 *  - strings: each NUL-separated piece written as a key and as a value;
 *    the document must parse (tests/unit/jsoncheck.h) and both must decode
 *    to the piece, with each byte that is not well-formed UTF-8 (decided
 *    here by code point, not by the writer's table) replaced by U+FFFD;
 *  - calls: the bytes as a sequence of writer calls, with and without
 *    keys; json_finish() must succeed exactly when a model of the grammar
 *    says the calls made one whole document, and that document must parse.
 * Any difference aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"
#include "replay/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @s as a reader gets it back: well-formed UTF-8 kept, every other byte U+FFFD. */
static size_t expected(const unsigned char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		unsigned len = s[i] < 0x80 ? 1 : s[i] >> 5 == 6 ? 2 : s[i] >> 4 == 14 ? 3 : s[i] >> 3 == 30 ? 4 : 0;
		uint32_t cp = len == 1 ? s[i] : len == 2 ? s[i] & 0x1fu : len == 3 ? s[i] & 0x0fu : s[i] & 0x07u;
		bool ok = len && i + len <= n;

		for (unsigned k = 1; ok && k < len; k++) {
			ok = s[i + k] >> 6 == 2;
			cp = cp << 6 | (s[i + k] & 0x3fu);
		}
		if (ok)
			ok = cp >= (len == 1 ? 0 : len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) &&
			     !(cp >= 0xd800 && cp <= 0xdfff) && cp <= 0x10ffff;
		if (ok) {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	return o;
}

static void check_piece(const char *s, size_t n)
{
	char *buf = NULL, *want = malloc(3 * n + 1), *got = malloc(3 * n + 1);
	size_t len = 0, wn, gn;
	struct jsoncheck c;
	FILE *f = open_memstream(&buf, &len);
	struct json w;

	if (!f || !want || !got)
		abort();
	json_init(&w, f);
	json_object(&w, NULL);
	json_str(&w, s, s);
	json_end(&w);
	if (json_finish(&w) != 0)
		abort();
	fclose(f);
	if (!jsoncheck(buf, len))
		abort();
	wn = expected((const unsigned char *)s, n, want);
	c = (struct jsoncheck){ .p = buf + 1, .end = buf + len };
	if (!jsoncheck_string(&c, got, 3 * n + 1, &gn) || gn != wn || memcmp(got, want, wn))
		abort();
	c.p++; /* ':' */
	if (!jsoncheck_string(&c, got, 3 * n + 1, &gn) || gn != wn || memcmp(got, want, wn))
		abort();
	free(buf);
	free(want);
	free(got);
}

/* What the writer must make of a sequence of calls: the grammar, kept apart from json.c's. */
struct model {
	int depth;
	bool array[JSON_DEPTH_MAX + 1];
	bool keyed, done, bad;
};

/* May a value with (@key) or without a key come now? */
static bool value_ok(const struct model *m, bool key)
{
	if (m->bad)
		return false;
	if (m->keyed)
		return !key;
	if (m->done)
		return false;
	if (!m->depth)
		return !key;
	return key != m->array[m->depth - 1];
}

static void value(struct model *m, bool key)
{
	if (!value_ok(m, key))
		m->bad = true;
	else
		m->keyed = false;
	if (!m->bad && !m->depth)
		m->done = true;
}

static void calls(const uint8_t *data, size_t size)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct model m = { 0 };
	struct json w;
	int rc;

	if (!f)
		abort();
	json_init(&w, f);
	for (size_t i = 0; i < size && i < 4096; i++) {
		uint8_t b = data[i];
		const char *key = b & 0x10 ? "k" : NULL;
		unsigned dec = (unsigned)(b >> 5) * 3; /* 0..21: some too many */

		switch (b & 0x0f) {
		case 0:
		case 1:
			if (!value_ok(&m, key) || m.depth == JSON_DEPTH_MAX) {
				m.bad = true;
			} else {
				m.keyed = false;
				m.array[m.depth++] = b & 1;
			}
			(b & 1 ? json_array : json_object)(&w, key);
			break;
		case 2:
			if (m.bad || !m.depth || m.keyed)
				m.bad = true;
			else if (!--m.depth)
				m.done = true;
			json_end(&w);
			break;
		case 3:
			if (!key || !value_ok(&m, true))
				m.bad = true;
			else
				m.keyed = true;
			json_key(&w, key);
			break;
		case 4:
			value(&m, key);
			json_str(&w, key, (const char *)&data[i]); /* runs to a NUL: a random string */
			i = size; /* it may reach the end of the input: the last call */
			break;
		case 5:
			value(&m, key);
			json_uint(&w, key, b);
			break;
		case 6:
			value(&m, key);
			json_int(&w, key, -(int64_t)b);
			break;
		case 7:
			if (dec > JSON_DECIMALS_MAX)
				m.bad = true;
			value(&m, key);
			json_double(&w, key, b / 7.0, dec);
			break;
		case 8:
			value(&m, key);
			json_bool(&w, key, b & 0x20);
			break;
		case 9:
			value(&m, key);
			json_null(&w, key);
			break;
		case 10:
			if (dec > 19)
				m.bad = true;
			value(&m, key);
			json_fixed(&w, key, b * 1000003u, dec);
			break;
		default:
			break;
		}
	}
	rc = json_finish(&w);
	fclose(f);
	if (!m.bad && !m.depth && !m.keyed && m.done) {
		if (rc != 0 || !jsoncheck(buf, len))
			abort();
	} else if (rc != -EINVAL) {
		abort();
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (size_t i = 0; i <= size; i += strlen(s + i) + 1)
		check_piece(s + i, strlen(s + i));
	/* The calls read strings from the copy, which ends in a NUL. */
	calls((const uint8_t *)s, size);
	free(s);
	return 0;
}
