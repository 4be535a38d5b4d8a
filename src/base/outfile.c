// SPDX-License-Identifier: BSD-2-Clause
/* Output files: conflict checks and symlink-safe, all-or-nothing creation (see replay/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay/outfile.h"

/* Symbolic links followed at most, as the kernel's MAXSYMLINKS. */
#define OUTFILE_HOPS_MAX 40

/* Split @path into a malloc'd directory and last component; -ENOMEM or -EISDIR (ends in '/'). */
static int split(const char *path, char **dir, char **name)
{
	const char *slash = strrchr(path, '/');

	*dir = *name = NULL;
	if (slash && !slash[1])
		return -EISDIR;
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
	*name = strdup(slash ? slash + 1 : path);
	if (!*dir || !*name) {
		free(*dir);
		free(*name);
		*dir = *name = NULL;
		return -ENOMEM;
	}
	if (!strcmp(*name, ".") || !strcmp(*name, ".."))
		return -EISDIR;
	return 0;
}

/*
 * Follow the symbolic links at the last component of @path to the name that
 * will be written: a malloc'd path in *@out.  With @owned_only, a link not
 * owned by us or by root is refused (-EPERM, @err set).  -ELOOP after
 * OUTFILE_HOPS_MAX links.
 */
static int resolve(const char *path, bool owned_only, char **out, char *err, size_t errlen)
{
	char *cur = strdup(path);

	*out = NULL;
	if (!cur)
		return -ENOMEM;
	for (int hop = 0;; hop++) {
		struct stat st;
		char link[PATH_MAX];
		ssize_t n;
		char *next;

		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode)) {
			*out = cur;
			return 0;
		}
		if (hop == OUTFILE_HOPS_MAX) {
			snprintf(err, errlen, "%s: too many levels of symbolic links", path);
			free(cur);
			return -ELOOP;
		}
		if (owned_only && st.st_uid != geteuid() && st.st_uid != 0) {
			snprintf(err, errlen,
				 "%s: %s is a symbolic link owned by another user (uid %u); refusing to write through it",
				 path, cur, (unsigned)st.st_uid);
			free(cur);
			return -EPERM;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			int rc = -errno;

			snprintf(err, errlen, "%s: %s", cur, strerror(errno));
			free(cur);
			return rc;
		}
		link[n] = '\0';
		if (link[0] == '/') {
			next = strdup(link);
		} else {
			const char *slash = strrchr(cur, '/');

			if (!slash)
				next = strdup(link);
			else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, link) < 0)
				next = NULL;
		}
		free(cur);
		if (!next)
			return -ENOMEM;
		cur = next;
	}
}

/* What a path is, for comparing. */
struct ident {
	bool known;     /* false: nothing to compare by (an error will come at open) */
	bool exists;
	bool chr;       /* a character device: never a conflict */
	bool std;       /* "-" */
	dev_t dev;
	ino_t ino;      /* the file's, or its directory's when !exists */
	char *name;     /* last component when !exists */
};

static void ident_of(struct ident *id, const struct outfile_use *u)
{
	struct stat st;
	char *target = NULL, *dir = NULL, err[8];

	memset(id, 0, sizeof(*id));
	if (!strcmp(u->path, "-")) {
		id->std = true;
		if (fstat(u->output ? STDOUT_FILENO : STDIN_FILENO, &st) < 0)
			return;
	} else if (resolve(u->path, false, &target, err, sizeof(err)) < 0) {
		return;
	} else if (stat(target, &st) < 0) {
		if (split(target, &dir, &id->name) < 0 || stat(dir, &st) < 0) {
			free(id->name);
			id->name = NULL;
		} else {
			id->known = true;
			id->dev = st.st_dev;
			id->ino = st.st_ino;
		}
		free(dir);
		free(target);
		return;
	}
	free(target);
	id->known = id->exists = true;
	id->chr = S_ISCHR(st.st_mode);
	id->dev = st.st_dev;
	id->ino = st.st_ino;
}

