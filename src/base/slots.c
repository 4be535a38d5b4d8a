// SPDX-License-Identifier: BSD-2-Clause
/*
 * slots: fixed-size frame slots in two classes, resident before the run
 * (include/replay/slots.h says why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "replay/compiler.h"
#include "replay/slots.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static uint32_t round64(uint32_t v)
{
	return (v + 63u) & ~63u;
}

static void pool_free(struct slots_pool *p)
{
	if (p->mem)
		munmap(p->mem, p->map_bytes);
	free(p->free);
	memset(p, 0, sizeof(*p));
}

/* @resident: bytes from the start made resident now (page faults here, not in the loop). */
static int pool_init(struct slots_pool *p, unsigned n, uint32_t stride, size_t resident)
{
	memset(p, 0, sizeof(*p));
	p->stride = stride;
	p->map_bytes = (size_t)n * stride;
	p->mem = mmap(NULL, p->map_bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->mem == MAP_FAILED) {
		p->mem = NULL;
		return -ENOMEM;
	}
	p->free = malloc((size_t)n * sizeof(*p->free));
	if (!p->free) {
		pool_free(p);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
		p->free[i] = n - 1 - i; /* slot 0 on top */
	p->nfree = n;
	resident = MIN(resident, p->map_bytes);
	/* MADV_POPULATE_WRITE (5.14) faults the range in at once; older kernels: a write per page. */
	if (resident && madvise(p->mem, resident, MADV_POPULATE_WRITE) < 0) {
		if (errno == ENOMEM) {
			pool_free(p);
			return -ENOMEM;
		}
		for (size_t off = 0; off < resident; off += 4096)
			p->mem[off] = 0;
	}
	return 0;
}

int slots_init(struct slots *s, unsigned n, uint32_t max_bytes)
{
	uint32_t small;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!n || !max_bytes || max_bytes > UINT32_MAX - 64)
		return -EINVAL;
	small = round64(MIN(max_bytes, SLOTS_SMALL_BYTES));
	rc = pool_init(&s->pool[0], n, small, SLOTS_RESIDENT_MAX);
	if (rc == 0 && max_bytes > small)
		rc = pool_init(&s->pool[1], n, round64(max_bytes), 0);
	if (rc < 0) {
		slots_free(s);
		return rc;
	}
	s->n = n;
	s->max_bytes = max_bytes;
	return 0;
}

void slots_free(struct slots *s)
{
	pool_free(&s->pool[0]);
	pool_free(&s->pool[1]);
	s->n = 0;
	s->max_bytes = 0;
}

size_t slots_resident(const struct slots *s)
{
	return MIN(s->pool[0].map_bytes, SLOTS_RESIDENT_MAX);
}
