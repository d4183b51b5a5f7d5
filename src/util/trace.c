/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/hex.h"
#include "util/proc.h"


bool
trace_available(struct buf *why)
{
	static int known = -1; /* -1: not tried; 0: no; 1: yes */
	static struct buf said = BUF_INIT;

	if (known < 0) {
		const char *argv[] = { TRACE_STRACE, "-f", "-qq", "-o",
			"/dev/null", "--", "/bin/true", NULL };
		struct buf out = BUF_INIT;
		struct stat st;
		int status = stat(TRACE_STRACE, &st) == 0 && S_ISREG(st.st_mode)
				 ? proc_capture_all(argv, &out) : -1;

		known = status == 0;
		if (status < 0) {
			buf_adds(&said, "strace is not installed (no " TRACE_STRACE
			    "): apt-get install strace");
		} else if (status != 0) {
			char *nl = strchr(out.buf ? out.buf : "", '\n');

			if (nl)
				*nl = '\0';
			buf_addf(&said, "strace cannot trace here (%s)",
			    out.len ? out.buf : "strace failed");
		}
		buf_release(&out);
	}
	if (!known && why)
		buf_add(why, said.buf, said.len);
	return known == 1;
}

void
trace_argv(const char *prefix, struct strlist *argv)
{
	static const char *const options[] = { TRACE_STRACE, "-ff", "-qq",
		"--seccomp-bpf", "-xx", "-y", "--pidns-translation", "-e",
		"trace=%file,clone,clone3,fork,vfork", "-e",
		"signal=none", "-o" };

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		strlist_add(argv, options[i]);
	strlist_add(argv, prefix);
	strlist_add(argv, "--");
}

/*
 * Decode strace's -xx text at *p ("\x2f\x61", up to any other character)
 * into out (reset first); *p moves past it.
 */
static void
decode_hex(const char **p, struct buf *out)
{
	const char *s = *p;

	buf_reset(out);
	while (s[0] == '\\' && s[1] == 'x' && hex_digit(s[2]) >= 0 &&
	    hex_digit(s[3]) >= 0) {
		char c = (char)(hex_digit(s[2]) * 16 + hex_digit(s[3]));

		buf_add(out, &c, 1);
		s += 4;
	}
	*p = s;
}

/* One top-level argument of a traced call. */
struct arg {
	bool is_string;     /* a quoted string: text holds it decoded */
	bool has_fd_path;   /* a descriptor with <path>: text holds the path */
	struct buf text;
};

#define ARGS_MAX 8

/* One parsed line: NAME(ARGS) = RESULT. */
struct call {
	char name[32];
	struct arg args[ARGS_MAX];
	size_t count;
	const char *args_start, *args_end; /* the raw text of the arguments */
	bool failed;            /* returned -1 */
	long long result;       /* what it returned, when not failed */
	char error[16];         /* its errno's name, when failed */
	struct buf result_path; /* a descriptor's <path> in the result */
};

static void
call_reset(struct call *c)
{
	for (size_t i = 0; i < ARGS_MAX; i++) {
		c->args[i].is_string = c->args[i].has_fd_path = false;
		buf_reset(&c->args[i].text);
	}
	c->count = 0;
	c->failed = false;
	c->error[0] = '\0';
	buf_reset(&c->result_path);
}

static void
call_release(struct call *c)
{
	for (size_t i = 0; i < ARGS_MAX; i++)
		buf_release(&c->args[i].text);
	buf_release(&c->result_path);
}

/*
 * Parse line into c. Returns 0, or -1 when it is not a finished call (a
 * resumed or unfinished one, a signal, an exit).
 */