static bool same(const struct ident *a, const struct ident *b)
{
	if (!a->known || !b->known || a->chr || b->chr || a->exists != b->exists)
		return false;
	if (a->dev != b->dev || a->ino != b->ino)
		return false;
	return a->exists || !strcmp(a->name, b->name);
}

int outfile_check(const struct outfile_use *u, size_t n, char *err, size_t errlen)
{
	struct ident *id = calloc(n ? n : 1, sizeof(*id));
	int rc = 0;

	if (!id) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (u[i].path)
			ident_of(&id[i], &u[i]);
	for (size_t i = 0; i < n && !rc; i++) {
		for (size_t j = i + 1; j < n && !rc; j++) {
			const struct outfile_use *a = &u[i], *b = &u[j];

			if (!a->path || !b->path || (!a->output && !b->output))
				continue;
			if (a->output && b->output && id[i].std && id[j].std) {
				snprintf(err, errlen,
					 "%s - and %s -: both would write to standard output; give one of them a file",
					 a->opt, b->opt);
				rc = -EEXIST;
			} else if (same(&id[i], &id[j])) {
				const struct outfile_use *in = !a->output ? a : !b->output ? b : NULL;
				const struct outfile_use *out = in == a ? b : a;

				if (in)
					snprintf(err, errlen,
						 "%s %s: is the same file as the %s %s; refusing to overwrite an input",
						 out->opt, out->path, in->opt, in->path);
				else
					snprintf(err, errlen,
						 "%s %s and %s %s: the same file; each output needs its own",
						 a->opt, a->path, b->opt, b->path);
				rc = -EEXIST;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(id[i].name);
	free(id);
	return rc;
}

/*
 * How many bytes of @of->name a temporary ".NAME.XXXXXX" keeps: all of it
 * when that fits the directory's longest name, else a prefix cut at a
 * character boundary (UTF-8), so that replacing a file whose own name is up
 * to that longest (255 bytes on most filesystems) works too.
 */
static size_t tmp_keep(const struct outfile *of)
{
	long name_max = fpathconf(of->dirfd, _PC_NAME_MAX);
	size_t len = strlen(of->name), room;

	if (name_max <= 0)
		name_max = NAME_MAX;
	room = (size_t)name_max > 8 ? (size_t)name_max - 8 : 0; /* '.', '.' and six letters */
	if (len <= room)
		return len;
	while (room && ((unsigned char)of->name[room] & 0xc0) == 0x80)
		room--;
	return room;
}

/* A fresh ".NAME.XXXXXX" in @of->dir, created O_EXCL|O_NOFOLLOW when @create, else only named. */
static int tmp_name(struct outfile *of, bool create)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	int keep = (int)tmp_keep(of);

	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char suffix[7];
		int fd;

		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uint64_t)tries * 0x9e3779b97f4a7c15ull;

			memcpy(r, &x, sizeof(r));
		}
		for (int i = 0; i < 6; i++)
			suffix[i] = digits[r[i] % (sizeof(digits) - 1)];
		suffix[6] = '\0';
		free(of->tmp);
		if (asprintf(&of->tmp, ".%.*s.%s", keep, of->name, suffix) < 0) {
			of->tmp = NULL;
			return -ENOMEM;
		}
		if (!create)
			return 0;
		fd = openat(of->dirfd, of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			of->fd = fd;
			return 0;
		}
		if (errno != EEXIST) {
			int rc = -errno;

			free(of->tmp);
			of->tmp = NULL;
			return rc;
		}
	}
	free(of->tmp);
	of->tmp = NULL;
	return -EEXIST;
}

