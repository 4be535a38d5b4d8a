// SPDX-License-Identifier: BSD-2-Clause
/*
 * The prep sidecar: NetVCR's preparation step (Feng, Bezzaz, Feng and
 * Walpole, "NetVCR: a high-performance packet replay engine", 2002,
 * §III-C).  `replay prep` walks a trace once through the same edit chain
 * the replay will use and writes, for every record, its layer offsets and
 * the checksums its edited (padded, rewritten) form carries; `replay --prep`
 * maps the file and the chain copies those values instead of parsing and
 * summing.  This file is the format and the reading (the chain's
 * prep_lookup()); prep_write.c writes it.
 *
 * The sidecar is bound to its trace (size and a hash of its whole content)
 * and to the edit options (edit_cfg_hash()); anything else is refused, since
 * stale checksums would go on the wire looking valid to us.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edit_int.h"
#include "replay/mapguard.h"
#include "replay/split.h"

#define PREP_MAGIC "RPLYPREP"

struct edit_prep {
	const uint8_t *map; /* the whole file */
	size_t len;
	uint64_t nrec;
	char *path;         /* for messages */
	int fd;             /* kept open: how far the file shrank, if it does */
	struct mapguard bus; /* a read the truncated file no longer holds (replay/mapguard.h) */
};

