// SPDX-License-Identifier: BSD-2-Clause
/*
 * The JSON writer (replay/json.h): nesting and commas, string escaping,
 * numbers, and the error state; each document checked by the independent
 * parser of jsoncheck.h as well as compared byte for byte.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsoncheck.h"
#include "replay/json.h"

struct doc {
	struct json w;
	FILE *f;
	char *buf;
	size_t len;
};

static void doc_open(struct doc *d)
{
	d->buf = NULL;
	d->len = 0;
	d->f = open_memstream(&d->buf, &d->len);
	assert_non_null(d->f);
	json_init(&d->w, d->f);
}

/* Finish the document: json_finish()'s result, and the text in d->buf. */
static int doc_close(struct doc *d)
{
	int rc = json_finish(&d->w);

	fclose(d->f);
	return rc;
}

/* A whole document: written well, equal to @want, and valid JSON by the checker. */
static void doc_expect(struct doc *d, const char *want)
{
	assert_int_equal(doc_close(d), 0);
	assert_string_equal(d->buf, want);
	assert_true(jsoncheck(d->buf, d->len));
	free(d->buf);
}

/* A misused writer: -EINVAL, and @want is all it wrote. */
static void doc_misuse(struct doc *d, const char *want)
{
	assert_int_equal(doc_close(d), -EINVAL);
	assert_string_equal(d->buf, want);
	free(d->buf);
}

/* The string @s written alone. */
static void str_expect(const char *s, const char *want)
{
	struct doc d;

	doc_open(&d);
	json_str(&d.w, NULL, s);
	doc_expect(&d, want);
}

static void test_nesting(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d);
	json_object(&d.w, NULL);
	json_uint(&d.w, "a", 1);
	json_object(&d.w, "empty");
	json_end(&d.w);
	json_array(&d.w, "list");
	json_uint(&d.w, NULL, 1);
	json_array(&d.w, NULL);
	json_end(&d.w);
	json_object(&d.w, NULL);
	json_null(&d.w, "x");
	json_bool(&d.w, "t", true);
	json_bool(&d.w, "f", false);
	json_end(&d.w);
	json_end(&d.w);
	json_key(&d.w, "keyed");
	json_str(&d.w, NULL, "v");
	json_key(&d.w, "keyed_object");
	json_object(&d.w, NULL);
	json_int(&d.w, "n", -1);
	json_end(&d.w);
	json_end(&d.w);
	doc_expect(&d, "{\"a\":1,\"empty\":{},\"list\":[1,[],{\"x\":null,\"t\":true,\"f\":false}],"
		       "\"keyed\":\"v\",\"keyed_object\":{\"n\":-1}}");

	/* A top-level scalar, and the deepest nesting allowed. */
	doc_open(&d);
	json_uint(&d.w, NULL, 7);
	doc_expect(&d, "7");
	doc_open(&d);
	for (int i = 0; i < JSON_DEPTH_MAX; i++)
		json_array(&d.w, NULL);
	for (int i = 0; i < JSON_DEPTH_MAX; i++)
		json_end(&d.w);
	assert_int_equal(doc_close(&d), 0);
	assert_int_equal(d.len, 2 * JSON_DEPTH_MAX);
	assert_true(jsoncheck(d.buf, d.len));
	free(d.buf);
}

