#include "core/checkrun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/settings.h"
#include "util/path.h"
#include "util/sandbox.h"
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

int
check_policy_run(const struct check_policy *p, const char *dir,
    const char *command, char *const env[], bool network,
    int64_t timeout_ms, size_t tail, struct proc_result *out,
    struct err *err)
{
	struct strlist argv = STRLIST_INIT, extra = STRLIST_INIT;
	struct buf git_dir = BUF_INIT;
	struct sandbox sb;
	char *real;
	int rc;

	if (p == NULL || p->unsandboxed)
		return proc_run_shell(command, dir, env, timeout_ms, tail, out);
	/* Tried at the first command a process runs, not before. */
	if (!sandbox_available(&git_dir)) {
		err_set(err, ERR_FAILED, "checks run in a sandbox, and %s; or let "
		    "checks run unsandboxed, as a person: daicho config sandbox off",
		    git_dir.buf);
		buf_release(&git_dir);
		return 1;
	}
	for (size_t i = 0; env && env[i]; i++)
		strlist_add(&extra, env[i]);
	real = realpath(dir, NULL);
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
	strlist_argv(&argv);
	rc = proc_run(argv.items, sb.dir, NULL, timeout_ms, tail, out);
	free(real);
	strlist_release(&argv);
	strlist_release(&extra);
	buf_release(&git_dir);
	return rc;
}
