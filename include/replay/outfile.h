/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Output files: checked against every input and every other output before
 * anything is opened for writing, and created so that nothing is written
 * through a path another user controls.
 *
 * Conflicts.  outfile_check() compares each output with every input and
 * every other output of one run by identity: an existing file by its
 * (device, inode), following symbolic links, so a hard link or a symlink to
 * an input is caught; a name that does not exist yet by (device, inode of
 * its directory, last component), so "out" and "./x/../out" are one file.
 * "-" is standard output for an output (standard input for an input); two
 * outputs on "-" are refused, as is an output whose file is the one
 * standard output is already bound to by another "-".  Character devices
 * (/dev/null, a terminal) never conflict: writing one twice loses nothing.
 *
 * Creation.  outfile_open() writes a regular output into a new, unnamed
 * file in the target's directory (O_TMPFILE), which outfile_commit() links
 * into place (linkat) and renames over the old name; a run that fails or is
 * killed (even by SIGKILL) leaves the old file as it was and no temporary
 * behind.  Where the filesystem has no O_TMPFILE, a ".NAME.XXXXXX" file is
 * created with O_EXCL|O_NOFOLLOW beside the target and renamed at commit
 * (removed on failure; a SIGKILL can leave it).  A temporary name never
 * exceeds the directory's longest name: for a target whose own name is
 * within 8 bytes of it, NAME is cut short, so any name that is legal can be
 * replaced.
 *
 * Symbolic links.  An output name that is a symbolic link is followed only
 * when the link is owned by the user running the program or by root -- the
 * rule of the kernel's fs.protected_symlinks for sticky directories, applied
 * to every directory -- and then the link's target is replaced (never
 * written in place).  A link owned by anyone else is refused with an error:
 * a link planted in /tmp by another user cannot redirect root's output.
 * Existing devices and FIFOs (/dev/null, a named pipe to a reader) are
 * written directly, opened without O_CREAT and with O_NOFOLLOW.
 */
#ifndef REPLAY_OUTFILE_H
#define REPLAY_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One path a run reads or writes, for outfile_check(). */
struct outfile_use {
	const char *path; /* NULL entries are skipped */
	const char *opt;  /* how it was given, for messages: "-w", "--stats-json", "input" */
	bool output;
};

/*
 * outfile_check() - refuse a run in which an output would overwrite an
 * input or another output (see the top of this file).  Returns 0, or
 * -EEXIST with a one-line reason in @err naming both options and paths.
 * Opens nothing for writing.
 */
int outfile_check(const struct outfile_use *u, size_t n, char *err, size_t errlen);

#define OUTFILE_INIT { .fd = -1, .dirfd = -1 }

struct outfile {
	int fd;          /* where to write; -1 when closed */
	char *path;      /* as given, for messages */
	char *dir;       /* directory of the resolved target */
	char *name;      /* last component of the resolved target */
	char *tmp;       /* fallback: the temporary's name in dir; NULL otherwise */
	int dirfd;       /* dir, opened O_PATH; -1 for direct outputs */
	bool anon;       /* fd is an O_TMPFILE, linked in at commit */
	bool direct;     /* stdout, a device or a FIFO: written as it is, nothing to commit */
	bool committed;
};

/*
 * outfile_open() - prepare to write @path ("-" = standard output).  On
 * success 0 with @of->fd ready; else -errno with a one-line reason in @err
 * (and @of safe to pass to outfile_abort()).
 */
int outfile_open(struct outfile *of, const char *path, char *err, size_t errlen);

/*
 * outfile_commit() - give the written file its name (see the top).  The
 * caller has flushed everything into @of->fd; the descriptor stays open
 * until outfile_close().  0, or -errno with the reason in @err.
 */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/*
 * outfile_close() - close the descriptor (unless it is standard output)
 * and, if not committed, discard what was written: the old file stays.
 * Accepts an @of after a failed outfile_open(), an already closed one, or
 * one set to OUTFILE_INIT (a zeroed one is not: fd 0 is a descriptor).
 */
void outfile_close(struct outfile *of);

/*
 * outfile_fopen() - outfile_open() and a stdio stream on it ("wb"), which
 * the caller flushes, commits with outfile_fcommit() and ends with
 * outfile_fclose().  NULL with the reason in @err and errno set (EPERM: a
 * symbolic link owned by another user, which @err names); @of is then
 * already closed.
 */
FILE *outfile_fopen(struct outfile *of, const char *path, char *err, size_t errlen);

/* outfile_fcommit() - fflush(@f), then outfile_commit(); 0 or -errno with @err set. */
int outfile_fcommit(struct outfile *of, FILE *f, char *err, size_t errlen);

/* outfile_fclose() - fclose(@f) (unless it is stdout, which is only flushed), then outfile_close(). */
void outfile_fclose(struct outfile *of, FILE *f);

#endif
