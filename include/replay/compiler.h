/* SPDX-License-Identifier: BSD-2-Clause */
/* Small compiler attributes and macros shared by every module. */
#ifndef REPLAY_COMPILER_H
#define REPLAY_COMPILER_H

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MAYBE_UNUSED    __attribute__((unused))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define NSEC_PER_SEC  1000000000ULL
#define NSEC_PER_USEC 1000ULL

#endif