static void put_le(uint8_t *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get_le(const uint8_t *b, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

void prep_encode(uint8_t *b, const struct prep_rec *r)
{
	memset(b, 0, PREP_REC_BYTES);
	put_le(b + 0, r->caplen, 4);
	put_le(b + 4, r->wirelen, 4);
	put_le(b + 8, r->l.l3off, 2);
	put_le(b + 10, r->l.ethertype, 2);
	b[12] = r->l.nvlan;
	b[13] = r->l.ipver;
	b[14] = r->l.l4proto;
	b[15] = r->l.flags;
	put_le(b + 16, r->l.l4off, 2);
	put_le(b + 18, r->l.l4hdr, 2);
	put_le(b + 20, r->l.l3len, 4);
	b[24] = r->flags;
	b[25] = r->side;
	put_le(b + 26, r->ip4_off, 2);
	put_le(b + 28, r->ip4_csum, 2);
	put_le(b + 30, r->l4_off, 2);
	put_le(b + 32, r->l4_csum, 2);
}

void prep_decode(const uint8_t *b, struct prep_rec *r)
{
	/* Field by field (the hot path with --prep): no memset, fixed-size loads. */
	r->caplen = le32(b + 0);
	r->wirelen = le32(b + 4);
	r->l.l3off = le16(b + 8);
	r->l.ethertype = le16(b + 10);
	r->l.nvlan = b[12];
	r->l.ipver = b[13];
	r->l.l4proto = b[14];
	r->l.flags = b[15];
	r->l.l4off = le16(b + 16);
	r->l.l4hdr = le16(b + 18);
	r->l.l3len = le32(b + 20);
	r->flags = b[24];
	r->side = b[25];
	r->ip4_off = le16(b + 26);
	r->ip4_csum = le16(b + 28);
	r->l4_off = le16(b + 30);
	r->l4_csum = le16(b + 32);
}

int prep_lookup(const struct edit_prep *prep, uint64_t recno, struct prep_rec *r)
{
	if (recno < 1 || recno > prep->nrec)
		return -ERANGE;
	prep_decode(prep->map + PREP_HDR_BYTES + (recno - 1) * PREP_REC_BYTES, r);
	/* The file truncated under the mapping: what was decoded is the handler's zeros. */
	if (unlikely(mapguard_faulted(&prep->bus)))
		return -EIO;
	return 0;
}

bool prep_shrank(const struct edit_prep *prep)
{
	struct stat st;

	return fstat(prep->fd, &st) == 0 && (uint64_t)st.st_size < prep->len;
}

void prep_fault_reason(const struct edit_prep *prep, uint64_t recno, char *buf, size_t len)
{
	struct stat st;

	if (fstat(prep->fd, &st) == 0 && (uint64_t)st.st_size < prep->len)
		snprintf(buf, len,
			 "%s: the prep sidecar shrank from %zu to %llu bytes while it was read (truncated or made again under us); record %llu is gone",
			 prep->path, prep->len, (unsigned long long)st.st_size,
			 (unsigned long long)recno);
	else
		snprintf(buf, len, "%s: cannot read offset 0x%zx of the mapped prep sidecar (I/O error)",
			 prep->path, prep->bus.off);
}

/*
 * The content hash: four lanes of xxHash64's round (Yann Collet, "xxHash,
 * extremely fast hash algorithm", 2012; its published primes) over 32-byte
 * blocks, merged with the length and finished by SplitMix64's mixer (Steele,
 * Lea and Flood, "Fast splittable pseudorandom number generators", 2014).
 * Several GB/s: checking a trace costs about one sequential read of it.
 * Not cryptographic: it tells a changed trace from its sidecar's, it does not
 * stand against someone forging a collision.
 */
#define HASH_P1 0x9e3779b185ebca87ull
#define HASH_P2 0xc2b2ae3d27d4eb4full
#define HASH_BLOCK 32u
#define HASH_READ_BYTES (1u << 20) /* a multiple of HASH_BLOCK */

struct content_hash {
	uint64_t lane[4];
	uint64_t len;
};

static inline uint64_t rotl64(uint64_t v, int r)
{
	return v << r | v >> (64 - r);
}

static void hash_init(struct content_hash *h)
{
	h->lane[0] = HASH_P1 + HASH_P2;
	h->lane[1] = HASH_P2;
	h->lane[2] = 0;
	h->lane[3] = 0 - HASH_P1;
	h->len = 0;
}

/* hash_blocks() - @n bytes (a multiple of HASH_BLOCK) at @b. */
static void hash_blocks(struct content_hash *h, const uint8_t *b, size_t n)
{
	for (size_t at = 0; at < n; at += HASH_BLOCK)
		for (int i = 0; i < 4; i++) {
			uint64_t w;

			memcpy(&w, b + at + 8 * i, 8);
			w = le64toh(w);
			h->lane[i] = rotl64(h->lane[i] + w * HASH_P2, 31) * HASH_P1;
		}
	h->len += n;
}

/* hash_final() - the value, after the last @n (< HASH_BLOCK) bytes at @b. */
static uint64_t hash_final(struct content_hash *h, const uint8_t *b, size_t n)
{
	uint8_t tail[HASH_BLOCK] = { 0 };
	uint64_t v;

	memcpy(tail, b, n);
	hash_blocks(h, tail, HASH_BLOCK); /* zero padding; the true length goes in below */
	h->len -= HASH_BLOCK - n;
	v = rotl64(h->lane[0], 1) + rotl64(h->lane[1], 7) + rotl64(h->lane[2], 12) +
	    rotl64(h->lane[3], 18) + h->len;
	v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
	v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
	return v ^ (v >> 31);
}

uint64_t edit_prep_content_hash(const void *buf, size_t len)
{
	struct content_hash h;
	size_t whole = len / HASH_BLOCK * HASH_BLOCK;

	hash_init(&h);
	hash_blocks(&h, buf, whole);
	return hash_final(&h, (const uint8_t *)buf + whole, len - whole);
}

/*
 * The trace's identity: its size and a hash of its whole content, read once
 * from start to end.  Not the modification time: a trace copied or touched
 * but unchanged keeps its sidecar; one changed in a single byte does not.
 */
int prep_trace_identity(const char *path, uint64_t *size, uint64_t *hash, char *err, size_t errlen)
{
	struct content_hash h;
	struct stat st;
	uint8_t *buf = NULL;
	size_t have = 0;
	int rc = 0, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: a prep sidecar needs a regular trace file", path);
		return -EINVAL;
	}
	buf = malloc(HASH_READ_BYTES);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	hash_init(&h);
	for (;;) {
		ssize_t n = read(fd, buf + have, HASH_READ_BYTES - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have == HASH_READ_BYTES) {
			hash_blocks(&h, buf, have);
			have = 0;
		}
	}
	if (!rc) {
		size_t whole = have / HASH_BLOCK * HASH_BLOCK;

		hash_blocks(&h, buf, whole);
		*hash = hash_final(&h, buf + whole, have - whole);
		*size = h.len;
	}
	free(buf);
	close(fd);
	return rc;
}

/* The identity of a --split mode string, never 0 (0 means "no split stored"). */
static uint64_t split_id(const char *mode)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *c = mode; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return h ? h : 1;
}

