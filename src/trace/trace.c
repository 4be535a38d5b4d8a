// SPDX-License-Identifier: BSD-2-Clause
/*
 * Format-independent half of the readers: opening the input, choosing the
 * format by magic number (as libpcap's check_headers[] does), the cursor, and
 * error text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

/* Probe order does not matter: every magic is distinct. */
static const struct trace_ops *const formats[] = {
	&trace_pcap_ops,
};

/* Formats we recognise but cannot read yet: a clear error beats "unknown magic". */
static const struct {
	uint32_t magic_be; /* first four bytes, read big-endian */
	const char *what;
} known_unsupported[] = {
	{ 0x0a0d0d0a, "pcapng" }, /* Section Header Block type; same in both byte orders */
};

static uint32_t head_be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void vformat(char *buf, size_t len, const char *prefix, const char *fmt, va_list ap)
{
	int n = snprintf(buf, len, "%s", prefix);

	if (n < 0 || (size_t)n >= len)
		return;
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

int trace_err(struct trace *t, int err, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: ", t->name);
	va_start(ap, fmt);
	vformat(t->err, sizeof(t->err), prefix, fmt, ap);
	va_end(ap);
	return err;
}

int trace_rec_err(struct trace *t, int err, uint64_t recno, uint64_t off, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: record %llu at offset 0x%llx: ", t->name,
		 (unsigned long long)recno, (unsigned long long)off);
	va_start(ap, fmt);
	vformat(t->err, sizeof(t->err), prefix, fmt, ap);
	va_end(ap);
	return err;
}

void trace_rec_warn(struct trace *t, uint64_t recno, uint64_t off, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	if (t->nwarn++)
		return;
	snprintf(prefix, sizeof(prefix), "%s: record %llu at offset 0x%llx: ", t->name,
		 (unsigned long long)recno, (unsigned long long)off);
	va_start(ap, fmt);
	vformat(t->warn, sizeof(t->warn), prefix, fmt, ap);
	va_end(ap);
}

static struct trace *trace_alloc(const char *name)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fd = -1;
	t->name = strdup(name);
	if (!t->name) {
		free(t);
		return NULL;
	}
	return t;
}

/* Choose the format by magic and parse the file header. */
static int trace_start(struct trace *t)
{
	size_t got;
	const uint8_t *head;

	if (t->size == 0)
		return trace_err(t, -EINVAL, "empty file, not a trace");
	head = trace_peek(t, t->size, &got);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		if (formats[i]->probe(head, got)) {
			int rc;

			t->ops = formats[i];
			rc = t->ops->open(t);
			if (rc < 0) {
				t->ops->close(t);
				t->ops = NULL;
			}
			return rc;
		}
	}
	if (got < 4)
		return trace_err(t, -EINVAL, "file of %zu bytes is too short to be a trace", got);
	for (size_t i = 0; i < ARRAY_SIZE(known_unsupported); i++)
		if (head_be32(head) == known_unsupported[i].magic_be)
			return trace_err(t, -ENOTSUP, "%s traces are not supported yet",
					 known_unsupported[i].what);
	return trace_err(t, -EINVAL, "not a trace file (unknown magic 0x%08x)", head_be32(head));
}

int trace_open_mem(struct trace **tp, const char *name, const void *buf, size_t len,
		   const struct trace_cfg *cfg)
{
	struct trace *t = trace_alloc(name);

	(void)cfg;
	*tp = t;
	if (!t)
		return -ENOMEM;
	t->base = buf;
	t->size = len;
	return trace_start(t);
}

int trace_open(struct trace **tp, const char *path, const struct trace_cfg *cfg)
{
	struct trace *t = trace_alloc(path);
	struct stat st;

	(void)cfg;
	*tp = t;
	if (!t)
		return -ENOMEM;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0)
		return trace_err(t, -errno, "cannot open: %s", strerror(errno));
	if (fstat(t->fd, &st) < 0)
		return trace_err(t, -errno, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return trace_err(t, -EISDIR, "is a directory, not a trace");
	if (!S_ISREG(st.st_mode))
		return trace_err(t, -ENOTSUP, "not a regular file (reading pipes and devices is not supported yet)");
	if (st.st_size > 0) {
		/*
		 * Map the whole file: a view then stays valid as long as the
		 * mapping, and the kernel's sequential read-ahead feeds us.
		 */
		t->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, t->fd, 0);
		if (t->map == MAP_FAILED) {
			t->map = NULL;
			return trace_err(t, -errno, "cannot map: %s", strerror(errno));
		}
		(void)madvise(t->map, (size_t)st.st_size, MADV_SEQUENTIAL);
		t->base = t->map;
		t->size = (size_t)st.st_size;
	}
	return trace_start(t);
}

int trace_next(struct trace *t, struct pkt *p)
{
	if (!t->ops)
		return -EINVAL;
	return t->ops->next(t, p);
}

int trace_rewind(struct trace *t)
{
	int rc;

	if (!t->ops)
		return -EINVAL;
	/* Re-parse the header: the format's state goes back to its start too. */
	t->ops->close(t);
	t->pos = 0;
	t->recno = 0;
	rc = t->ops->open(t);
	if (rc < 0) {
		t->ops->close(t);
		t->ops = NULL;
	}
	return rc;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	if (t->ops)
		t->ops->close(t);
	if (t->map)
		munmap(t->map, t->size);
	if (t->fd >= 0)
		close(t->fd);
	free(t->name);
	free(t);
}

const char *trace_strerror(const struct trace *t)
{
	return t && t->err[0] ? t->err : "unknown error";
}

uint64_t trace_warnings(const struct trace *t, const char **first)
{
	if (first)
		*first = t->warn;
	return t->nwarn;
}

const char *trace_name(const struct trace *t)
{
	return t->name;
}

const char *trace_format_name(const struct trace *t)
{
	return t->ops ? t->ops->name : "unknown";
}

unsigned trace_linktype(const struct trace *t)
{
	return t->linktype;
}
