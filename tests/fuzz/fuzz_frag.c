// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz --fragroute's rule parser (replay/frag.h): the input is a rules
 * file (copied into a buffer of exactly its size: ASan sees a read past
 * it).  Checks: a file is read whole or refused with one line that names
 * it; every rule read names a module and a line within the file, in
 * order; reading it again gives the same rules.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct frag_rules a, b;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", err2[512] = "";
	unsigned lines = 1;
	char *text;
	int n, m;

	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	n = frag_parse(text, size, "rules", &a, err, sizeof(err));
	if (n < 0 && (strncmp(err, "rules: line ", 12) || strchr(err, '\n')))
		abort();
	if (n >= 0 && ((unsigned)n != a.n || a.n > FRAG_RULES_MAX))
		abort();
	for (int i = 0; i < n; i++) {
		if ((unsigned)a.r[i].mod >= FRAG_MODS || !a.r[i].line || a.r[i].line > lines ||
		    (i && a.r[i].line <= a.r[i - 1].line) || a.r[i].len > FRAG_DATA_MAX ||
		    !memchr(a.r[i].text, '\0', sizeof(a.r[i].text)))
			abort();
	}
	m = frag_parse(text, size, "rules", &b, err2, sizeof(err2));
	if (m != n || strcmp(err, err2) ||
	    (n > 0 && memcmp(&a.r, &b.r, (size_t)n * sizeof(a.r[0]))))
		abort();
	free(text);
	return 0;
}
