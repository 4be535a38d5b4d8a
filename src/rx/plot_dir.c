// SPDX-License-Identifier: BSD-2-Clause
/*
 * --plot DIR: the directory, opened once (a symbolic link or a directory
 * another user could change is refused), and the figures of plot.c written
 * in it, all or none: each first unnamed or under a temporary name, then
 * renamed into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/compiler.h"
#include "plot.h"
#include "rx.h"

/* Symbolic links followed at most on the way to the directory, as the kernel's MAXSYMLINKS. */
#define PLOT_HOPS_MAX 40

int rx_plot_dir_check(const struct stat *st, uid_t uid, const char *path, char *err,
		      size_t errlen)
{
	if (!S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "--plot %s: exists and is not a directory", path);
		return -ENOTDIR;
	}
	if (st->st_uid != uid) {
		snprintf(err, errlen,
			 "--plot %s: the directory belongs to another user (uid %u); refusing to write in it",
			 path, (unsigned)st->st_uid);
		return -EPERM;
	}
	/* Anyone could rename or replace the figures in it: /tmp's sticky bit forbids that. */
	if ((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX)) {
		snprintf(err, errlen,
			 "--plot %s: anyone may write in the directory (mode %04o, no sticky bit); refusing to write in it",
			 path, (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * Open @path relative to @at (absolute paths from /), one component at a
 * time with O_NOFOLLOW, so that what is checked is what is opened.  A
 * symbolic link on the way is followed only when the caller or root owns
 * it (fs.protected_symlinks' rule, for every directory); when @top, the
 * last component is the plot directory itself: created if missing, and
 * never a link.  An O_PATH descriptor, or -errno with @err (@arg: the
 * path as given).
 */
static int walk(int at, const char *path, bool top, int *hops, const char *arg, char *err,
		size_t errlen)
{
	char *copy = strdup(path), *save = NULL, *c, *next, link[PATH_MAX];
	int cur = -1, fd = -1, rc = 0;
	struct stat st;
	ssize_t n;

	if (!copy || (cur = openat(at, path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = copy ? -errno : -ENOMEM;
		goto fail;
	}
	for (c = strtok_r(copy, "/", &save); c; c = next) {
		bool last = !(next = strtok_r(NULL, "/", &save));

		fd = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && top && last) {
			/* Not writable by others, whatever the umask: the check below would refuse it. */
			if (mkdirat(cur, c, 0775) < 0 && errno != EEXIST) {
				rc = -errno;
				goto fail;
			}
			fd = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0 || fstat(fd, &st) < 0) {
			rc = -errno;
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			if (top && last) {
				snprintf(err, errlen,
					 "--plot %s: is a symbolic link; give the directory itself", arg);
				rc = -EPERM;
				goto fail;
			}
			if (st.st_uid != geteuid() && st.st_uid != 0) {
				snprintf(err, errlen,
					 "--plot %s: %s is a symbolic link owned by another user (uid %u); refusing to follow it",
					 arg, c, (unsigned)st.st_uid);
				rc = -EPERM;
				goto fail;
			}
			n = readlinkat(fd, "", link, sizeof(link) - 1);
			if (n < 0 || ++*hops > PLOT_HOPS_MAX) {
				rc = n < 0 ? -errno : -ELOOP;
				goto fail;
			}
			link[n] = '\0';
			close(fd);
			fd = walk(cur, link, false, hops, arg, err, errlen);
			if (fd < 0) {
				rc = fd;
				goto fail;
			}
		}
		close(cur);
		cur = fd;
		fd = -1;
	}
	free(copy);
	return cur;
fail:
	/* A reason already given (a refused link) stays; any other is named here. */
	if (rc != -EPERM || !*err)
		snprintf(err, errlen, "%s: cannot %s the plot directory: %s", arg,
			 rc == -ENOENT ? "create" : "open", strerror(-rc));
	if (fd >= 0)
		close(fd);
	if (cur >= 0)
		close(cur);
	free(copy);
	return rc;
}

int rx_plot_dir_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int hops = 0, fd, rc;

	*err = '\0';
	if (!*path) {
		snprintf(err, errlen, "--plot: an empty directory name");
		return -ENOENT;
	}
	fd = walk(AT_FDCWD, path, true, &hops, path, err, errlen);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open the plot directory: %s", path, strerror(-rc));
	} else {
		rc = rx_plot_dir_check(&st, geteuid(), path, err, errlen);
	}
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

typedef int (*plot_fn)(FILE *, const struct rx_result *, const struct rx_recs *,
		       const struct rx_ref *);

/* The files of --plot, in the order they are written; @series: with a send log only. */
static const struct figure {
	const char *name;
	plot_fn fn;
	bool series;
} figures[] = {
	{ "interval.svg", rx_plot_interval, false },
	{ "interval-linear.svg", rx_plot_interval_linear, false },
	{ "error-cdf.svg", rx_plot_error_cdf, false },
	{ "interval-hist.svg", rx_plot_interval_hist, false },
	{ "timeline.svg", rx_plot_timeline, false },
	{ "send-series.tsv", rx_send_series_tsv, true },
	{ "send-series.svg", rx_plot_send_series, true },
};

/* One figure on its way: written unnamed (or under tmp), then linked in as tmp, then renamed. */
struct pending {
	FILE *f;
	bool anon;     /* an O_TMPFILE, not yet linked */
	char tmp[64];  /* its temporary name in the directory; "" while it has none */
};

/* A fresh temporary name for @name in @dirfd: created (O_EXCL) with @create, else only chosen. */
static int tmp_name(int dirfd, const char *name, char *tmp, size_t len, bool create)
{
	for (int tries = 0; tries < 100; tries++) {
		uint32_t r;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (uint32_t)getpid() * 2654435761u + (uint32_t)tries;
		snprintf(tmp, len, ".%s.%08x", name, r);
		if (!create)
			return 0;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Write figure @g into a new file of @dirfd, not yet visible under its name. */
static int write_figure(int dirfd, const struct figure *g, struct pending *pf,
			const struct rx_result *res, const struct rx_recs *recs,
			const struct rx_ref *ref)
{
	int fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666), rc;

	pf->anon = fd >= 0;
	if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	/* No O_TMPFILE on this filesystem: a hidden name, removed if anything fails. */
	if (fd < 0 && (fd = tmp_name(dirfd, g->name, pf->tmp, sizeof(pf->tmp), true)) < 0) {
		pf->tmp[0] = '\0';
		return fd;
	}
	if (!(pf->f = fdopen(fd, "wb"))) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if ((rc = g->fn(pf->f, res, recs, ref)) < 0)
		return rc;
	return fflush(pf->f) != 0 || ferror(pf->f) ? -(errno ? errno : EIO) : 0;
}

/* Give an unnamed file a temporary name in @dirfd; 0 or -errno. */
static int link_tmp(int dirfd, const char *name, struct pending *pf)
{
	char proc[64];
	int rc;

	do {
		if ((rc = tmp_name(dirfd, name, pf->tmp, sizeof(pf->tmp), false)) < 0)
			return rc;
		if (linkat(fileno(pf->f), "", dirfd, pf->tmp, AT_EMPTY_PATH) == 0)
			return 0;
		/* AT_EMPTY_PATH wants CAP_DAC_READ_SEARCH on older kernels; /proc does not. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(pf->f));
		if (errno != EEXIST && linkat(AT_FDCWD, proc, dirfd, pf->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		rc = -errno;
	} while (rc == -EEXIST);
	pf->tmp[0] = '\0';
	return rc;
}

int rx_plot_write_at(int dirfd, const char *dir, const struct rx_result *res,
		     const struct rx_recs *recs, const struct rx_ref *ref, char *err, size_t errlen)
{
	struct pending pf[ARRAY_SIZE(figures)] = { 0 };
	struct stat st;
	size_t i, bad = 0;
	int rc = 0;

	/* Everything written and given a hidden name before any figure takes its own. */
	for (i = 0; i < ARRAY_SIZE(figures) && !rc; i++) {
		if (figures[i].series && !res->send_ns)
			continue;
		bad = i;
		if (!fstatat(dirfd, figures[i].name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
			rc = -EISDIR;
		else if (!(rc = write_figure(dirfd, &figures[i], &pf[i], res, recs, ref)) && pf[i].anon)
			rc = link_tmp(dirfd, figures[i].name, &pf[i]);
	}
	for (i = 0; i < ARRAY_SIZE(figures) && !rc; i++) {
		bad = i;
		if (pf[i].tmp[0] && renameat(dirfd, pf[i].tmp, dirfd, figures[i].name) < 0)
			rc = -errno;
		else
			pf[i].tmp[0] = '\0';
	}
	if (rc < 0)
		snprintf(err, errlen, "%s/%s: cannot write: %s", dir, figures[bad].name, strerror(-rc));
	for (i = 0; i < ARRAY_SIZE(figures); i++) {
		if (pf[i].tmp[0])
			unlinkat(dirfd, pf[i].tmp, 0);
		if (pf[i].f)
			fclose(pf[i].f);
	}
	return rc;
}

int rx_plot_write(const char *dir, const struct rx_result *res, const struct rx_recs *recs,
		  const struct rx_ref *ref, char *err, size_t errlen)
{
	int fd = rx_plot_dir_open(dir, err, errlen), rc;

	if (fd < 0)
		return fd;
	rc = rx_plot_write_at(fd, dir, res, recs, ref, err, errlen);
	close(fd);
	return rc;
}
