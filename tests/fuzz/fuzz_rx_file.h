/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay-rx's file inputs take a path: the fuzz input goes into a memfd,
 * named by /proc/self/fd/N, a regular file as far as the readers can tell.
 */
#ifndef FUZZ_RX_FILE_H
#define FUZZ_RX_FILE_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* A path whose file holds @size bytes of @data, or NULL; fuzz_rx_file_close() after. */
static inline const char *fuzz_rx_file(int *fd, const uint8_t *data, size_t size)
{
	static char path[64];

	*fd = memfd_create("rxfuzz", MFD_CLOEXEC);
	if (*fd < 0)
		return NULL;
	if (size && write(*fd, data, size) != (ssize_t)size) {
		close(*fd);
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *fd);
	return path;
}

static inline void fuzz_rx_file_close(int fd)
{
	close(fd);
}

#endif