static void test_escaping(void **state)
{
	(void)state;
	str_expect("plain text 0-9 ~", "\"plain text 0-9 ~\"");
	str_expect("", "\"\"");
	str_expect(NULL, "null");
	str_expect("q\"b\\s/", "\"q\\\"b\\\\s/\"");
	/* Every control character, and DEL. */
	str_expect("\x01\t\n\r\x1f\x7f", "\"\\u0001\\u0009\\u000a\\u000d\\u001f\\u007f\"");
	/* Well-formed UTF-8 of each length, as escapes: é, €, U+FFFF, 😀 (a surrogate pair), U+10FFFF. */
	str_expect("caf\xc3\xa9", "\"caf\\u00e9\"");
	str_expect("\xe2\x82\xac\xef\xbf\xbf", "\"\\u20ac\\uffff\"");
	str_expect("\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\"");
	str_expect("\xf4\x8f\xbf\xbf", "\"\\udbff\\udfff\"");
	str_expect("\xc2\x80", "\"\\u0080\"");
	/* Not UTF-8: each byte of it one replacement character, what follows kept. */
	str_expect("a\x80z", "\"a\\ufffdz\"");
	str_expect("\xc0\x80", "\"\\ufffd\\ufffd\"");           /* overlong NUL */
	str_expect("\xc1\xbf", "\"\\ufffd\\ufffd\"");           /* overlong */
	str_expect("\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* overlong */
	str_expect("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate */
	str_expect("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
	str_expect("\xf5\xff", "\"\\ufffd\\ufffd\"");
	str_expect("\xe2\x82", "\"\\ufffd\\ufffd\"");           /* cut short by the end */
	str_expect("\xe2\x82z", "\"\\ufffd\\ufffdz\"");
	str_expect("\xe9t\xc3\xa9", "\"\\ufffdt\\u00e9\"");     /* Latin-1 beside UTF-8 */
	/* Keys are strings too. */
	{
		struct doc d;

		doc_open(&d);
		json_object(&d.w, NULL);
		json_uint(&d.w, "k\"\n\xc3\xa9", 1);
		json_end(&d.w);
		doc_expect(&d, "{\"k\\\"\\u000a\\u00e9\":1}");
	}
}

/* What jsoncheck_string() decodes from the writer's string of @s: @s itself, for UTF-8. */
static void test_escaping_round_trip(void **state)
{
	static const char *const in[] = { "plain", "q\"\\/", "\x01\x1f\x7f", "caf\xc3\xa9",
					  "\xe2\x82\xac", "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf" };

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct doc d;
		struct jsoncheck c;
		char out[64];
		size_t n;

		doc_open(&d);
		json_str(&d.w, NULL, in[i]);
		assert_int_equal(doc_close(&d), 0);
		c = (struct jsoncheck){ .p = d.buf, .end = d.buf + d.len };
		assert_true(jsoncheck_string(&c, out, sizeof(out), &n));
		assert_int_equal(n, strlen(in[i]));
		assert_memory_equal(out, in[i], n);
		free(d.buf);
	}
}

static void test_numbers(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d);
	json_array(&d.w, NULL);
	json_uint(&d.w, NULL, 0);
	json_uint(&d.w, NULL, UINT64_MAX);
	json_int(&d.w, NULL, INT64_MIN);
	json_int(&d.w, NULL, INT64_MAX);
	json_double(&d.w, NULL, 5.0, 3);
	json_double(&d.w, NULL, 0.005, 6);
	json_double(&d.w, NULL, 2000000.0, 1);
	json_double(&d.w, NULL, 1234.5678, 0);
	json_double(&d.w, NULL, -0.25, 1);     /* to nearest, ties to even */
	json_double(&d.w, NULL, 1.0 / 3, 9);
	json_double(&d.w, NULL, 1e20, 0);
	json_double(&d.w, NULL, NAN, 3);
	json_double(&d.w, NULL, INFINITY, 3);
	json_double(&d.w, NULL, -INFINITY, 0);
	json_fixed(&d.w, NULL, 2787878, 2);
	json_fixed(&d.w, NULL, 5, 2);
	json_fixed(&d.w, NULL, 0, 0);
	json_fixed(&d.w, NULL, 42, 0);
	json_fixed(&d.w, NULL, UINT64_MAX, 19);
	json_end(&d.w);
	doc_expect(&d, "[0,18446744073709551615,-9223372036854775808,9223372036854775807,5.000,"
		       "0.005000,2000000.0,1235,-0.2,0.333333333,100000000000000000000,null,null,null,"
		       "27878.78,0.05,0,42,1.8446744073709551615]");
}

/* Each misuse: -EINVAL from json_finish(), and nothing written from the misuse on. */
static void test_errors(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d); /* nothing written */
	doc_misuse(&d, "");

	doc_open(&d); /* a key inside an array */
	json_array(&d.w, NULL);
	json_uint(&d.w, "k", 1);
	json_uint(&d.w, NULL, 2);
	json_end(&d.w);
	doc_misuse(&d, "[");

	doc_open(&d); /* no key inside an object */
	json_object(&d.w, NULL);
	json_uint(&d.w, "a", 1);
	json_uint(&d.w, NULL, 2);
	json_end(&d.w);
	doc_misuse(&d, "{\"a\":1");

	doc_open(&d); /* a key at the top */
	json_object(&d.w, "k");
	doc_misuse(&d, "");

	doc_open(&d); /* left open */
	json_object(&d.w, NULL);
	json_array(&d.w, "a");
	doc_misuse(&d, "{\"a\":[");

	doc_open(&d); /* closed once too often */
	json_object(&d.w, NULL);
	json_end(&d.w);
	json_end(&d.w);
	doc_misuse(&d, "{}");

	doc_open(&d); /* a second value after the document */
	json_uint(&d.w, NULL, 1);
	json_uint(&d.w, NULL, 2);
	doc_misuse(&d, "1");

	doc_open(&d); /* a key without its value */
	json_object(&d.w, NULL);
	json_key(&d.w, "k");
	json_end(&d.w);
	doc_misuse(&d, "{\"k\":");

	doc_open(&d); /* a key, then a value with a key of its own */
	json_object(&d.w, NULL);
	json_key(&d.w, "k");
	json_uint(&d.w, "j", 1);
	doc_misuse(&d, "{\"k\":");

	doc_open(&d); /* json_key() without a key */
	json_object(&d.w, NULL);
	json_key(&d.w, NULL);
	json_end(&d.w);
	doc_misuse(&d, "{");

	doc_open(&d); /* more decimals than a double holds */
	json_array(&d.w, NULL);
	json_double(&d.w, NULL, 1.0, JSON_DECIMALS_MAX + 1);
	json_fixed(&d.w, NULL, 1, 20);
	json_end(&d.w);
	doc_misuse(&d, "[");

	doc_open(&d); /* deeper than JSON_DEPTH_MAX */
	for (int i = 0; i <= JSON_DEPTH_MAX; i++)
		json_array(&d.w, NULL);
	for (int i = 0; i <= JSON_DEPTH_MAX; i++)
		json_end(&d.w);
	assert_int_equal(doc_close(&d), -EINVAL);
	assert_int_equal(d.len, JSON_DEPTH_MAX);
	free(d.buf);
}

