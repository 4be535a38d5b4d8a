// SPDX-License-Identifier: BSD-2-Clause
/*
 * Output files (replay/outfile.h): conflicts between inputs and outputs,
 * all-or-nothing creation, symbolic links owned by another user; and the
 * interface counter parser of replay/checks.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/checks.h"
#include "replay/outfile.h"

static char dir[] = "/tmp/test_outfile.XXXXXX";
static char err[1024];

/*
 * A filesystem without O_TMPFILE, on demand: this binary is linked with
 * -Wl,--wrap=openat,--wrap=openat64 (the name libc gives it under 64-bit
 * file offsets), and while no_tmpfile is set openat() refuses O_TMPFILE as
 * such filesystems do, so outfile takes its fallback.
 */
static bool no_tmpfile;

int __real_openat(int dirfd, const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);

static int mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

static bool refuse(int flags)
{
	if (!no_tmpfile || (flags & O_TMPFILE) != O_TMPFILE)
		return false;
	errno = EOPNOTSUPP;
	return true;
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return refuse(flags) ? -1 : __real_openat(dirfd, path, flags, mode);
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return refuse(flags) ? -1 : __real_openat64(dirfd, path, flags, mode);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *p(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_content(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	assert_string_equal(buf, text);
}

/* Entries in dir, not counting . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int check2(const char *a, bool aout, const char *b, bool bout)
{
	struct outfile_use u[2] = { { a, aout ? "-w" : "input", aout }, { b, "--stats-json", bout } };

	err[0] = '\0';
	return outfile_check(u, 2, err, sizeof(err));
}

static void test_conflicts(void **state)
{
	char rel[600];

	(void)state;
	put_file(p("in.pcap"), "trace");
	/* An output on an input, by the same name, another name, a hard and a symbolic link. */
	assert_int_equal(check2(p("in.pcap"), false, p("in.pcap"), true), -EEXIST);
	assert_non_null(strstr(err, "refusing to overwrite an input"));
	assert_non_null(strstr(err, "--stats-json"));
	snprintf(rel, sizeof(rel), "%s/./sub/../in.pcap", dir);
	assert_int_equal(mkdir(p("sub"), 0700), 0);
	assert_int_equal(check2(p("in.pcap"), false, rel, true), -EEXIST);
	assert_int_equal(link(p("in.pcap"), p("hard.pcap")), 0);
	assert_int_equal(check2(p("in.pcap"), false, p("hard.pcap"), true), -EEXIST);
	assert_int_equal(symlink(p("in.pcap"), p("sym.pcap")), 0);
	assert_int_equal(check2(p("sym.pcap"), false, p("in.pcap"), true), -EEXIST);
	/* Two outputs on one name that does not exist yet. */
	assert_int_equal(check2(p("new"), true, p("sub/../new"), true), -EEXIST);
	assert_non_null(strstr(err, "the same file"));
	/* ... and through a dangling link to it. */
	assert_int_equal(symlink(p("new2"), p("dangling")), 0);
	assert_int_equal(check2(p("new2"), true, p("dangling"), true), -EEXIST);
	/* Standard output twice; standard input and output are different. */
	assert_int_equal(check2("-", true, "-", true), -EEXIST);
	assert_non_null(strstr(err, "standard output"));
	assert_int_equal(check2("-", false, "-", true), 0);
	/* Inputs may share; different outputs are fine; /dev/null is never a conflict. */
	assert_int_equal(check2(p("in.pcap"), false, p("hard.pcap"), false), 0);
	assert_int_equal(check2(p("a"), true, p("b"), true), 0);
	assert_int_equal(check2("/dev/null", true, "/dev/null", true), 0);
	/* NULL entries (options not given) are skipped. */
	assert_int_equal(check2(NULL, true, p("in.pcap"), true), 0);
	unlink(p("hard.pcap"));
	unlink(p("sym.pcap"));
	unlink(p("dangling"));
	rmdir(p("sub"));
	unlink(p("in.pcap"));
}

static void test_commit_and_abort(void **state)
{
	struct outfile of;

	(void)state;
	assert_int_equal(entries(), 0);
	/* Written unnamed: nothing in the directory until commit. */
	assert_int_equal(outfile_open(&of, p("out"), err, sizeof(err)), 0);
	assert_int_equal(write(of.fd, "new", 3), 3);
	assert_int_equal(entries(), 0);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	outfile_close(&of);
	assert_content(p("out"), "new");
	/* Replacing: the old content stays until commit, and after an abort. */
	assert_int_equal(outfile_open(&of, p("out"), err, sizeof(err)), 0);
	assert_int_equal(write(of.fd, "partial", 7), 7);
	assert_content(p("out"), "new");
	outfile_close(&of);
	assert_content(p("out"), "new");
	assert_int_equal(entries(), 1);
	assert_int_equal(outfile_open(&of, p("out"), err, sizeof(err)), 0);
	assert_int_equal(write(of.fd, "newer", 5), 5);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	outfile_close(&of);
	assert_content(p("out"), "newer");
	assert_int_equal(entries(), 1);
	/* Errors name the path. */
	assert_int_equal(outfile_open(&of, p("nodir/x"), err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "nodir/x"));
	outfile_close(&of);
	assert_true(outfile_open(&of, dir, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "is a directory"));
	outfile_close(&of);
	unlink(p("out"));
}

static void test_devices_and_stdout(void **state)
{
	struct outfile of;

	(void)state;
	assert_int_equal(outfile_open(&of, "/dev/null", err, sizeof(err)), 0);
	assert_true(of.direct);
	assert_int_equal(write(of.fd, "x", 1), 1);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	outfile_close(&of);
	assert_int_equal(outfile_open(&of, "-", err, sizeof(err)), 0);
	assert_int_equal(of.fd, STDOUT_FILENO);
	outfile_close(&of);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0); /* not closed */
}

