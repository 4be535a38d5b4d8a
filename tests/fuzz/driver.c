// SPDX-License-Identifier: BSD-2-Clause
/*
 * Run a fuzz target over files, without libFuzzer: each argument is a file
 * or a directory of files (the corpus).  So the corpus runs as an ordinary
 * meson test in every build, under ASan/UBSan in the sanitizer build.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "fuzz driver: %s: cannot read\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	long runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "fuzz driver: %s: no such file or directory\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			runs++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) < 0) {
				closedir(d);
				return 1;
			}
			runs++;
		}
		if (d)
			closedir(d);
	}
	if (!runs) {
		fprintf(stderr, "fuzz driver: no inputs\n");
		return 1;
	}
	printf("%ld inputs ran cleanly\n", runs);
	return 0;
}
