// SPDX-License-Identifier: BSD-2-Clause
/*
 * The trace operands: a directory given stands for the captures in it, in
 * name order as ls -v sorts them (strverscmp: "a9" before "a10", so
 * tcpdump -G and dumpcap -b rotations play in the order written).  Names
 * beginning with '.' are skipped, as ls does (editors' and rsync's
 * temporary files); so are pipes and devices, and subdirectories unless
 * --recursive, and then symbolic links to directories (find's default:
 * no loops).  A regular file in a directory is a capture like a file
 * named: one that is not fails the run's check before sending, named.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opts_int.h"
#include "replay/optparse.h"
#include "replay/opts.h"

/*
 * The list being built; once complete it goes to the parse's store
 * (list_hand_over()).  ours[i]: v[i] was made here (a path found in a
 * directory), not an operand of argv.
 */
static struct {
	char **v;
	int n, cap;
} expanded;
static bool *ours;

static void list_free(void)
{
	for (int i = 0; i < expanded.n; i++)
		if (ours[i])
			free(expanded.v[i]);
	free(expanded.v);
	free(ours);
	expanded.v = NULL;
	expanded.n = expanded.cap = 0;
	ours = NULL;
}

static int list_add(char *s, bool own)
{
	if (expanded.n == expanded.cap) {
		int ncap = expanded.cap ? 2 * expanded.cap : 64;
		char **v = realloc(expanded.v, (size_t)ncap * sizeof(*v));
		bool *o;

		if (!v)
			return -ENOMEM;
		expanded.v = v;
		o = realloc(ours, (size_t)ncap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		ours = o;
		expanded.cap = ncap;
	}
	ours[expanded.n] = own;
	expanded.v[expanded.n++] = s;
	return 0;
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* What was skipped: the first said in full, the rest counted (one warning for all). */
struct skips {
	char first[160];
	unsigned n;
};

static void skipped(struct skips *sk, const char *path, const char *why)
{
	if (!sk->n++)
		snprintf(sk->first, sizeof(sk->first), "%s skipped: %s", path, why);
}

/* The captures under directory @dir, in name order, into the list. */
static int walk(const char *dir, bool recursive, struct skips *sk, char *err, size_t len)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d) {
		snprintf(err, len, "%s: cannot read the directory: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			char **v = realloc(names, ncap * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				goto out;
			}
			names = v;
			cap = ncap;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), by_version);
	for (size_t i = 0; i < n && !rc; i++) {
		struct stat lst, st;
		char *path;

		if (asprintf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (lstat(path, &lst) < 0 || stat(path, &st) < 0) {
			/* A dangling link, or the entry went: the check names it. */
			rc = list_add(path, true);
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			rc = list_add(path, true);
			continue;
		}
		if (S_ISDIR(st.st_mode) && recursive && !S_ISLNK(lst.st_mode))
			rc = walk(path, recursive, sk, err, len);
		else if (S_ISDIR(st.st_mode))
			skipped(sk, path, recursive ? "a symbolic link to a directory is not followed"
						    : "a directory (--recursive descends into it)");
		else
			skipped(sk, path, "not a regular file (a pipe, socket or device)");
		free(path);
	}
out:
	if (rc == -ENOMEM)
		snprintf(err, len, "out of memory");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

/*
 * The list into @store's keeping: the array and the paths made here, each
 * kept or freed; the list is empty after.  0, or -ENOMEM.
 */
static int list_hand_over(struct opt_argv *store)
{
	char **v = expanded.v;
	int n = expanded.n, rc = 0;

	for (int i = 0; i < n; i++) {
		if (!ours[i])
			continue;
		if (rc == 0)
			rc = opt_argv_own(store, v[i]);
		else
			free(v[i]);
	}
	if (rc == 0)
		rc = opt_argv_own(store, (char *)v);
	else
		free(v);
	free(ours);
	ours = NULL;
	expanded.v = NULL;
	expanded.n = expanded.cap = 0;
	return rc;
}

int inputs_expand(struct opts *o, struct opt_argv *store, char *err, size_t len)
{
	struct skips sk = { .n = 0 };
	bool any_dir = false;
	char **files;
	int rc = 0, nfiles;

	list_free();
	for (int i = 0; i < o->nfiles && !rc; i++) {
		struct stat st;
		int before = expanded.n;

		if (strcmp(o->files[i], "-") && stat(o->files[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			any_dir = true;
			rc = walk(o->files[i], o->recursive, &sk, err, len);
			if (!rc && expanded.n == before) {
				snprintf(err, len, "%s: no capture files in the directory%s", o->files[i],
					 o->recursive ? "" : " (--recursive descends into its subdirectories)");
				rc = -ENOENT;
			}
		} else {
			rc = list_add(o->files[i], false);
			if (rc == -ENOMEM)
				snprintf(err, len, "out of memory");
		}
	}
	if (rc < 0 || !any_dir) {
		list_free(); /* on success the operands stay as given */
		return rc;
	}
	files = expanded.v;
	nfiles = expanded.n;
	if (list_hand_over(store) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	o->files = files;
	o->nfiles = nfiles;
	if (sk.n && o->nwarn < OPTS_WARN_MAX) {
		if (sk.n > 1)
			snprintf(o->warn[o->nwarn++], sizeof(o->warn[0]), "%.100s (and %u more entries skipped)",
				 sk.first, sk.n - 1);
		else
			snprintf(o->warn[o->nwarn++], sizeof(o->warn[0]), "%s", sk.first);
	}
	return 0;
}
