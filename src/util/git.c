#include "util/git.h"

#include <errno.h>
#include <string.h>

#include "util/proc.h"

int
git_resolve_commit(const char *rev, struct buf *hash, struct buf *why)
{
	struct buf spec = BUF_INIT, out = BUF_INIT;
	char *inside[] = { "git", "rev-parse", "--is-inside-work-tree", NULL };
	char *argv[] = { "git", "rev-parse", "--verify", "--quiet", "--end-of-options",
		NULL, NULL };
	int status, rc = -1;

	status = proc_capture(inside, &out);
	if (status < 0) {
		buf_addf(why, "cannot run git: %s", strerror(errno));
		goto done;
	}
	if (status != 0) {
		buf_adds(why, "not inside a git repository");
		goto done;
	}
	buf_addf(&spec, "%s^{commit}", rev);
	argv[5] = spec.buf;
	buf_reset(&out);
	status = proc_capture(argv, &out);
	while (out.len > 0 && (out.buf[out.len - 1] == '\n'))
		out.buf[--out.len] = '\0';
	if (status == 0 && out.len >= 40) {
		buf_reset(hash);
		buf_add(hash, out.buf, out.len);
		rc = 0;
	} else {
		rc = 1;
	}
done:
	buf_release(&spec);
	buf_release(&out);
	return rc;
}

/* Run git -C repo with args (NULL-terminated); output discarded. */
static int
git_in(const char *repo, const char *const *args)
{
	char *argv[16];
	struct buf out = BUF_INIT;
	size_t n = 0;
	int status;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)repo;
	while (*args && n < 15)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	status = proc_capture(argv, &out);
	buf_release(&out);
	return status;
}

int
git_worktree_add(const char *repo, const char *path, const char *commit,
    struct buf *why)
{
	const char *args[] = { "worktree", "add", "--detach", "--quiet", path,
		commit, NULL };
	int status = git_in(repo, args);

	if (status == 0)
		return 0;
	if (status < 0)
		buf_addf(why, "cannot run git: %s", strerror(errno));
	else
		buf_addf(why, "git worktree add of %.12s failed (exit %d)", commit,
		    status);
	return -1;
}

void
git_worktree_remove(const char *repo, const char *path)
{
	const char *remove[] = { "worktree", "remove", "--force", "--force", path,
		NULL };

	git_in(repo, remove);
}

void
git_worktree_prune(const char *repo)
{
	const char *prune[] = { "worktree", "prune", NULL };

	git_in(repo, prune);
}

int
git_commit_has_changes(const char *repo, const char *commit, struct buf *why)
{
	struct buf spec = BUF_INIT, parent = BUF_INIT;
	int status, rc = -1;

	buf_addf(&spec, "%s^{commit}", commit);
	{
		const char *exists[] = { "cat-file", "-e", spec.buf, NULL };

		status = git_in(repo, exists);
	}
	if (status != 0) {
		buf_addf(why, status < 0 ? "cannot run git" :
		    "commit %.12s does not exist in the repository", commit);
		goto done;
	}
	buf_addf(&parent, "%s^1", commit);
	{
		const char *has_parent[] = { "rev-parse", "--verify", "--quiet",
			parent.buf, NULL };
		const char *diff[] = { "diff", "--quiet", parent.buf, commit, NULL };
		const char *root[] = { "diff-tree", "--quiet", "-r", "--root", commit,
			NULL };

		status = git_in(repo, has_parent) == 0 ? git_in(repo, diff)
						       : git_in(repo, root);
	}
	if (status == 0 || status == 1)
		rc = status;
	else
		buf_addf(why, "git diff failed (exit %d)", status);
done:
	buf_release(&spec);
	buf_release(&parent);
	return rc;
}

int
git_rev_parse(const char *repo, const char *rev, struct buf *out)
{
	char *argv[] = { "git", "-C", (char *)repo, "rev-parse", "--verify",
		"--quiet", (char *)rev, NULL };
	int status;

	buf_reset(out);
	status = proc_capture(argv, out);
	while (out->len > 0 && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	return status == 0 && out->len > 0 ? 0 : -1;
}

int
git_worktree_add_branch(const char *repo, const char *path, const char *branch,
    const char *base, struct buf *why)
{
	struct buf ref = BUF_INIT, hash = BUF_INIT;
	int status;

	buf_addf(&ref, "refs/heads/%s", branch);
	if (git_rev_parse(repo, ref.buf, &hash) == 0) {
		const char *args[] = { "worktree", "add", "--quiet", path, branch,
			NULL };

		status = git_in(repo, args);
	} else {
		const char *args[] = { "worktree", "add", "--quiet", "-b", branch,
			path, base, NULL };

		status = git_in(repo, args);
	}
	buf_release(&ref);
	buf_release(&hash);
	if (status == 0)
		return 0;
	buf_addf(why, status < 0 ? "cannot run git" :
	    "git worktree add of branch %s failed (exit %d)", branch, status);
	return -1;
}

void
git_branch_delete(const char *repo, const char *branch)
{
	const char *args[] = { "branch", "--quiet", "-D", branch, NULL };

	git_in(repo, args);
}
