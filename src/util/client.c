/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/proc.h"

/* How far up a walk goes: deeper trees than this are not a terminal's. */
#define MAX_ANCESTORS 64

const char *const client_identity_variables[] = { "DAICHO_AGENT",
	"CLAUDE_CODE_SESSION_ID", "CLAUDECODE", "CLAUDE_CODE_CHILD_SESSION",
	"CODEX_THREAD_ID", "CODEX_SANDBOX", "GEMINI_SESSION_ID", "GEMINI_CLI",
	NULL };

bool
client_is_client_variable(const char *name)
{
	for (size_t i = 1; client_identity_variables[i] != NULL; i++)
		if (strcmp(name, client_identity_variables[i]) == 0)
			return true;
	return false;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* The client a program or script name stands for, or NULL. */
static const char *
kind_of_name(const char *name)
{
	if (strcmp(name, "claude") == 0 || strcmp(name, "claude.exe") == 0)
		return "claude";
	if (strcmp(name, "codex") == 0 || strcmp(name, "codex.js") == 0 ||
	    strncmp(name, "codex-", 6) == 0)
		return "codex";
	if (strcmp(name, "gemini") == 0 || strcmp(name, "gemini.js") == 0)
		return "gemini";
	return NULL;
}

/* The client whose npm package a word names, or NULL. */
static const char *
kind_of_package(const char *word)
{
	if (strstr(word, "@anthropic-ai/claude-code") != NULL)
		return "claude";
	if (strstr(word, "@openai/codex") != NULL)
		return "codex";
	if (strstr(word, "@google/gemini-cli") != NULL)
		return "gemini";
	return NULL;
}

static bool
is_javascript_runtime(const char *name)
{
	return strncmp(name, "node", 4) == 0 || strcmp(name, "bun") == 0 ||
	    strcmp(name, "deno") == 0 || strcmp(name, "npx") == 0 ||
	    strcmp(name, "npm") == 0;
}

/* Read /proc/PID/comm into comm (without its newline); false if gone. */
static bool
read_comm(pid_t pid, struct buf *comm)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	buf_reset(comm);
	if (buf_read_file(comm, path) < 0)
		return false;
	while (comm->len > 0 && comm->buf[comm->len - 1] == '\n')
		comm->buf[--comm->len] = '\0';
	return true;
}

/* The kind of a process from its comm and its argv (NUL-separated). */
static const char *
kind_of_process(const char *comm, const struct buf *cmdline)
{
	const char *argv0 = cmdline->buf, *kind;
	bool runtime, script_seen = false;

	if ((kind = kind_of_name(comm)) != NULL)
		return kind;
	if (cmdline->len == 0)
		return NULL;
	if ((kind = kind_of_name(base_name(argv0))) != NULL)
		return kind;
	runtime = is_javascript_runtime(comm) ||
	    is_javascript_runtime(base_name(argv0));
	if (!runtime)
		return NULL;
	for (const char *word = argv0 + strlen(argv0) + 1;
	     word < cmdline->buf + cmdline->len; word += strlen(word) + 1) {
		if ((kind = kind_of_package(word)) != NULL)
			return kind;
		if (!script_seen && word[0] != '-') {
			script_seen = true;
			if ((kind = kind_of_name(base_name(word))) != NULL)
				return kind;
		}
	}
	return NULL;
}

const char *
client_process_kind(pid_t pid)
{
	struct buf comm = BUF_INIT, cmdline = BUF_INIT;
	const char *kind = NULL;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if (read_comm(pid, &comm)) {
		if (buf_read_file(&cmdline, path) < 0)
			buf_reset(&cmdline);
		kind = kind_of_process(comm.buf, &cmdline);
	}
	buf_release(&comm);
	buf_release(&cmdline);
	return kind;
}

/*
 * Walk from pid up through its parents to init, appending "comm[pid]" for
 * each to trail (pids already in seen[0..*seen_count) end the walk), and
 * note the first client met in *out. Stops at a process that cannot be
 * read, written "?[pid]".
 */
static void
walk_up(pid_t pid, struct buf *trail, pid_t *seen, size_t *seen_count,
    struct client_ancestry *out)
{
	struct buf comm = BUF_INIT;

