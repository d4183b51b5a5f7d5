/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/gitref.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Symbolic references followed before giving up (git allows five). */
#define GITREF_MAX_DEPTH 5

/* A ref file is a line; HEAD and a loose ref are read whole up to this. */
#define GITREF_MAX_BYTES 4096

/*
 * Open dir/name for reading if it is a regular file: a FIFO or a device
 * there must not block or feed a claim. Returns the stream or NULL.
 */
static FILE *
open_regular(const char *dir, const char *name)
{
	struct buf path = BUF_INIT;
	struct stat st;
	FILE *f = NULL;
	int fd;

	buf_addf(&path, "%s/%s", dir, name);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	buf_release(&path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (f = fdopen(fd, "r")) == NULL)
		close(fd);
	return f;
}

/*
 * Read the first GITREF_MAX_BYTES of file dir/name into out. Returns 0, or
 * -1 when it cannot be read.
 */
static int
read_file(const char *dir, const char *name, struct buf *out)
{
	FILE *f = open_regular(dir, name);
	size_t n;

	if (f == NULL)
		return -1;
	buf_reset(out);
	buf_grow(out, GITREF_MAX_BYTES);
	n = fread(out->buf, 1, GITREF_MAX_BYTES, f);
	out->len = n;
	out->buf[n] = '\0';
	fclose(f);
	return 0;
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

/*
 * Find ref's line in packed-refs ("<hash> <ref>"), reading line by line
 * and stopping at it: the file may hold hundreds of thousands of tags.
 * Returns 0 with the hash in hash, -1 when it is not there.
 */
static int
packed_ref(const char *git_dir, const char *ref, struct buf *hash)
{
	FILE *f = open_regular(git_dir, "packed-refs");
	size_t ref_len = strlen(ref), cap = 0;
	char *line = NULL;
	ssize_t len;
	int rc = -1;

	if (f == NULL)
		return -1;
	while ((len = getline(&line, &cap, f)) > 0) {
		size_t n;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (is_object_name(line, &n) && (size_t)len == n + 1 + ref_len &&
		    memcmp(line + n + 1, ref, ref_len) == 0) {
			buf_reset(hash);
			buf_add(hash, line, n);
			rc = 0;
			break;
		}
	}
	free(line);
	fclose(f);
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
gitref_head_branch(const char *git_dir, struct buf *branch)
{
	struct buf content = BUF_INIT;
	int rc = -1;

	if (read_file(git_dir, "HEAD", &content) == 0 &&
	    strncmp(content.buf, "ref: refs/heads/", 16) == 0) {
		size_t len = strcspn(content.buf + 16, "\r\n");

		if (len > 0) {
			buf_add(branch, content.buf + 16, len);
			rc = 0;
		}
	}
	buf_release(&content);
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