static int
parse_call(const char *line, struct call *c)
{
	const char *p = line;
	size_t n = 0;
	int depth = 0;

	call_reset(c);
	while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
		if (n < sizeof(c->name) - 1)
			c->name[n++] = *p++;
		else
			return -1;
	c->name[n] = '\0';
	if (n == 0 || *p != '(')
		return -1;
	c->args_start = ++p;
	/* Arguments, split at commas outside brackets; strings are hex. */
	for (;;) {
		struct arg *a = c->count < ARGS_MAX ? &c->args[c->count] : NULL;

		while (*p == ' ')
			p++;
		if (*p == '"') {
			p++;
			if (a && depth == 0) {
				decode_hex(&p, &a->text);
				a->is_string = true;
			} else {
				while (*p && *p != '"')
					p++;
			}
			if (*p != '"')
				return -1;
			p++;
		}
		for (; *p; p++) {
			if (*p == '<' && depth == 0 && a && !a->is_string) {
				p++;
				decode_hex(&p, &a->text);
				a->has_fd_path = *p == '>';
				if (*p != '>')
					return -1;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"')
					p++;
				if (*p == '\0')
					return -1;
			} else if (*p == '[' || *p == '{') {
				depth++;
			} else if ((*p == ']' || *p == '}') && depth > 0) {
				depth--;
			} else if ((*p == ',' || *p == ')') && depth == 0) {
				break;
			}
		}
		if (*p == '\0')
			return -1;
		if (c->count < ARGS_MAX)
			c->count++;
		if (*p++ == ')')
			break;
	}
	c->args_end = p - 1;
	while (*p == ' ')
		p++;
	if (*p++ != '=')
		return -1;
	while (*p == ' ')
		p++;
	if (strncmp(p, "-1 ", 3) == 0) {
		c->failed = true;
		p += 3;
		for (n = 0; p[n] >= 'A' && p[n] <= 'Z' && n < sizeof(c->error) - 1; n++)
			c->error[n] = p[n];
		c->error[n] = '\0';
		return 0;
	}
	c->result = 0;
	while (*p >= '0' && *p <= '9')
		c->result = c->result * 10 + (*p++ - '0');
	/* A pid in the sandbox's namespace, and strace's (the files'). */
	if (strncmp(p, " /* ", 4) == 0 && p[4] >= '0' && p[4] <= '9' &&
	    strstr(p, " in strace's PID NS */")) {
		c->result = strtoll(p + 4, NULL, 10);
		return 0;
	}
	if (*p == '<') {
		p++;
		decode_hex(&p, &c->result_path);
	}
	return 0;
}

/* The raw arguments of c hold text (a flag name, say). */
static bool
args_contain(const struct call *c, const char *text)
{
	size_t n = strlen(text);

	for (const char *p = c->args_start; p + n <= c->args_end; p++)
		if (memcmp(p, text, n) == 0)
			return true;
	return false;
}

/* Whether name is one of the NULL-ended names. */
static bool
one_of(const char *name, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/*
 * Make path (relative to base when not absolute) absolute and lexically
 * clean ("." and ".." taken out, slashes single) into out.
 */
static void
absolute_path(const char *base, const char *path, struct buf *out)
{
	struct buf joined = BUF_INIT;
	const char *p;

	buf_reset(out);
	if (path[0] != '/')
		buf_addf(&joined, "%s/", base);
	buf_adds(&joined, path);
	for (p = joined.buf; *p;) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = out->len ? strrchr(out->buf, '/') : NULL;

			out->len = slash ? (size_t)(slash - out->buf) : 0;
			out->buf[out->len] = '\0';
		} else {
			buf_adds(out, "/");
			buf_add(out, p, n);
		}
		p += n;
	}
	if (out->len == 0)
		buf_adds(out, "/");
	buf_release(&joined);
}

/* What one file's processes did, gathered before they are sorted. */
struct gather {
	const char *root;
	size_t root_len;
	struct trace_paths *out;
	struct buf cwd;       /* the process's directory, as last seen */
	struct buf scratch;
	struct strlist spawned; /* "PID\tDIR": a process it started, and
				 * the directory it started in */
};

/* Add path (absolute, clean) to list when it lies inside the root. */
static void
keep(struct gather *g, struct strlist *list, const char *path)
{
	const char *rel;

	if (strncmp(path, g->root, g->root_len) != 0 ||
	    (path[g->root_len] != '/' && (path[g->root_len] != '\0' ||
	     list != &g->out->listed)))
		return;
	rel = path + g->root_len + (path[g->root_len] == '/');
	if (rel[0] == '\0' && list == &g->out->listed)
		rel = ".";
	if (rel[0] == '\0' || (strncmp(rel, ".git", 4) == 0 &&
	    (rel[4] == '\0' || rel[4] == '/')))
		return;
	if (list->count >= TRACE_RAW_LIMIT_PATHS) {
		g->out->truncated = true;
		return;
	}
	strlist_add(list, rel);
}

