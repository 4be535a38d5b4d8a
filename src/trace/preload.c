// SPDX-License-Identifier: BSD-2-Clause
/*
 * --preload's memory: what is free, the copy of a regular file in 2 MiB
 * pages, and the one-line refusals when memory or the address-space limit
 * does not allow it.  A stream's preload grows in source.c through these.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "trace_int.h"

uint64_t trace_mem_available(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	if (kib)
		return (uint64_t)kib * 1024;
	return (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

int trace_preload_refused(struct trace *t, uint64_t need, uint64_t avail)
{
	return trace_err(t, -ENOMEM,
			 "--preload needs %.1f MiB but only %.1f MiB of memory is available; "
			 "replay it without --preload (it streams through a window)",
			 need / 1048576.0, avail / 1048576.0);
}

/* The process's address space in use (VmSize), bytes; 0 if unknown. */
static uint64_t vm_size(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return (uint64_t)kib * 1024;
}

int trace_preload_map_failed(struct trace *t, uint64_t need, uint64_t more, uint64_t avail)
{
	struct rlimit rl;
	uint64_t used;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    more > (uint64_t)rl.rlim_cur - MIN((used = vm_size()), (uint64_t)rl.rlim_cur))
		return trace_err(t, -ENOMEM,
				 "--preload needs %.1f MiB of address space, but the process's limit "
				 "(RLIMIT_AS, ulimit -v) is %.1f MiB, %.1f MiB of it in use; raise the limit "
				 "or replay it without --preload (it streams through a window)",
				 need / 1048576.0, (uint64_t)rl.rlim_cur / 1048576.0, used / 1048576.0);
	return trace_preload_refused(t, need, avail);
}

/* Read exactly @len bytes from @fd into @buf; 0 or -errno (-EIO if the file shrank). */
static int read_full(int fd, uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int trace_preload_file(struct trace *t, size_t size)
{
	uint64_t avail = trace_mem_available();
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t spare_off = (size + page - 1) / page * page, bytes = size;
	int rc;

	if (t->cfg.preload_spare_bytes)
		bytes = spare_off + t->cfg.preload_spare_bytes;
	if (bytes > avail)
		return trace_preload_refused(t, bytes, avail);
	t->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->mem == MAP_FAILED) {
		t->mem = NULL;
		return trace_preload_map_failed(t, bytes, bytes, avail);
	}
	t->mem_bytes = bytes;
	if (t->cfg.preload_spare_bytes)
		t->spare_off = spare_off;
	/*
	 * In 2 MiB pages where transparent huge pages are on ("madvise" is
	 * the usual default, so they must be asked for): a 306 MB trace then
	 * costs ~600 page faults to fill, not 74 700, and the send loop a TLB
	 * entry per 2 MiB (readbench drain preload: its user time 650 -> 13
	 * ms).
	 */
	(void)madvise(t->mem, size, MADV_HUGEPAGE);
	rc = read_full(t->fd, t->mem, size);
	if (rc < 0)
		return trace_err(t, rc, "cannot read: %s", rc == -EIO ? "the file shrank while it was read" : strerror(-rc));
	/* All of it is in memory: the descriptor is not needed (many files, few descriptors). */
	if (t->own_fd) {
		close(t->fd);
		t->own_fd = false;
	}
	t->fd = -1;
	return 0;
}
