/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Worker logs: 'daicho run' writes the output of each launch of task ID
 * to <ledger dir>/logs/ID.N.log, N counting the launches.
 */
#ifndef DAICHO_TASKLOG_H
#define DAICHO_TASKLOG_H

#include <stdint.h>

#include "util/buf.h"

/*
 * Read a log of task id into content (appended): launch attempt when it is
 * above 0, else the latest launch; where an earlier daicho wrote
 * <dir>/logs/ID/ATTEMPT.log, those are read too (attempts: the task's
 * attempts, to know where to look). dir is the ledger's directory.
 * Returns 0, or -1 when there is no such log.
 */
int tasklog_read(const char *dir, int64_t id, int64_t attempt,
    int64_t attempts, struct buf *content);

#endif