/* The kind of mode @mode names (the text before any ':'), as split_mode_name() spells it. */
static int split_kind(const char *mode)
{
	size_t n = strcspn(mode, ":");

	for (int m = 0; m < SPLIT_MODE_MAX; m++)
		if (strlen(split_mode_name((enum split_mode)m)) == n &&
		    !strncmp(split_mode_name((enum split_mode)m), mode, n))
			return m;
	return -1;
}

void prep_header(uint8_t *hdr, uint64_t size, uint64_t hash, const struct edit_cfg *cfg)
{
	memset(hdr, 0, PREP_HDR_BYTES);
	memcpy(hdr, PREP_MAGIC, 8);
	put_le(hdr + 8, EDIT_PREP_VERSION, 4);
	put_le(hdr + 12, PREP_REC_BYTES, 4);
	put_le(hdr + 16, size, 8);
	put_le(hdr + 24, hash, 8);
	/* 32..39: the --split mode's hash, 56: its kind + 1 (prep_header_split()); 0 = none */
	put_le(hdr + 40, edit_cfg_hash(cfg), 8);
	/* 48..55: the record count (prep_header_count()) */
}

void prep_header_split(uint8_t *hdr, const char *mode)
{
	put_le(hdr + 32, split_id(mode), 8);
	hdr[56] = (uint8_t)(split_kind(mode) + 1);
}

void prep_header_count(uint8_t *hdr, uint64_t nrec)
{
	put_le(hdr + 48, nrec, 8);
}

int edit_prep_split(const struct edit_prep *p, const char *mode, const char **held, char *err,
		    size_t errlen)
{
	uint64_t id = get_le(p->map + 32, 8);
	int kind = (int)p->map[56] - 1;
	const char *name = kind >= 0 && kind < SPLIT_MODE_MAX ? split_mode_name((enum split_mode)kind) : "?";

	if (held)
		*held = id ? name : NULL;
	if (!id)
		return 0;
	if (!mode || id == split_id(mode))
		return 1;
	snprintf(err, errlen, "the sidecar holds the sides of --split %s%s, not of --split %s; run 'replay prep --split %s' again",
		 name, kind == SPLIT_CIDR || kind == SPLIT_MAC ? ":(another list)" : "", mode, mode);
	return -ESTALE;
}

int edit_prep_side(const struct edit_prep *p, uint64_t recno)
{
	struct prep_rec r;

	if (!get_le(p->map + 32, 8) || prep_lookup(p, recno, &r) < 0 ||
	    (r.side != SPLIT_INTF1 && r.side != SPLIT_INTF2))
		return -ERANGE;
	return r.side;
}