/* A stream that fails (a full disk): its errno at json_finish(). */
static void test_stream_error(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct json w;

	(void)state;
	if (!f)
		skip();
	json_init(&w, f);
	json_object(&w, NULL);
	json_str(&w, "k", "v");
	json_end(&w);
	assert_int_equal(json_finish(&w), -ENOSPC);
	fclose(f);
}

/* The checker itself refuses what is not JSON: the tests above could fail. */
static void test_checker(void **state)
{
	static const char *const bad[] = { "", "{", "}", "[1,]", "{\"a\"}", "{\"a\":1,}", "{a:1}",
					   "01", "1.", "-", ".5", "1e", "\"\\x\"", "\"\x01\"",
					   "\"\\ud800\"", "\"\\udc00\"", "nul", "[1]x", "\"caf\xc3\xa9\"",
					   "[1 2]", "{\"a\":1 \"b\":2}" };
	static const char *const good[] = { "0", "-0.5e+3", " [ 1 , { \"a\" : [ ] } ] ", "\"\\ud83d\\ude00\"",
					    "true", "null", "{\"\":\"\\/\\b\\f\\n\\r\\t\"}" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (jsoncheck(bad[i], strlen(bad[i])))
			fail_msg("the checker took '%s'", bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!jsoncheck(good[i], strlen(good[i])))
			fail_msg("the checker refused '%s'", good[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_escaping_round_trip),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_stream_error),
		cmocka_unit_test(test_checker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
