/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/filewatch.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>


int
filewatch_open(struct filewatch *watch, const char *path)
{
	/* A link's target is what changes, in the target's directory. */
	char *real = realpath(path, NULL);
	const char *slash;
	struct buf dir = BUF_INIT;
	int saved;

	if (real != NULL)
		path = real;
	slash = strrchr(path, '/');

	watch->fd = -1;
	buf_init(&watch->name);
	buf_adds(&watch->name, slash ? slash + 1 : path);
	if (slash == path)
		buf_adds(&dir, "/");
	else if (slash)
		buf_add(&dir, path, (size_t)(slash - path));
	else
		buf_adds(&dir, ".");
	if ((watch->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		goto fail;
	if (inotify_add_watch(watch->fd, dir.buf, IN_MODIFY | IN_CLOSE_WRITE |
		IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO) < 0)
		goto fail;
	buf_release(&dir);
	free(real);
	return 0;
fail:
	saved = errno;
	if (watch->fd >= 0)
		close(watch->fd);
	watch->fd = -1;
	buf_release(&dir);
	free(real);
	errno = saved;
	return -1;
}

/* Whether name is the watched file's name followed by one of suffixes. */
static bool
watched(const struct filewatch *watch, const char *name,
    const char *const *suffixes)
{
	if (strncmp(name, watch->name.buf, watch->name.len) != 0)
		return false;
	for (size_t i = 0; suffixes[i] != NULL; i++)
		if (strcmp(name + watch->name.len, suffixes[i]) == 0)
			return true;
	return false;
}

bool
filewatch_changed(struct filewatch *watch, const char *const *suffixes)
{
	/* Room for at least one event with the longest name. */
	char events[4096 + sizeof(struct inotify_event) + NAME_MAX + 1]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t n;

	if (watch->fd < 0)
		return false;
	while ((n = read(watch->fd, events, sizeof(events))) > 0) {
		for (char *p = events; p < events + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			if (e->mask & IN_Q_OVERFLOW)
				changed = true;
			else if (e->len > 0 && watched(watch, e->name, suffixes))
				changed = true;
			p += sizeof(struct inotify_event) + e->len;
		}
	}
	return changed;
}

void
filewatch_release(struct filewatch *watch)
{
	if (watch->fd >= 0)
		close(watch->fd);
	watch->fd = -1;
	buf_release(&watch->name);
}