	for (int depth = 0; pid > 0 && depth < MAX_ANCESTORS; depth++) {
		const char *kind;

		for (size_t i = 0; i < *seen_count; i++)
			if (seen[i] == pid)
				goto done;
		if (*seen_count < MAX_ANCESTORS * 2)
			seen[(*seen_count)++] = pid;
		if (trail->len > 0)
			buf_addch(trail, ' ');
		if (!read_comm(pid, &comm)) {
			buf_addf(trail, "?[%ld]", (long)pid);
			break;
		}
		buf_add_oneline(trail, comm.buf);
		buf_addf(trail, "[%ld]", (long)pid);
		kind = client_process_kind(pid);
		if (kind != NULL && out->client_pid == 0) {
			out->client_pid = pid;
			out->client_kind = kind;
			out->client_above_session = trail == &out->session;
		}
		if (pid == 1)
			break;
		pid = proc_parent(pid);
		if (pid == 0) {
			buf_adds(trail, " ?");
			break;
		}
	}
done:
	buf_release(&comm);
}

void
client_find_ancestor(struct client_ancestry *out)
{
	pid_t seen[MAX_ANCESTORS * 2], self = getpid(), leader = getsid(0);
	size_t seen_count = 0;

	out->client_pid = 0;
	out->client_kind = NULL;
	out->client_above_session = false;
	buf_init(&out->ancestors);
	buf_init(&out->session);
	seen[seen_count++] = self;
	walk_up(getppid(), &out->ancestors, seen, &seen_count, out);
	for (size_t i = 0; i < seen_count; i++)
		if (seen[i] == leader)
			return;
	if (leader > 0)
		walk_up(leader, &out->session, seen, &seen_count, out);
}

void
client_ancestry_release(struct client_ancestry *ancestry)
{
	buf_release(&ancestry->ancestors);
	buf_release(&ancestry->session);
}

/*
 * The first ancestor of this process that is not a shell or a program that
 * passes its command on (env, timeout, nice, ...), or 0 when unknown.
 */
static pid_t
first_non_passer(void)
{
	static const char *const passers[] = { "sh", "bash", "dash", "zsh",
		"ksh", "env", "timeout", "nice", "stdbuf", "setsid", "nohup" };
	struct buf comm = BUF_INIT;
	pid_t pid = getppid(), found = 0;

	for (int depth = 0; pid > 1 && depth < MAX_ANCESTORS && found == 0;
	     depth++) {
		bool passes = false;

		if (!read_comm(pid, &comm))
			break;
		for (size_t i = 0; i < sizeof(passers) / sizeof(passers[0]); i++)
			if (strcmp(comm.buf, passers[i]) == 0)
				passes = true;
		if (!passes)
			found = pid;
		else
			pid = proc_parent(pid);
	}
	buf_release(&comm);
	return found;
}

pid_t
client_hook_process(void)
{
	struct client_ancestry ancestry;
	pid_t pid;

	client_find_ancestor(&ancestry);
	pid = ancestry.client_pid != 0 && !ancestry.client_above_session
	    ? ancestry.client_pid : first_non_passer();
	client_ancestry_release(&ancestry);
	return pid;
}

bool
client_stdin_is_controlling_terminal(void)
{
	struct buf stat_text = BUF_INIT;
	struct stat st;
	const char *p;
	long tty_nr = -1;
	int field = 3;

	if (fstat(STDIN_FILENO, &st) < 0 || !S_ISCHR(st.st_mode))
		return false;
	/* /dev/tty opens as the controlling terminal or not at all. */
	if (major(st.st_rdev) == 5 && minor(st.st_rdev) == 0)
		return true;
	if (buf_read_file(&stat_text, "/proc/self/stat") < 0) {
		buf_release(&stat_text);
		return false;
	}
	/* "pid (comm) S ppid pgrp session tty_nr ...": field 7. */
	if ((p = strrchr(stat_text.buf, ')')) != NULL) {
		for (p += 2; *p && field < 7; p++)
			if (*p == ' ')
				field++;
		if (field == 7)
			tty_nr = strtol(p, NULL, 10);
	}
	buf_release(&stat_text);
	if (tty_nr <= 0)
		return false;
	/* The kernel's encoding: minor bits 0-7 and 20-31, major 8-19. */
	return major(st.st_rdev) == (unsigned)((tty_nr >> 8) & 0xfff) &&
	    minor(st.st_rdev) ==
	    (unsigned)((tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00));
}