/* The string argument i of c made absolute into g->scratch. */
static void
arg_path(struct gather *g, const struct call *c, size_t i)
{
	const char *base = g->cwd.len ? g->cwd.buf : g->root;

	if (i > 0 && c->args[i - 1].has_fd_path)
		base = c->args[i - 1].text.buf;
	absolute_path(base, c->args[i].text.buf, &g->scratch);
}

/* Record call c of one process. */
static void
gather_call(struct gather *g, const struct call *c)
{
	static const char *const renames[] = { "rename", "renameat",
		"renameat2", NULL };
	static const char *const links[] = { "link", "linkat", "symlink",
		"symlinkat", NULL };
	static const char *const makers[] = { "creat", "mkdir", "mkdirat",
		"unlink", "unlinkat", "rmdir", "truncate", "mknod", "mknodat",
		NULL };
	static const char *const opens[] = { "open", "openat", "openat2", NULL };
	static const char *const spawns[] = { "clone", "clone3", "fork", "vfork",
		NULL };
	static const char *const ignored[] = { "statfs", "mount", "umount2",
		"chroot", "pivot_root", "chmod", "fchmodat", "chown", "lchown",
		"fchownat", "utime", "utimes", "utimensat", "futimesat", NULL };
	size_t strings[ARGS_MAX], n = 0;

	for (size_t i = 0; i < c->count; i++)
		if (c->args[i].is_string && c->args[i].text.len > 0)
			strings[n++] = i;
	/* The directory a relative path of this process's starts from. */
	if (c->count > 0 && c->args[0].has_fd_path &&
	    strncmp(c->args_start, "AT_FDCWD<", 9) == 0)
		buf_reset(&g->cwd), buf_adds(&g->cwd, c->args[0].text.buf);
	if (strcmp(c->name, "fchdir") == 0 && !c->failed && c->count > 0 &&
	    c->args[0].has_fd_path)
		buf_reset(&g->cwd), buf_adds(&g->cwd, c->args[0].text.buf);
	/* A child starts where its parent is now. */
	if (one_of(c->name, spawns) && !c->failed && c->result > 0) {
		struct buf child = BUF_INIT;

		buf_addf(&child, "%lld\t%s", c->result,
		    g->cwd.len ? g->cwd.buf : g->root);
		strlist_add(&g->spawned, child.buf);
		buf_release(&child);
		return;
	}
	if (n == 0 || one_of(c->name, ignored))
		return;
	if (one_of(c->name, renames)) {
		for (size_t k = 0; k < n && k < 2; k++) {
			arg_path(g, c, strings[k]);
			keep(g, &g->out->written, g->scratch.buf);
		}
		return;
	}
	if (one_of(c->name, links)) {
		/*
		 * The new name is written; so is a hard link's old one: the
		 * file can be written under the new name afterwards.
		 */
		arg_path(g, c, strings[n - 1]);
		keep(g, &g->out->written, g->scratch.buf);
		if (n >= 2 && strncmp(c->name, "link", 4) == 0) {
			arg_path(g, c, strings[0]);
			keep(g, &g->out->written, g->scratch.buf);
		}
		return;
	}
	/* Every other call names one path: its first string. */
	arg_path(g, c, strings[0]);
	if (strcmp(c->name, "chdir") == 0 && !c->failed) {
		buf_reset(&g->cwd);
		buf_add(&g->cwd, g->scratch.buf, g->scratch.len);
	}
	if (one_of(c->name, makers) || (one_of(c->name, opens) &&
	    (args_contain(c, "O_WRONLY") || args_contain(c, "O_RDWR") ||
	     args_contain(c, "O_CREAT") || args_contain(c, "O_TRUNC")))) {
		if (c->failed)
			return;
		keep(g, &g->out->written, g->scratch.buf);
		/* What it reached: a write through a link, /proc/self/cwd. */
		if (c->result_path.len > 0 && c->result_path.buf[0] == '/')
			keep(g, &g->out->written, c->result_path.buf);
		return;
	}
	if (c->failed && (strcmp(c->error, "ENOENT") == 0 ||
	    strcmp(c->error, "ENOTDIR") == 0)) {
		keep(g, &g->out->missing, g->scratch.buf);
		return;
	}
	/* A directory opened to be read is listed (opendir). */
	if (!c->failed && one_of(c->name, opens) &&
	    args_contain(c, "O_DIRECTORY") && !args_contain(c, "O_PATH")) {
		keep(g, &g->out->listed, c->result_path.len
		    ? c->result_path.buf : g->scratch.buf);
		return;
	}
	keep(g, &g->out->read, g->scratch.buf);
	/* An open names what it reached, symbolic links followed. */
	if (!c->failed && c->result_path.len > 0 && c->result_path.buf[0] == '/')
		keep(g, &g->out->read, c->result_path.buf);
}

