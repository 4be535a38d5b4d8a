/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside the impairment module: the two forms' codecs, shared by reader, writer and engine. */
#ifndef REPLAY_IMPAIR_INT_H
#define REPLAY_IMPAIR_INT_H

#include <stdio.h>

#include "replay/compiler.h"
#include "replay/impair.h"

/* Base word and extension layout (replay/impair.h). */
#define IMPAIR_W_VALUE_MASK 0x03ffffffu
#define IMPAIR_W_UNIT_SHIFT 26
#define IMPAIR_W_UNIT_WIDE 3u
#define IMPAIR_W_DROP (1u << 28)
#define IMPAIR_W_EXT (1u << 29)
#define IMPAIR_W_RESERVED 0xc0000000u
#define IMPAIR_W_DELAY_MASK 0x0fffffffu
#define IMPAIR_C_KIND_SHIFT 30
#define IMPAIR_C_POS_MASK 0x3fffffffu

/* impair_action_check() - can a trace hold @a?  0 or -EINVAL with the reason in @err. */
int impair_action_check(const struct impair_action *a, char *err, size_t errlen);

/* impair_text_write() - the canonical line of @a; 0 or -EIO. */
int impair_text_write(FILE *f, const struct impair_action *a);

/* impair_bin_write() - @a's words; 0 or -EIO. */
int impair_bin_write(FILE *f, const struct impair_action *a);

#endif