int outfile_open(struct outfile *of, const char *path, char *err, size_t errlen)
{
	char *target = NULL;
	struct stat st;
	int rc;

	memset(of, 0, sizeof(*of));
	of->fd = of->dirfd = -1;
	of->path = strdup(path);
	if (!of->path)
		goto nomem;
	if (!strcmp(path, "-")) {
		of->fd = STDOUT_FILENO;
		of->direct = true;
		return 0;
	}
	rc = resolve(path, true, &target, err, errlen);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc < 0)
		return rc;
	if (lstat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: is a directory", path);
			free(target);
			return -EISDIR;
		}
		/* A device or FIFO (/dev/null, a pipe to a reader): written as it is. */
		of->fd = open(target, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		free(target);
		if (of->fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
			return rc;
		}
		of->direct = true;
		return 0;
	}
	rc = split(target, &of->dir, &of->name);
	free(target);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc < 0) {
		snprintf(err, errlen, "%s: is a directory", path);
		return rc;
	}
	of->dirfd = open(of->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (of->dirfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		return rc;
	}
	of->fd = openat(of->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (of->fd >= 0) {
		of->anon = true;
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		return rc;
	}
	/* No O_TMPFILE here: an exclusive temporary beside the target. */
	rc = tmp_name(of, true);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot create a temporary file in %s: %s", path, of->dir,
			 strerror(-rc));
		return rc;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Link the anonymous file in as @name; 0 or -errno. */
static int link_anon(struct outfile *of, const char *name)
{
	char proc[64];

	if (linkat(of->fd, "", of->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	/* AT_EMPTY_PATH wants CAP_DAC_READ_SEARCH on older kernels; /proc does not. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
	if (linkat(AT_FDCWD, proc, of->dirfd, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	return -errno;
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int rc;

	if (of->direct || of->committed) {
		of->committed = true;
		return 0;
	}
	if (of->anon) {
		/* Straight to the name when it is free: no temporary name at all. */
		rc = link_anon(of, of->name);
		if (rc == 0) {
			of->committed = true;
			return 0;
		}
		if (rc != -EEXIST)
			goto fail;
		/* The name exists: link in under a fresh temporary, then rename over it. */
		do {
			rc = tmp_name(of, false);
			if (rc == 0)
				rc = link_anon(of, of->tmp);
		} while (rc == -EEXIST);
		if (rc < 0) {
			free(of->tmp);
			of->tmp = NULL;
			goto fail;
		}
	}
	if (renameat(of->dirfd, of->tmp, of->dirfd, of->name) < 0) {
		rc = -errno;
		goto fail;
	}
	free(of->tmp);
	of->tmp = NULL;
	of->committed = true;
	return 0;
fail:
	snprintf(err, errlen, "%s: cannot put the output in place: %s", of->path, strerror(-rc));
	return rc;
}

void outfile_close(struct outfile *of)
{
	if (of->fd >= 0 && of->fd != STDOUT_FILENO)
		close(of->fd);
	of->fd = -1;
	if (of->tmp && of->dirfd >= 0)
		unlinkat(of->dirfd, of->tmp, 0);
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	free(of->tmp);
	free(of->dir);
	free(of->name);
	free(of->path);
	of->tmp = of->dir = of->name = of->path = NULL;
}

FILE *outfile_fopen(struct outfile *of, const char *path, char *err, size_t errlen)
{
	FILE *f;
	int rc = outfile_open(of, path, err, errlen);

	if (rc < 0) {
		outfile_close(of);
		errno = -rc;
		return NULL;
	}
	if (of->fd == STDOUT_FILENO)
		return stdout;
	f = fdopen(of->fd, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		outfile_close(of);
		return NULL;
	}
	return f;
}

int outfile_fcommit(struct outfile *of, FILE *f, char *err, size_t errlen)
{
	if (fflush(f) != 0 || ferror(f)) {
		int rc = errno ? -errno : -EIO;

		snprintf(err, errlen, "%s: write failed: %s", of->path, strerror(-rc));
		return rc;
	}
	return outfile_commit(of, err, errlen);
}

void outfile_fclose(struct outfile *of, FILE *f)
{
	if (f && f != stdout) {
		fclose(f); /* closes of->fd */
		of->fd = -1;
	} else if (f) {
		fflush(f);
	}
	outfile_close(of);
}