/* One process's trace: its pid (from the file's name) and text. */
struct process {
	long long pid;
	struct buf text;
	bool done;
};

/* Gather what process p did, starting in directory cwd. */
static void
gather_process(struct gather *g, struct process *p, const char *cwd)
{
	struct call c = { 0 };
	char *line, *next;

	p->done = true;
	buf_reset(&g->cwd);
	buf_adds(&g->cwd, cwd);
	for (line = p->text.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (parse_call(line, &c) == 0)
			gather_call(g, &c);
	}
	call_release(&c);
}

/*
 * Read the trace files in dir into *procs (*count of them). Every process
 * counts, the sandbox's own too (env, bwrap): what they touch in the
 * checkout is its root and its .git, left out by keep(); telling them
 * apart by what they run would let a check hide behind the same names.
 * Returns 0, or -1 with errno.
 */
static int
read_processes(const char *dir, struct process **procs, size_t *count)
{
	struct buf path = BUF_INIT;
	size_t alloc = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = 0;

	*procs = NULL;
	*count = 0;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		const char *dot = strrchr(e->d_name, '.');
		struct process *p;

		if (e->d_name[0] == '.' || dot == NULL)
			continue;
		xgrow((void **)procs, &alloc, *count + 1, sizeof(**procs));
		p = &(*procs)[(*count)++];
		p->pid = strtoll(dot + 1, NULL, 10);
		p->done = false;
		buf_init(&p->text);
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, e->d_name);
		if (buf_read_file(&p->text, path.buf) < 0) {
			rc = -1;
			break;
		}
	}
	closedir(d);
	buf_release(&path);
	return rc;
}

const char *
trace_paths_find_below(const struct strlist *sorted, const char *dir)
{
	struct buf key = BUF_INIT;
	size_t lo = 0, hi = sorted->count;
	const char *found = NULL;

	/* The first entry not before "DIR/": one below DIR sorts there. */
	buf_addf(&key, "%s/", dir);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(sorted->items[mid], key.buf) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sorted->count &&
	    strncmp(sorted->items[lo], key.buf, key.len) == 0)
		found = sorted->items[lo];
	buf_release(&key);
	return found;
}

const char *
trace_paths_find(const struct strlist *sorted, const char *path, bool above)
{
	struct buf up = BUF_INIT;
	const char *found;
	char *slash;

	found = strlist_find_sorted(sorted, path);
	if (found == NULL && above) {
		buf_adds(&up, path);
		while (found == NULL && (slash = strrchr(up.buf, '/')) != NULL) {
			*slash = '\0';
			up.len = (size_t)(slash - up.buf);
			found = strlist_find_sorted(sorted, up.buf);
		}
	}
	buf_release(&up);
	return found;
}

/* Take out of list what drop says, keep at most TRACE_MAX_PATHS. */
static void
filter(struct strlist *list, bool (*drop)(const struct trace_paths *,
    const char *), const struct trace_paths *paths, bool *truncated)
{
	size_t kept = 0;

	for (size_t i = 0; i < list->count; i++) {
		if (drop(paths, list->items[i]) || kept >= TRACE_MAX_PATHS) {
			if (kept >= TRACE_MAX_PATHS)
				*truncated = true;
			free(list->items[i]);
			continue;
		}
		list->items[kept++] = list->items[i];
	}
	list->count = kept;
}