static void test_foreign_symlink(void **state)
{
	struct outfile of;

	(void)state;
	if (geteuid() != 0) {
		skip(); /* chown of a link to another user needs root */
		return;
	}
	put_file(p("victim"), "secret");
	assert_int_equal(symlink(p("victim"), p("planted")), 0);
	assert_int_equal(lchown(p("planted"), 65534, 65534), 0);
	assert_int_equal(outfile_open(&of, p("planted"), err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "owned by another user"));
	outfile_close(&of);
	assert_content(p("victim"), "secret");
	/* Our own link is followed: the target is replaced, the link stays. */
	assert_int_equal(symlink(p("victim"), p("mine")), 0);
	assert_int_equal(outfile_open(&of, p("mine"), err, sizeof(err)), 0);
	assert_int_equal(write(of.fd, "fresh", 5), 5);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	outfile_close(&of);
	assert_content(p("victim"), "fresh");
	{
		struct stat st;

		assert_int_equal(lstat(p("mine"), &st), 0);
		assert_true(S_ISLNK(st.st_mode));
	}
	unlink(p("mine"));
	unlink(p("planted"));
	unlink(p("victim"));
}

/* Replace an existing file named @name: the old content until commit, the new after, nothing else left. */
static void replace(const char *name)
{
	struct outfile of;

	put_file(p(name), "old");
	assert_int_equal(outfile_open(&of, p(name), err, sizeof(err)), 0);
	assert_int_equal(write(of.fd, "new", 3), 3);
	assert_content(p(name), "old");
	if (of.tmp) /* the fallback's temporary: beside the target, within the longest name */
		assert_true(strlen(of.tmp) <= NAME_MAX);
	if (outfile_commit(&of, err, sizeof(err)) < 0)
		fail_msg("a %zu-byte name: %s", strlen(name), err);
	outfile_close(&of);
	assert_content(p(name), "new");
	assert_int_equal(entries(), 1);
	assert_int_equal(unlink(p(name)), 0);
}

/*
 * Names up to the longest a directory takes: the temporary ".NAME.XXXXXX"
 * would be 8 bytes longer, so it is cut, at a character boundary -- with
 * O_TMPFILE (the temporary link made at commit when the name exists) and
 * without (the temporary created at open).
 */
static void test_long_names(void **state)
{
	char name[NAME_MAX + 1];

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		no_tmpfile = pass == 1;
		for (size_t len = NAME_MAX - 8; len <= NAME_MAX; len++) {
			memset(name, 'n', len);
			name[len] = '\0';
			replace(name);
		}
		/* 127 two-byte characters and one byte: a cut at 247 bytes would split a character. */
		for (int i = 0; i < 127; i++)
			memcpy(name + 2 * i, "\xc3\xa9", 2);
		strcpy(name + 254, "x");
		replace(name);
	}
	/* The cut keeps whole characters: the temporary is "." + 123 of them + "." + six letters. */
	{
		struct outfile of;

		put_file(p(name), "old");
		assert_int_equal(outfile_open(&of, p(name), err, sizeof(err)), 0);
		assert_non_null(of.tmp);
		assert_int_equal(strlen(of.tmp), 1 + 246 + 1 + 6);
		assert_memory_equal(of.tmp + 1, name, 246);
		assert_int_equal(of.tmp[247], '.');
		outfile_close(&of);
		assert_content(p(name), "old");
		assert_int_equal(entries(), 1);
		assert_int_equal(unlink(p(name)), 0);
	}
	no_tmpfile = false;
}

static void test_ifcheck_parse(void **state)
{
	static const char dev[] =
		"Inter-|   Receive                                                |  Transmit\n"
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
		"    lo:    1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0\n"
		"rpa123: 5000 50 0 1 0 0 0 0 7200 72 0 3 0 0 0 0\n"
		"rpa12: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n";
	uint64_t txp = 0, txd = 0;

	(void)state;
	assert_int_equal(ifcheck_parse(dev, "rpa123", &txp, &txd), 0);
	assert_int_equal(txp, 72);
	assert_int_equal(txd, 3);
	assert_int_equal(ifcheck_parse(dev, "rpa12", &txp, &txd), 0);
	assert_int_equal(txp, 10);
	assert_int_equal(txd, 12);
	assert_int_equal(ifcheck_parse(dev, "lo", &txp, &txd), 0);
	assert_int_equal(txp, 10);
	assert_int_equal(ifcheck_parse(dev, "rpa1", &txp, &txd), -ENOENT);
	assert_int_equal(ifcheck_parse("x: 1 2 3\n", "x", &txp, &txd), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_commit_and_abort),
		cmocka_unit_test(test_devices_and_stdout),
		cmocka_unit_test(test_foreign_symlink),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_ifcheck_parse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
