#include "util/gitref.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Symbolic references followed before giving up (git allows five). */
#define GITREF_MAX_DEPTH 5

/*
 * Read the whole of file dir/name into out. Returns 0, or -1 when it
 * cannot be read.
 */
static int
read_file(const char *dir, const char *name, struct buf *out)
{
	struct buf path = BUF_INIT;
	int fd, rc = -1;

	buf_addf(&path, "%s/%s", dir, name);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	buf_release(&path);
	if (fd < 0)
		return -1;
	buf_reset(out);
	for (;;) {
		ssize_t n;

		buf_grow(out, 4096);
		n = read(fd, out->buf + out->len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			rc = 0;
			break;
		}
		out->len += (size_t)n;
		out->buf[out->len] = '\0';
	}
	close(fd);
	return rc;
}

/* Whether s starts with a full object name (40 or 64 hex digits) followed
 * by the end, a newline or a space; its length in *len. */
static bool
is_object_name(const char *s, size_t *len)
{
	size_t n = strspn(s, "0123456789abcdef");

	if (n != 40 && n != 64)
		return false;
	if (s[n] != '\0' && s[n] != '\n' && s[n] != ' ')
		return false;
	*len = n;
	return true;
}

/* Find ref's line in packed-refs ("<hash> <ref>"). Returns 0 with the
 * hash in hash, -1 when it is not there. */
static int
packed_ref(const char *git_dir, const char *ref, struct buf *hash)
{
	struct buf packed = BUF_INIT;
	size_t ref_len = strlen(ref);
	int rc = -1;

	if (read_file(git_dir, "packed-refs", &packed) < 0)
		goto done;
	for (const char *line = packed.buf; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line), n;

		if (is_object_name(line, &n) && len == n + 1 + ref_len &&
		    memcmp(line + n + 1, ref, ref_len) == 0) {
			buf_reset(hash);
			buf_add(hash, line, n);
			rc = 0;
			break;
		}
		line += len + (end != NULL);
	}
done:
	buf_release(&packed);
	return rc;
}

int
gitref_read(const char *git_dir, const char *name, struct buf *hash)
{
	struct buf content = BUF_INIT, ref = BUF_INIT;
	int rc = -1;

	if (strcmp(name, "HEAD") != 0 && (strncmp(name, "refs/", 5) != 0 ||
	    strstr(name, "..") != NULL))
		return -1;
	buf_adds(&ref, name);
	for (int depth = 0; depth <= GITREF_MAX_DEPTH; depth++) {
		size_t n;

		if (read_file(git_dir, ref.buf, &content) < 0) {
			/* Not loose: packed, unless it is HEAD itself. */
			if (strcmp(ref.buf, "HEAD") != 0)
				rc = packed_ref(git_dir, ref.buf, hash);
			break;
		}
		if (is_object_name(content.buf, &n)) {
			buf_reset(hash);
			buf_add(hash, content.buf, n);
			rc = 0;
			break;
		}
		if (strncmp(content.buf, "ref: refs/", 10) != 0)
			break;
		buf_reset(&ref);
		buf_add(&ref, content.buf + 5, strcspn(content.buf + 5, "\n"));
		/* A ref name never climbs out of the git directory. */
		if (strstr(ref.buf, "..") != NULL)
			break;
	}
	buf_release(&content);
	buf_release(&ref);
	return rc;
}

int
gitref_head_is_detached(const char *git_dir)
{
	struct buf content = BUF_INIT;
	int rc = -1;

	if (read_file(git_dir, "HEAD", &content) == 0)
		rc = strncmp(content.buf, "ref: ", 5) == 0 ? 0 : 1;
	buf_release(&content);
	return rc;
}