static bool
drop_read(const struct trace_paths *paths, const char *path)
{
	return trace_paths_find(&paths->written, path, true) != NULL;
}

static bool
drop_missing(const struct trace_paths *paths, const char *path)
{
	return trace_paths_find(&paths->read, path, false) != NULL ||
	       trace_paths_find(&paths->written, path, true) != NULL;
}

/*
 * The pids the processes started (a clone, fork or vfork that returned
 * one), into spawned: the others are where a trace begins.
 */
static void
spawned_pids(const struct process *procs, size_t count,
    struct strlist *spawned)
{
	struct call c = { 0 };
	static const char *const spawns[] = { "clone", "clone3", "fork",
		"vfork", NULL };

	for (size_t i = 0; i < count; i++) {
		const char *line = procs[i].text.buf;

		while (line && *line) {
			const char *next = strchr(line, '\n');
			struct buf one = BUF_INIT;

			buf_add(&one, line, next ? (size_t)(next - line)
						 : strlen(line));
			if (parse_call(one.buf, &c) == 0 && one_of(c.name, spawns) &&
			    !c.failed && c.result > 0) {
				struct buf pid = BUF_INIT;

				buf_addf(&pid, "%lld", c.result);
				strlist_add(spawned, pid.buf);
				buf_release(&pid);
			}
			buf_release(&one);
			line = next ? next + 1 : NULL;
		}
	}
	call_release(&c);
	strlist_sort_unique(spawned);
}

/*
 * Gather process p, started in cwd, then every process it started (and
 * theirs), each in the directory its parent was in when it started it.
 */
static void
gather_tree(struct gather *g, struct process *procs, size_t count,
    struct process *p, const char *cwd)
{
	gather_process(g, p, cwd);
	while (g->spawned.count > 0) {
		char *entry = g->spawned.items[--g->spawned.count];
		long long pid = strtoll(entry, NULL, 10);

		for (size_t k = 0; k < count; k++)
			if (procs[k].pid == pid && !procs[k].done)
				gather_process(g, &procs[k], strchr(entry, '\t') + 1);
		free(entry);
	}
}

int
trace_collect(const char *dir, const char *root, struct trace_paths *out)
{
	struct gather g = { root, strlen(root), out, BUF_INIT, BUF_INIT,
		STRLIST_INIT };
	struct strlist children = STRLIST_INIT;
	struct buf pid = BUF_INIT;
	struct process *procs;
	size_t count;
	int rc = read_processes(dir, &procs, &count);

	/*
	 * From the first process (the one no other started) down, so that a
	 * child's lookup before it names a directory of its own is placed in
	 * its parent's; then any process left (one whose parent is unread).
	 */
	if (rc == 0)
		spawned_pids(procs, count, &children);
	for (int pass = 0; rc == 0 && pass < 2; pass++) {
		for (size_t i = 0; i < count; i++) {
			buf_reset(&pid);
			buf_addf(&pid, "%lld", procs[i].pid);
			if (!procs[i].done && (pass == 1 ||
			    !strlist_find_sorted(&children, pid.buf)))
				gather_tree(&g, procs, count, &procs[i], root);
		}
	}
	for (size_t i = 0; i < count; i++)
		buf_release(&procs[i].text);
	free(procs);
	trace_paths_sort(out);
	/* A read path that is also missing was found at last: read. */
	filter(&out->missing, drop_missing, out, &out->truncated);
	filter(&out->read, drop_read, out, &out->truncated);
	filter(&out->listed, drop_read, out, &out->truncated);
	buf_release(&g.cwd);
	buf_release(&g.scratch);
	strlist_release(&g.spawned);
	strlist_release(&children);
	buf_release(&pid);
	return rc;
}

void
trace_paths_sort(struct trace_paths *paths)
{
	strlist_sort_unique(&paths->read);
	strlist_sort_unique(&paths->missing);
	strlist_sort_unique(&paths->written);
	strlist_sort_unique(&paths->listed);
}

void
trace_paths_release(struct trace_paths *paths)
{
	strlist_release(&paths->read);
	strlist_release(&paths->missing);
	strlist_release(&paths->written);
	strlist_release(&paths->listed);
}
