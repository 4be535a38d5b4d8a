// SPDX-License-Identifier: BSD-2-Clause
/* libreplay's log sink (lib_int.h): the last error for the handle, the rest to the caller's function. */
#include <pthread.h>
#include <stdio.h>

#include "libreplay.h"
#include "lib_int.h"

/* The run's threads log at once: one line at a time into the buffer and the function. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread char *tl_buf;   /* this thread's run's */
static __thread size_t tl_len;
static char *err_buf;            /* for the threads without one */
static size_t err_len;
static void (*user_fn)(void *ctx, int level, const char *line);
static void *user_ctx;
static int user_max = LOG_LVL_ERR;

static void sink(void *ctx, enum log_level lvl, const char *line)
{
	(void)ctx;
	pthread_mutex_lock(&log_mu);
	if (lvl == LOG_LVL_ERR && tl_buf)
		snprintf(tl_buf, tl_len, "%s", line);
	else if (lvl == LOG_LVL_ERR && err_buf)
		snprintf(err_buf, err_len, "%s", line);
	if (user_fn && (int)lvl <= user_max)
		user_fn(user_ctx, (int)lvl, line);
	pthread_mutex_unlock(&log_mu);
}

void replay_set_log(void (*fn)(void *ctx, int level, const char *line), void *ctx, int max_level)
{
	pthread_mutex_lock(&log_mu);
	user_fn = fn;
	user_ctx = ctx;
	user_max = max_level < LOG_LVL_ERR ? LOG_LVL_ERR
		   : max_level >= LOG_LVL_MAX ? LOG_LVL_MAX - 1 : max_level;
	pthread_mutex_unlock(&log_mu);
}

void lib_log_begin(char *err, size_t len, bool others)
{
	pthread_mutex_lock(&log_mu);
	tl_buf = err;
	tl_len = len;
	if (others) {
		err_buf = err;
		err_len = len;
	}
	log_init("replay", user_fn ? (enum log_level)user_max : LOG_LVL_ERR);
	log_set_sink(sink, NULL);
	pthread_mutex_unlock(&log_mu);
}

void lib_log_end(void)
{
	pthread_mutex_lock(&log_mu);
	if (err_buf == tl_buf) {
		err_buf = NULL;
		err_len = 0;
	}
	tl_buf = NULL;
	tl_len = 0;
	pthread_mutex_unlock(&log_mu);
}
