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
