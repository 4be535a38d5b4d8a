// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the send log reader (replay-rx --send-log): any bytes as a file.  It
 * must refuse what is not a whole log with a message, never read past what
 * it was given, and map every time it returns (ASan/UBSan watch).  The file
 * is a memfd: the reader takes a path and checks for a regular file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/sendlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sendlog_data d;
	char path[64], err[512];
	uint64_t sum = 0;
	int fd = memfd_create("sendlog", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (sendlog_load(&d, path, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < d.count; i++)
			sum += sendlog_realtime(&d, d.e[i].run_ns) ^ d.e[i].id ^ d.e[i].recno;
		sendlog_free(&d);
	} else if (!err[0]) {
		__builtin_trap(); /* every refusal says why */
	}
	close(fd);
	return (int)(sum & 0);
}
