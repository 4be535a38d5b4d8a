// SPDX-License-Identifier: BSD-2-Clause
/*
 * umem-probe: which memory can this kernel take as an AF_XDP UMEM?
 *
 *   umem-probe FILE [SCRATCH_DIR]
 *
 * Zero-copy replay would register the trace's own mapping as the
 * UMEM, in unaligned-chunk mode, so frames go without the staging copy.  The
 * kernel pins a UMEM's pages for the socket's life (FOLL_WRITE |
 * FOLL_LONGTERM), which not every mapping allows.  This registers, one at a
 * time, FILE mapped as replay maps a trace (read-only, private), FILE mapped
 * private and writable, a copy of FILE in SCRATCH_DIR (default: FILE's
 * directory) mapped shared and writable, and anonymous memory of the same
 * size, and prints what the kernel answered for each.  Needs CAP_NET_RAW.
 * Nothing is sent: the socket is never bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/if_xdp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* Register [addr, addr + len) as a UMEM on a fresh socket; prints the outcome, returns 0 if taken. */
static int try_reg(const char *what, void *addr, size_t len)
{
	struct xdp_umem_reg mr = {
		.addr = (unsigned long)addr,
		.len = len,
		.chunk_size = 4096,
		.flags = XDP_UMEM_UNALIGNED_CHUNK_FLAG,
	};
	int fd, rc;

	if (addr == MAP_FAILED) {
		printf("%-44s not mapped: %s\n", what, strerror(errno));
		return -1;
	}
	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		printf("%-44s no AF_XDP socket: %s\n", what, strerror(errno));
		return -1;
	}
	rc = setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr));
	printf("%-44s %s\n", what, rc ? strerror(errno) : "registered");
	close(fd);
	munmap(addr, len);
	return rc;
}

/* Copy @src to a new file in @dir; its fd (read-write), or -1. */
static int copy_to(const char *src, const char *dir, char *path, size_t plen)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	snprintf(path, plen, "%s/umem-probe.XXXXXX", dir);
	out = mkstemp(path);
	if (in < 0 || out < 0)
		goto fail;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto fail;
	if (n < 0)
		goto fail;
	close(in);
	return out;
fail:
	if (in >= 0)
		close(in);
	if (out >= 0) {
		close(out);
		unlink(path);
	}
	return -1;
}

int main(int argc, char **argv)
{
	char scratch[4096], dirbuf[4096], label[128];
	const char *dir;
	struct stat st;
	size_t len;
	int fd, fdw;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: umem-probe FILE [SCRATCH_DIR]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		fprintf(stderr, "umem-probe: %s: %s\n", argv[1], fd < 0 ? strerror(errno) : "empty or unreadable");
		return 1;
	}
	len = ((size_t)st.st_size + 4095) & ~(size_t)4095;
	snprintf(dirbuf, sizeof(dirbuf), "%s", argv[1]);
	dir = argc == 3 ? argv[2] : dirname(dirbuf);
	printf("%s: %zu bytes\n", argv[1], len);
	try_reg("file, read-only private (as replay maps it)", mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0), len);
	try_reg("file, writable private (copy on write)",
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), len);
	fdw = copy_to(argv[1], dir, scratch, sizeof(scratch));
	if (fdw >= 0) {
		snprintf(label, sizeof(label), "copy in %s, writable shared", dir);
		try_reg(label, mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fdw, 0), len);
		close(fdw);
		unlink(scratch);
	} else {
		printf("%-44s no scratch copy in %s: %s\n", "copy, writable shared", dir, strerror(errno));
	}
	try_reg("anonymous", mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), len);
	close(fd);
	return 0;
}