int edit_prep_open(struct edit_prep **pp, const char *path, const char *trace_path,
		   const struct edit_cfg *cfg, char *err, size_t errlen)
{
	struct edit_prep *p = calloc(1, sizeof(*p));
	uint64_t size, hash, nrec;
	struct stat st;
	void *m;
	int rc;

	*pp = NULL;
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (cfg->fuzz_seed != EDIT_UNSET) {
		snprintf(err, errlen, "--fuzz-seed changes bytes and lengths a prep sidecar cannot know: no --prep");
		free(p);
		return -EINVAL;
	}
	/* The trace first: a sidecar is checked against a file's whole content, which a pipe has not. */
	if (!strcmp(trace_path, "-") ||
	    (stat(trace_path, &st) == 0 && !S_ISREG(st.st_mode))) {
		snprintf(err, errlen,
			 "--prep: the trace %s is %s, not a regular file; a sidecar is checked against the whole trace file, so give its path",
			 trace_path, !strcmp(trace_path, "-") ? "standard input" : "a pipe or device");
		free(p);
		return -EINVAL;
	}
	p->fd = -1;
	p->path = strdup(path);
	if (!p->path) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	/* Non-blocking: a FIFO with no writer would hold open() forever; it is refused below. */
	p->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (p->fd < 0 || fstat(p->fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size < PREP_HDR_BYTES) {
		snprintf(err, errlen, "%s: not a replay prep sidecar (%s)", path,
			 S_ISREG(st.st_mode) ? "too short" : "not a regular file");
		rc = -EINVAL;
		goto fail;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
		goto fail;
	}
	p->map = m;
	p->len = (size_t)st.st_size;
	/* From here on a truncation of the file fails the records it took, not the process. */
	mapguard_watch(&p->bus, p->map, p->len, NULL);
	if (memcmp(p->map, PREP_MAGIC, 8)) {
		snprintf(err, errlen, "%s: not a replay prep sidecar (bad magic)", path);
		rc = -EINVAL;
		goto fail;
	}
	if (get_le(p->map + 8, 4) != EDIT_PREP_VERSION || get_le(p->map + 12, 4) != PREP_REC_BYTES) {
		snprintf(err, errlen, "%s: sidecar version %u, this replay reads version %u; run 'replay prep' again", path,
			 (unsigned)get_le(p->map + 8, 4), EDIT_PREP_VERSION);
		rc = -EINVAL;
		goto fail;
	}
	nrec = get_le(p->map + 48, 8);
	if (nrec > (p->len - PREP_HDR_BYTES) / PREP_REC_BYTES ||
	    p->len != PREP_HDR_BYTES + nrec * PREP_REC_BYTES) {
		snprintf(err, errlen, "%s: truncated or corrupt sidecar (%llu records in %zu bytes)", path,
			 (unsigned long long)nrec, p->len);
		rc = -EINVAL;
		goto fail;
	}
	p->nrec = nrec;
	rc = prep_trace_identity(trace_path, &size, &hash, err, errlen);
	if (rc < 0)
		goto fail;
	if (get_le(p->map + 16, 8) != size || get_le(p->map + 24, 8) != hash) {
		snprintf(err, errlen,
			 "%s: stale or foreign sidecar: it was made for a trace of %llu bytes with content hash %016llx, %s is %llu bytes with content hash %016llx; run 'replay prep' again",
			 path, (unsigned long long)get_le(p->map + 16, 8),
			 (unsigned long long)get_le(p->map + 24, 8), trace_path,
			 (unsigned long long)size, (unsigned long long)hash);
		rc = -ESTALE;
		goto fail;
	}
	if (get_le(p->map + 40, 8) != edit_cfg_hash(cfg)) {
		snprintf(err, errlen,
			 "%s: the sidecar was made with other edit options; run 'replay prep' with the same ones",
			 path);
		rc = -ESTALE;
		goto fail;
	}
	if (mapguard_faulted(&p->bus)) {
		prep_fault_reason(p, 0, err, errlen);
		rc = -EIO;
		goto fail;
	}
	*pp = p;
	return 0;
fail:
	edit_prep_close(p);
	return rc;
}

void edit_prep_close(struct edit_prep *p)
{
	if (!p)
		return;
	if (p->map) {
		mapguard_unwatch(&p->bus);
		munmap((void *)p->map, p->len);
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p->path);
	free(p);
}
