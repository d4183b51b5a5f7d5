/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/checkrun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/settings.h"
#include "util/path.h"
#include "util/sandbox.h"
#include "util/trace.h"
#include "util/user.h"

/* Add path to list, resolved (symbolic links followed), when it exists. */
static void
add_resolved(struct strlist *list, const char *path)
{
	char *real;

	if (path == NULL || path[0] != '/' || (real = realpath(path, NULL)) == NULL)
		return;
	if (!strlist_contains(list, real))
		strlist_add(list, real);
	free(real);
}

int
check_policy_read(struct ledger *ledger, struct check_policy *p,
    struct err *err)
{
	static const char *const keys[] = { "sandbox" };
	struct buf value = BUF_INIT, dir = BUF_INIT;
	bool found = false;
	int rc;

	if ((rc = settings_values(ledger, keys, 1, &value, &found, err)) < 0)
		goto done;
	p->unsandboxed = found && strcmp(value.buf, "off") == 0;
	ledger_project_root(ledger, &dir);
	add_resolved(&p->hidden, dir.buf);
	buf_reset(&dir);
	if (!ledger_is_postgresql(ledger_path(ledger))) {
		ledger_local_dir(ledger, &dir);
		add_resolved(&p->hidden, dir.buf);
	}
	add_resolved(&p->hidden, getenv("HOME"));
	add_resolved(&p->hidden, user_home_dir());
done:
	buf_release(&value);
	buf_release(&dir);
	return rc;
}

void
check_policy_release(struct check_policy *p)
{
	strlist_release(&p->hidden);
}

const char *
check_policy_name(const struct check_policy *p)
{
	return p && !p->unsandboxed ? "sandbox" : "off";
}

/* The common git directory of the repository dir is in, into out. */
static void
checkout_git_dir(const char *dir, struct buf *out)
{
	struct buf common = BUF_INIT;

	if (path_git_common_dir(dir, &common) == 0 && common.len > 0)
		buf_add(out, common.buf, common.len);
	buf_release(&common);
}

/*
 * Start argv's trace into a new directory of its own (*trace_dir), when
 * trace asks for one. Returns 0; 1 (err set) when strace cannot trace
 * here; -1 with errno when the directory cannot be made.
 */
static int
trace_begin(struct trace_paths *trace, struct buf *trace_dir,
    struct strlist *argv, struct err *err)
{
	struct buf why = BUF_INIT, prefix = BUF_INIT;
	const char *tmp = getenv("TMPDIR");

	if (trace == NULL)
		return 0;
	if (!trace_available(&why)) {
		err_set(err, ERR_FAILED, "the checks' inputs are traced on the "
		    "claim's base, and %s; or, as a person, judge the task "
		    "without its base: daicho edit ID --no-baseline", why.buf);
		buf_release(&why);
		return 1;
	}
	buf_addf(trace_dir, "%s/daicho-trace-XXXXXX",
	    tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(trace_dir->buf) == NULL) {
		buf_reset(trace_dir);
		return -1;
	}
	buf_addf(&prefix, "%s/t", trace_dir->buf);
	trace_argv(prefix.buf, argv);
	buf_release(&prefix);
	return 0;
}

/* Read the trace of a command run in root into trace, and remove it. */
static void
trace_end(struct trace_paths *trace, struct buf *trace_dir, const char *root)
{
	if (trace == NULL || trace_dir->len == 0)
		return;
	if (trace_collect(trace_dir->buf, root, trace) < 0)
		trace->truncated = true;
	path_remove_tree(trace_dir->buf);
}

int
check_policy_run(const struct check_policy *p, const char *dir,
    const char *command, const char *const env[], bool network,
    int64_t timeout_ms, size_t tail, struct trace_paths *trace,
    struct proc_result *out, struct err *err)
{
	struct strlist argv = STRLIST_INIT, extra = STRLIST_INIT;
	struct buf git_dir = BUF_INIT, trace_dir = BUF_INIT;
	struct sandbox sb;
	char *real;
	int rc;

	real = realpath(dir, NULL);
	if ((rc = trace_begin(trace, &trace_dir, &argv, err)) != 0)
		goto done;
	if (p == NULL || p->unsandboxed) {
		if (trace == NULL) {
			rc = proc_run_shell(command, dir, env, timeout_ms, tail,
			    out);
			goto done;
		}
		strlist_add(&argv, "/bin/sh");
		strlist_add(&argv, "-c");
		strlist_add(&argv, command);
		rc = proc_run(strlist_argv(&argv), dir, env, timeout_ms, tail,
		    out);
		goto done;
	}
	/* Tried at the first command a process runs, not before. */
	if (!sandbox_available(&git_dir)) {
		err_set(err, ERR_FAILED, "checks run in a sandbox, and %s; or let "
		    "checks run unsandboxed, as a person: daicho config sandbox off",
		    git_dir.buf);
		rc = 1;
		goto done;
	}
	for (size_t i = 0; env && env[i]; i++)
		strlist_add(&extra, env[i]);
	checkout_git_dir(real ? real : dir, &git_dir);
	sb = (struct sandbox){ .dir = real ? real : dir,
		.git_dir = git_dir.len ? git_dir.buf : NULL,
		.hidden = &p->hidden, .env = &extra, .network = network };
	/*
	 * bwrap itself starts with an empty environment: what it is given
	 * stays visible to the command (/proc/1/environ inside).
	 */
	strlist_add(&argv, "/usr/bin/env");
	strlist_add(&argv, "-i");
	sandbox_argv(&sb, command, &argv);
	rc = proc_run(strlist_argv(&argv), sb.dir, NULL, timeout_ms, tail, out);
done:
	if (rc == 0)
		trace_end(trace, &trace_dir, real ? real : dir);
	else if (trace_dir.len)
		path_remove_tree(trace_dir.buf);
	free(real);
	strlist_release(&argv);
	strlist_release(&extra);
	buf_release(&git_dir);
	buf_release(&trace_dir);
	return rc;
}
