/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Finding the ledger (core/ledger.h): ledger_locate() and the address
 * files that name a PostgreSQL ledger. No engine is involved: only paths.
 */
#include "core/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/path.h"

static void follow_address_file(struct buf *path, bool *exists);

/* Whether path names an address file. */
static bool
ends_with_address_file(const char *path)
{
	size_t len = strlen(path), n = strlen("/" LEDGER_ADDRESS_FILE);

	return len >= n && strcmp(path + len - n, "/" LEDGER_ADDRESS_FILE) == 0;
}

void
ledger_locate(const struct ledger_hint *hint, struct buf *path, bool *exists)
{
	const char *env = getenv("DAICHO_LEDGER");
	struct buf common = BUF_INIT;

	buf_reset(path);
	if (hint->path != NULL && ledger_is_postgresql(hint->path)) {
		buf_adds(path, hint->path);
		*exists = true;
		return;
	} else if (hint->path == NULL && env != NULL && ledger_is_postgresql(env)) {
		buf_adds(path, env);
		*exists = true;
		return;
	} else if (hint->path != NULL) {
		path_add_absolute(path, hint->path);
	} else if (env != NULL && *env != '\0') {
		path_add_absolute(path, env);
	} else if (path_git_common_dir(hint->cwd, &common) == 0) {
		buf_addf(path, "%s/daicho/ledger.db", common.buf);
	} else if (path_find_upward(hint->cwd, ".daicho/ledger.db", path) != 0 &&
	    path_find_upward(hint->cwd, ".daicho/" LEDGER_ADDRESS_FILE,
	    path) != 0) {
		buf_reset(path);
		buf_addf(path, "%s/.daicho/ledger.db", hint->cwd);
	}
	*exists = access(path->buf, F_OK) == 0;
	if (!*exists || ends_with_address_file(path->buf))
		follow_address_file(path, exists);
	buf_release(&common);
}

/*
 * The address file beside the ledger file at path ("<dir>/ledger.db"),
 * named by LEDGER_ADDRESS_FILE, appended to out.
 */
static void
add_address_file(struct buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');

	buf_add(out, path, slash ? (size_t)(slash - path) : 0);
	buf_addf(out, "%s" LEDGER_ADDRESS_FILE, slash ? "/" : "");
}

/*
 * When no ledger file is at path (the default place) but the address file
 * beside it names a PostgreSQL ledger, make path that address.
 */
static void
follow_address_file(struct buf *path, bool *exists)
{
	struct buf file = BUF_INIT, text = BUF_INIT;
	bool named = ends_with_address_file(path->buf);

	if (named)
		buf_adds(&file, path->buf);
	else
		add_address_file(&file, path->buf);
	if (buf_read_file(&text, file.buf) == 0) {
		text.buf[strcspn(text.buf, "\r\n")] = '\0';
		if (ledger_is_postgresql(text.buf)) {
			buf_reset(path);
			buf_adds(path, text.buf);
			*exists = true;
			named = false;
		}
	}
	if (named) {
		/* Not an address: the ledger file's place beside it. */
		buf_reset(path);
		buf_add(path, file.buf, file.len - strlen(LEDGER_ADDRESS_FILE));
		buf_adds(path, "ledger.db");
		*exists = access(path->buf, F_OK) == 0;
	}
	buf_release(&file);
	buf_release(&text);
}

int
ledger_remember_address(const char *cwd, const char *address,
    struct buf *file, struct err *err)
{
	struct ledger_hint hint = { NULL, cwd };
	struct buf place = BUF_INIT;
	bool exists;
	int fd, rc = 0;
	const char *saved = getenv("DAICHO_LEDGER");
	char *env = saved ? xstrdup(saved) : NULL;

	/* Where the ledger would be by default, whatever the environment. */
	unsetenv("DAICHO_LEDGER");
	ledger_locate(&hint, &place, &exists);
	if (env != NULL) {
		setenv("DAICHO_LEDGER", env, 1);
		free(env);
	}
	buf_reset(file);
	if (ledger_is_postgresql(place.buf) && strcmp(place.buf, address) == 0) {
		buf_release(&place);
		return 1; /* already remembered */
	}
	if (exists) {
		buf_release(&place);
		return 1; /* a SQLite ledger is there: leave it */
	}
	add_address_file(file, place.buf);
	buf_release(&place);
	if (path_make_parent_dirs(file->buf, 0755) < 0)
		return err_set(err, ERR_FAILED, "cannot create the directory for %s "
		    "(%s)", file->buf, strerror(errno));
	/* 0600: an address may hold a password. */
	fd = open(file->buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0 || write(fd, address, strlen(address)) < 0 ||
	    write(fd, "\n", 1) < 0)
		rc = err_set(err, ERR_FAILED, "cannot write %s (%s)", file->buf,
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}
