/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The logs 'daicho run' writes for each launch of a task, read back for
 * 'daicho logs' and the dashboard's task page.
 */
#include "run/tasklog.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/*
 * Read the log of attempt of task id into content: <dir>/logs/ID.ATTEMPT.log,
 * or <dir>/logs/ID/ATTEMPT.log where an earlier daicho wrote it. Returns
 * 0, or -1 when there is none.
 */
static int
read_log(const char *dir, int64_t id, int64_t attempt, struct buf *content)
{
	struct buf path = BUF_INIT;
	int rc;

	buf_addf(&path, "%s/logs/%lld.%lld.log", dir, (long long)id,
	    (long long)attempt);
	if ((rc = buf_read_file(content, path.buf)) < 0) {
		buf_reset(&path);
		buf_addf(&path, "%s/logs/%lld/%lld.log", dir, (long long)id,
		    (long long)attempt);
		rc = buf_read_file(content, path.buf);
	}
	buf_release(&path);
	return rc < 0 ? -1 : 0;
}

/*
 * The highest N of the logs <dir>/logs/ID.N.log of task id (each launch
 * writes its own, numbered in launch order), or 0 when there is none.
 */
static int64_t
latest_log(const char *dir, int64_t id)
{
	struct buf logs = BUF_INIT, prefix = BUF_INIT;
	struct dirent *entry;
	int64_t latest = 0;
	DIR *d;

	buf_addf(&logs, "%s/logs", dir);
	buf_addf(&prefix, "%lld.", (long long)id);
	if ((d = opendir(logs.buf)) != NULL) {
		while ((entry = readdir(d)) != NULL) {
			const char *name = entry->d_name, *number;
			char *end;
			long long n;

			if (strncmp(name, prefix.buf, prefix.len) != 0)
				continue;
			number = name + prefix.len;
			if (*number < '1' || *number > '9')
				continue;
			n = strtoll(number, &end, 10);
			if (strcmp(end, ".log") == 0 && n > latest)
				latest = n;
		}
		closedir(d);
	}
	buf_release(&logs);
	buf_release(&prefix);
	return latest;
}

int
tasklog_read(const char *dir, int64_t id, int64_t attempt, int64_t attempts,
    struct buf *content)
{
	if (attempt > 0)
		return read_log(dir, id, attempt, content);
	if ((attempt = latest_log(dir, id)) > 0)
		return read_log(dir, id, attempt, content);
	/* Logs of an earlier daicho: logs/ID/ATTEMPT.log. */
	for (attempt = attempts + 1; attempt > 0; attempt--)
		if (read_log(dir, id, attempt, content) == 0)
			return 0;
	return -1;
}
