// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay impair SUBCOMMAND: tools for impairment traces (man replay-impair(5)).
 * So far one subcommand: convert IN OUT, between the binary and text forms.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "replay/run.h"
#include "replay/impair.h"
#include "replay/log.h"

static void usage(FILE *f)
{
	fputs("Usage: replay impair convert IN OUT\n"
	      "  Convert an impairment trace between its binary and text forms; the\n"
	      "  direction follows IN (binary if it starts with \"RPIM\", else text).\n"
	      "  OUT appears only when every action was converted.  See replay-impair(5).\n",
	      f);
}

int impair_main(int argc, char **argv)
{
	char err[1024];
	uint64_t n;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return EXIT_DONE;
	}
	if (argc < 2 || strcmp(argv[1], "convert")) {
		log_err("impair: %s%s%s (try 'replay impair --help')",
			argc < 2 ? "a subcommand is needed" : "unknown subcommand '",
			argc < 2 ? "" : argv[1], argc < 2 ? "" : "'");
		return EXIT_USAGE;
	}
	if (argc != 4) {
		log_err("impair convert: needs exactly IN and OUT (try 'replay impair --help')");
		return EXIT_USAGE;
	}
	if (impair_convert(argv[2], argv[3], &n, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return EXIT_FAIL;
	}
	log_info("%s: %" PRIu64 " actions converted", argv[3], n);
	return EXIT_DONE;
}
