/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Verification (core/verify.h). One file of 2,600 lines because its phases
 * (take a report, prepare the judge's checkout, run each check, judge it
 * against the claim's base, record the verdict) pass one struct subject
 * and struct verdict along in one order; the judge's repository and the
 * sandbox it runs in are core/judge.c and util/sandbox.c already.
 * verify_record() reads as its phases, read_verdict_basis() to
 * append_verdict_events() (issue 33).
 */
#include "core/verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/checkrun.h"
#include "core/db.h"
#include "core/event.h"
#include "core/judge.h"
#include "core/msg.h"
#include "core/settings.h"
#include "core/task.h"
#include "core/task_internal.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/git.h"
#include "util/gitmerge.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/strlist.h"
#include "util/trace.h"

void
verdict_release(struct verdict *verdict)
{
	for (size_t i = 0; i < verdict->run_count; i++) {
		free(verdict->runs[i].spec);
		buf_release(&verdict->runs[i].output);
	}
	free(verdict->runs);
	free(verdict->commit);
	free(verdict->fetched_from);
	free(verdict->tree);
	free(verdict->summary);
	free(verdict->base_tree);
	json_decref(verdict->base_results);
	json_decref(verdict->base_inputs);
	memset(verdict, 0, sizeof(*verdict));
}

/*
 * Where this process's pids mean something, as a token carries it: this
 * host's name ([A-Za-z0-9.-], at most 64) and its pid namespace's inode
 * (two containers of one pod share a host name, not their pids).
 */
static void
add_token_place(struct buf *token)
{
	char host[256] = "", ns[64] = "";
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);

	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; host[i] && i < 64; i++) {
		char c = host[i];

		buf_addch(token, ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '-') ? c : '_');
	}
	buf_addch(token, '.');
	for (ssize_t i = 0; i < n; i++)
		if (ns[i] >= '0' && ns[i] <= '9')
			buf_addch(token, ns[i]);
}

void
verify_new_random_token(struct buf *token)
{
	unsigned char bytes[8];

	if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes)) {
		int64_t t = clock_mono_ms() ^ ((int64_t)getpid() << 20);

		memcpy(bytes, &t, sizeof(bytes));
	}
	buf_reset(token);
	for (size_t i = 0; i < sizeof(bytes); i++) {
		buf_addch(token, "0123456789abcdef"[bytes[i] >> 4]);
		buf_addch(token, "0123456789abcdef"[bytes[i] & 0xf]);
	}
}

/*
 * "<16 hex>-<pid>.<start>-<host>.<pid namespace>": random, and whose it
 * is (the process's start time tells it from a later one with its pid).
 */
void
verify_new_token(struct buf *token)
{
	verify_new_random_token(token);
	buf_addf(token, "-%ld.%llu-", (long)getpid(),
	    (unsigned long long)proc_start_time(getpid()));
	add_token_place(token);
}

/*
 * Whether token (verify_new_token()'s) was made by a process of this host
 * and pid namespace that is gone (or whose pid another process has now).
 * A token of another place, of an older daicho (no pid), or of a live
 * process is not.
 */
static bool
token_holder_gone(const char *token)
{
	struct buf here = BUF_INIT;
	const char *at = strchr(token, '-');
	unsigned long long start;
	char *end;
	long pid;
	bool gone;

	if (at == NULL)
		return false;
	pid = strtol(at + 1, &end, 10);
	if (end == at + 1 || *end != '.' || pid <= 0)
		return false;
	at = end + 1;
	start = strtoull(at, &end, 10);
	if (end == at || *end != '-')
		return false;
	add_token_place(&here);
	gone = strcmp(end + 1, here.buf) == 0 &&
	    proc_start_time((pid_t)pid) != (uint64_t)start;
	buf_release(&here);
	return gone;
}

/*
 * In one transaction, free the verification claim of each task ids[i]
 * that still holds tokens->items[i]; *freed counts them. 0 or the error.
 */
static int
free_claims(struct ledger *ledger, const int64_t *ids,
    const struct strlist *tokens, int64_t *freed, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	for (size_t i = 0; i < tokens->count; i++) {
		if ((rc = db_prepare(ledger, "UPDATE tasks SET verify_token = NULL,"
		    " verify_expires_ms = NULL WHERE id = ?1 AND verify_token = ?2",
		    &st, err)) < 0)
			goto fail;
		db_bind_int(st, 1, ids[i]);
		db_bind_text(st, 2, tokens->items[i]);
		if ((rc = db_step_done(ledger, st, "freeing a verification claim",
		    err)) < 0)
			goto fail;
		*freed += db_changes(ledger);
	}
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
verify_free_dead_claims(struct ledger *ledger, int64_t *freed, struct err *err)
{
	struct db_stmt *st = NULL;
	struct strlist tokens = STRLIST_INIT;
	int64_t *ids = NULL, now = clock_now_ms();
	size_t n = 0, alloc = 0;
	int rc;

	*freed = 0;
	if ((rc = db_prepare(ledger, "SELECT id, verify_token FROM tasks"
	    " WHERE state = 'reported' AND verify_token IS NOT NULL"
	    " AND verify_expires_ms > ?1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, now);
	while ((rc = db_step(st)) == DB_ROW) {
		if (!token_holder_gone(db_column_text(st, 1)))
			continue;
		xgrow((void **)&ids, &alloc, n + 1, sizeof(*ids));
		ids[n++] = db_column_int(st, 0);
		strlist_add(&tokens, db_column_text(st, 1));
	}
	db_reset(st);
	if (rc != DB_DONE)
		rc = db_error(ledger, rc, err, "reading verification claims");
	else if (n > 0)
		rc = free_claims(ledger, ids, &tokens, freed, err);
	else
		rc = 0;
	free(ids);
	strlist_release(&tokens);
	return rc;
}

/* What verification needs to know about a task. */
struct subject {
	int64_t id;           /* the task */
	struct strlist checks;
	char *commit;
	char *base;           /* the trunk's commit at the claim, or NULL */
	char *trunk;          /* the trunk's commit now, or NULL */
	struct strlist queued;   /* "ID COMMIT" of the work of other tasks
				  * that waits to land or was accepted since
				  * the claim (but not of tasks this one comes
				  * after): accepted work not on the trunk */
	int64_t check_timeout_ms;
	int64_t result_bytes; /* latest save, -1 when none */
	int64_t checks_version;
	struct strlist protects; /* the task's own */
	struct strlist defaults; /* the ledger's ("protect" setting) */
	struct strlist touches;  /* exempt from the ledger's: those a person
				  * set (none when an agent did) */
	struct strlist scope;    /* exempt from the traced inputs: those a
				  * person or another agent than the holder
				  * set (none when the holder did) */
	struct trace_paths inputs; /* what the checks read and looked for on
				    * the claim's base (their union) */
	bool no_baseline;        /* a person said: judge without the base */
	bool network;            /* a person said: its commands need the
				  * network (--check-needs net) */
};

static void
subject_release(struct subject *s)
{
	strlist_release(&s->checks);
	strlist_release(&s->protects);
	strlist_release(&s->defaults);
	strlist_release(&s->touches);
	strlist_release(&s->scope);
	trace_paths_release(&s->inputs);
	free(s->commit);
	free(s->base);
	free(s->trunk);
	strlist_release(&s->queued);
}

/*
 * Another task that commit, or a commit with tree (its content; may be
 * NULL), was accepted for: *other, or 0.
 */
static int
accepted_elsewhere(struct ledger *ledger, int64_t id, const char *commit,
    const char *tree, int64_t *other, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*other = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT task FROM verdicts WHERE passed <> 0 AND task <> ?1"
	    " AND (commit_hash = ?2 OR tree = ?3) LIMIT 1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, commit);
	if (tree)
		db_bind_text(st, 3, tree);
	return db_step_int(ledger, st, other, NULL, "reading verdicts", err);
}

static int
read_subject(struct ledger *ledger, int64_t id, struct subject *s,
    struct err *err)
{
	struct db_stmt *st;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
	    "SELECT report_commit, check_timeout_ms,"
	    " (SELECT length(result) FROM saves WHERE task = t.id"
	    "  ORDER BY id DESC LIMIT 1), claim_base, checks_version, no_baseline,"
	    " coalesce(check_needs, '') = 'net'"
	    " FROM tasks t WHERE id = ?", &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *commit = db_column_text(st, 0);

		s->commit = commit ? xstrdup(commit) : NULL;
		s->check_timeout_ms = db_column_is_null(st, 1)
					  ? VERIFY_DEFAULT_CHECK_TIMEOUT_MS
					  : db_column_int(st, 1);
		s->result_bytes = db_column_is_null(st, 2)
				      ? -1 : db_column_int(st, 2);
		commit = db_column_text(st, 3);
		s->base = commit ? xstrdup(commit) : NULL;
		s->id = id;
		s->checks_version = db_column_int(st, 4);
		s->no_baseline = db_column_int(st, 5) != 0;
		s->network = db_column_int(st, 6) != 0;
	}
	db_reset(st);
	if (rc == DB_DONE) {
		rc = err_set(err, ERR_NOT_FOUND, "no task #%lld (see 'daicho ls')",
		    (long long)id);
		goto done;
	}
	if (rc != DB_ROW) {
		rc = db_error(ledger, rc, err, "reading a task");
		goto done;
	}
	if ((rc = task_load_strings(ledger,
		 "SELECT spec FROM checks WHERE task = ? ORDER BY seq", id,
		 &s->checks, err)) < 0)
		goto done;
	/*
	 * What a commit may not change is only asked of a commit: without
	 * one there is no checkout to look at (verify_task()), and a run's
	 * no-op jobs would pay four queries each for lists nothing reads.
	 */
	if (s->commit == NULL)
		goto done;
	if ((rc = task_load_strings(ledger,
		 "SELECT glob FROM protects WHERE task = ? ORDER BY glob", id,
		 &s->protects, err)) < 0 ||
	    (rc = task_load_strings(ledger,
		 "SELECT glob FROM touches WHERE task = ? ORDER BY glob", id,
		 &s->touches, err)) < 0)
		goto done;
	if ((rc = settings_protected(ledger, &s->defaults, err)) < 0)
		goto done;
	/* The trunk as it is now, and the work waiting to land on it. */
	{
		struct buf tip = BUF_INIT;

		if (task_trunk_now(ledger, &tip) == 0)
			s->trunk = buf_detach(&tip, NULL);
		buf_release(&tip);
	}
	/*
	 * The work of others that is accepted and not on the trunk: that
	 * waits to land, or was accepted since this claim (with landing off,
	 * it stays off the trunk until a person merges it). A task this one
	 * comes after may lie under its work.
	 */
	if ((rc = task_load_strings(ledger,
		 "SELECT id || ' ' || report_commit FROM tasks"
		 " INDEXED BY tasks_land_queue WHERE state = 'verified'"
		 " AND land_queued_ms IS NOT NULL AND report_commit IS NOT NULL"
		 " AND id <> ?1 AND id NOT IN (SELECT after FROM deps"
		 "  WHERE task = ?1)"
		 " UNION "
		 "SELECT v.task || ' ' || v.commit_hash FROM verdicts v"
		 " WHERE v.passed <> 0 AND v.task <> ?1 AND v.commit_hash IS NOT NULL"
		 " AND v.at_ms >= (SELECT coalesce(max(at_ms), 0) FROM events"
		 "  WHERE task = ?1 AND kind = 'claim')"
		 " AND v.task NOT IN (SELECT after FROM deps WHERE task = ?1)"
		 " ORDER BY 1", id, &s->queued, err)) < 0)
		goto done;
	/*
	 * The task's touches exempt it from the ledger's protected list only
	 * when a person set them, proven at a terminal (an edit of them always
	 * is, cmd/person.c; an add says so): an agent could otherwise add a
	 * task that touches all of tests/, its identity stripped, and slip
	 * past a list only a human may change.
	 * From the paths its checks were traced reading (trace_inputs()),
	 * they exempt it when a person or another agent than the worker that
	 * holds it set them: the worker may not draw its own scope.
	 */
	if ((rc = db_prepare(ledger,
	    "SELECT " TASK_TOUCHES_BY_PERSON_SQL ","
	    " CASE WHEN e.actor = coalesce((SELECT owner FROM tasks"
	    "  WHERE id = ?1), 0) THEN 0 ELSE 1 END" TASK_TOUCHES_LAST_SET_SQL,
	    &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW || rc == DB_DONE) {
		bool human = rc == DB_ROW && db_column_int(st, 0) != 0;
		bool not_worker = rc == DB_ROW && db_column_int(st, 1) != 0;

		for (size_t i = 0; not_worker && i < s->touches.count; i++)
			strlist_add(&s->scope, s->touches.items[i]);
		if (!human)
			strlist_release(&s->touches);
		rc = 0;
	} else {
		rc = db_error(ledger, rc, err, "reading a task");
	}
	db_reset(st);
done:
	ledger_rollback(ledger);
	if (rc < 0)
		subject_release(s);
	return rc;
}

static struct check_run *
add_run(struct verdict *v, const char *spec)
{
	struct check_run *run;

	v->runs = xrealloc(v->runs, (v->run_count + 1) * sizeof(*v->runs));
	run = &v->runs[v->run_count++];
	memset(run, 0, sizeof(*run));
	run->spec = xstrdup(spec);
	run->exit_status = -1;
	run->base_passed = -1;
	buf_init(&run->output);
	return run;
}

/* What kind of file mode is, for a file: check that refuses it. */
static const char *
file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISFIFO(mode))
		return "a named pipe";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/*
 * The first directory on the way to path inside root that is a symbolic
 * link, into link (relative to root): a file: check is met by a file at
 * its own path only. Returns 1 found, 0 none.
 */
static int
symlinked_directory(const char *root, const char *path, struct buf *link)
{
	struct buf full = BUF_INIT;
	const char *slash;
	struct stat st;
	int found = 0;

	for (slash = strchr(path, '/'); slash && !found; slash = strchr(slash + 1,
	    '/')) {
		buf_reset(&full);
		buf_addf(&full, "%s/%.*s", root, (int)(slash - path), path);
		if (lstat(full.buf, &st) == 0 && S_ISLNK(st.st_mode)) {
			buf_reset(link);
			buf_add(link, path, (size_t)(slash - path));
			found = 1;
		}
	}
	buf_release(&full);
	return found;
}

/* file:PATH: inside root (no escape, not even through a symlink), a
 * regular file (not a symlink, not reached through one), not empty. */
static void
check_file(const char *root, const char *path, struct check_run *run)
{
	struct buf full = BUF_INIT, outside = BUF_INIT, link = BUF_INIT;
	struct err syntax = ERR_INIT;
	struct stat st;
	int escapes;

	if (task_check_spec(run->spec, &syntax) < 0) {
		buf_addf(&run->output, "refused: %s", syntax.message.buf);
		goto done;
	}
	escapes = path_resolves_outside(root, path, &outside);
	if (escapes < 0) {
		buf_addf(&run->output, "cannot resolve %s: %s", root, strerror(errno));
		goto done;
	}
	if (escapes) {
		buf_addf(&run->output,
		    "refused: %s resolves to %s, outside the repository", path,
		    outside.buf);
		goto done;
	}
	if (symlinked_directory(root, path, &link)) {
		buf_addf(&run->output, "refused: %s is reached through %s, a "
		    "symbolic link (a file: check needs a regular file at its own "
		    "path)", path, link.buf);
		goto done;
	}
	buf_addf(&full, "%s/%s", root, path);
	if (lstat(full.buf, &st) < 0) {
		buf_addf(&run->output, "%s is missing", path);
		goto done;
	}
	if (S_ISLNK(st.st_mode)) {
		buf_addf(&run->output, "refused: %s is a symbolic link%s (a file: "
		    "check needs a regular file)", path,
		    stat(full.buf, &st) < 0 ? " that leads nowhere" : "");
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		buf_addf(&run->output, "refused: %s is %s, not a regular file",
		    path, file_kind(st.st_mode));
		goto done;
	}
	if (st.st_size == 0) {
		buf_addf(&run->output, "%s is empty", path);
		goto done;
	}
	run->passed = true;
	buf_addf(&run->output, "%s exists (%lld bytes)", path, (long long)st.st_size);
done:
	buf_release(&full);
	buf_release(&outside);
	buf_release(&link);
	err_release(&syntax);
}

/*
 * Run command (a cmd: check) in dir under policy into run; traced into
 * trace when it is not NULL (check_policy_run()). Returns 0; or -1 (err
 * set) when the sandbox or the trace cannot be made: nothing ran, and
 * nothing about the work is known.
 */
static int
check_cmd(const struct check_policy *policy, const char *dir,
    const char *command, int64_t task, int64_t timeout_ms, bool network,
    struct trace_paths *trace, struct check_run *run, struct err *err)
{
	struct proc_result result;
	struct buf env_task = BUF_INIT;
	const char *env[2];
	int rc;

	buf_addf(&env_task, "DAICHO_TASK=%lld", (long long)task);
	env[0] = task ? env_task.buf : NULL;
	env[1] = NULL;
	rc = check_policy_run(policy, dir, command, env, network, timeout_ms,
	    VERIFY_OUTPUT_TAIL_BYTES, trace, &result, err);
	if (rc != 0) {
		if (rc < 0)
			buf_addf(&run->output, "cannot run /bin/sh: %s", strerror(errno));
		else
			buf_add(&run->output, err->message.buf, err->message.len);
		buf_release(&env_task);
		return rc < 0 ? 0 : -1;
	}
	run->exit_status = result.exit_status;
	run->duration_ms = result.duration_ms;
	run->passed = result.exit_status == 0 && !result.timed_out;
	buf_add(&run->output, result.output.buf, result.output.len);
	if (result.timed_out) {
		struct buf limit = BUF_INIT;

		clock_add_duration(&limit, timeout_ms);
		buf_addf(&run->output, "%s[daicho: timed out after %s; process group "
		    "killed]\n", run->output.len && run->output.buf[run->output.len - 1]
		    != '\n' ? "\n" : "", limit.buf);
		buf_release(&limit);
	}
	if (run->output.len > VERIFY_OUTPUT_TAIL_BYTES) {
		size_t cut = run->output.len - VERIFY_OUTPUT_TAIL_BYTES;

		memmove(run->output.buf, run->output.buf + cut, VERIFY_OUTPUT_TAIL_BYTES);
		run->output.len = VERIFY_OUTPUT_TAIL_BYTES;
		run->output.buf[run->output.len] = '\0';
	}
	proc_result_release(&result);
	buf_release(&env_task);
	return 0;
}

/* One line saying why run failed, for the verdict summary. */
static void
describe_failure(struct buf *out, const struct check_run *run)
{
	buf_addf(out, "%s: ", run->spec);
	if (strncmp(run->spec, "cmd:", 4) == 0) {
		if (strstr(run->output.buf, "[daicho: timed out"))
			buf_adds(out, "timed out");
		else if (run->exit_status >= 0)
			buf_addf(out, "exit %d", run->exit_status);
		else
			buf_adds(out, run->output.len ? run->output.buf : "killed");
	} else {
		buf_adds(out, run->output.buf);
	}
	/* Keep the summary to one line. */
	for (size_t i = 0; i < out->len; i++)
		if (out->buf[i] == '\n' || out->buf[i] == '\r')
			out->buf[i] = ' ';
}

/* Whether path is covered by one of globs; the glob in *which. */
static bool
covered(const struct strlist *globs, const char *path, const char **which)
{
	for (size_t i = 0; i < globs->count; i++) {
		if (glob_covers(globs->items[i], path)) {
			*which = globs->items[i];
			return true;
		}
	}
	return false;
}

/*
 * The trunk's commit the reported work is judged against: the one the
 * claim recorded, or NULL when none was (the trunk could not be read then,
 * or the claim is older than daicho's recording it). There is no fallback
 * to the trunk as it is now: a worker could put its change there first.
 */
static char *
work_base(const struct subject *s)
{
	return s->base ? xstrdup(s->base) : NULL;
}

/*
 * The commit is on a branch: a commit on none (git commit-tree, a
 * detached HEAD) is not kept, and git may collect it.
 */
static bool
check_on_branch(const char *root, const char *commit, struct check_run *run)
{
	struct buf ref = BUF_INIT, why = BUF_INIT, spec = BUF_INIT;
	int rc;

	buf_addf(&spec, "%s^{commit}", commit);
	rc = git_rev_parse(root, spec.buf, &ref) < 0 ? 2
	   : git_ref_containing(root, commit, &ref, &why);
	buf_release(&spec);
	if (rc == 2)
		buf_addf(&run->output, "%.12s is not in the repository at %s (it "
		    "was committed elsewhere: push or fetch it there, on a branch)",
		    commit, root);
	else if (rc == 0)
		buf_addf(&run->output, "%.12s is on %s", commit, ref.buf);
	else if (rc == 1)
		buf_addf(&run->output, "%.12s is on no branch or tag (git may "
		    "collect it; commit on a branch and report that)", commit);
	else
		buf_addf(&run->output, "cannot tell which branch holds %.12s: %s",
		    commit, why.buf);
	run->passed = rc == 0;
	buf_release(&ref);
	buf_release(&why);
	return run->passed;
}

/*
 * The commits accepted for other tasks since task id was last claimed,
 * appended to out: what a report of id may contain, but not as its own.
 */
static int
accepted_since_claim(struct ledger *ledger, int64_t id, struct strlist *out,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT DISTINCT commit_hash FROM verdicts WHERE passed <> 0"
	    " AND task <> ?1 AND commit_hash IS NOT NULL AND at_ms >="
	    " (SELECT coalesce(max(at_ms), 0) FROM events"
	    "  WHERE task = ?1 AND kind = 'claim')", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	while ((rc = db_step(st)) == DB_ROW)
		strlist_add(out, db_column_text(st, 0));
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err,
	    "reading verdicts");
}

/*
 * The first of commits (full hashes) that a passed verdict accepted for
 * another task than id, one id does not come after: that task into
 * *holder (0: none), and whether it waits to land into *queued.
 */
static int
accepted_holder(struct ledger *ledger, int64_t id,
    const struct strlist *commits, int64_t *holder, bool *queued,
    struct err *err)
{
	struct db_stmt *st;
	json_t *list = json_array();
	char *text;
	int rc;

	*holder = 0;
	*queued = false;
	for (size_t i = 0; i < commits->count; i++)
		json_array_append_new(list, json_string(commits->items[i]));
	text = json_dumps(list, JSON_COMPACT);
	json_decref(list);
	if ((rc = db_prepare(ledger,
	    "SELECT v.task, t.land_queued_ms IS NOT NULL AND t.state = 'verified'"
	    " FROM verdicts v JOIN tasks t ON t.id = v.task"
	    " WHERE v.passed <> 0 AND v.task <> ?1"
	    " AND v.commit_hash IN (SELECT value FROM json_each(?2))"
	    " AND NOT EXISTS (SELECT 1 FROM deps d WHERE d.task = ?1"
	    "  AND d.after = v.task)"
	    " ORDER BY v.id LIMIT 1", &st, err)) < 0) {
		free(text);
		return rc;
	}
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, text);
	rc = db_step(st);
	if (rc == DB_ROW) {
		*holder = db_column_int(st, 0);
		*queued = db_column_int(st, 1) != 0;
	}
	db_reset(st);
	free(text);
	return rc == DB_ROW || rc == DB_DONE ? 0
	     : db_error(ledger, rc, err, "reading verdicts");
}

/*
 * Whether commit, which is not on the trunk now, holds work of task id
 * beyond the work of others: none of its commits that the trunk (at the
 * claim or now) lacks was accepted for another task (*holder set to that
 * task, *queued whether its work waits to land; a task id comes after may
 * lie under its work), none of them makes the change (patch id) of a
 * commit of others' accepted work not on the trunk (s->queued: *holder
 * set, *by_change true), and after taking away the commits of excluded a
 * change of its own is left (*own counts them). Returns 0, or -1 (why, or
 * err for the ledger, says).
 */
static int
own_changes(struct ledger *ledger, const char *root, int64_t id,
    const struct subject *s, const char *base, const struct strlist *excluded,
    int64_t *holder, bool *queued, bool *by_change, long long *own,
    struct buf *why, struct err *err)
{
	struct strlist not = STRLIST_INIT, commits = STRLIST_INIT,
		       mine = STRLIST_INIT, trunk = STRLIST_INIT;
	int rc = 0;

	*holder = 0;
	*own = 0;
	*by_change = false;
	if (s->trunk)
		strlist_add(&not, s->trunk);
	strlist_add(&not, base);
	if (gitm_commits_between(root, s->commit, &not, &commits, why) < 0) {
		rc = -1;
		goto done;
	}
	if ((rc = accepted_holder(ledger, id, &commits, holder, queued,
	    err)) < 0) {
		buf_addf(why, "%s", err->message.buf);
		goto done;
	}
	if (*holder)
		goto done;
	for (size_t i = 0; i < excluded->count; i++)
		strlist_add(&not, excluded->items[i]);
	if (gitm_patch_ids(root, s->commit, &not, &mine, why) < 0) {
		rc = -1;
		goto done;
	}
	/* The same change as others' accepted work not on the trunk. */
	if (s->trunk)
		strlist_add(&trunk, s->trunk);
	for (size_t i = 0; i < s->queued.count && mine.count > 0; i++) {
		const char *space = strchr(s->queued.items[i], ' ');
		struct strlist theirs = STRLIST_INIT;
		bool same = false;

		if (space == NULL)
			continue;
		if (gitm_patch_ids(root, space + 1, &trunk, &theirs, why) < 0)
			buf_reset(why); /* its commit is gone: nothing to match */
		for (size_t k = 0; k < theirs.count && !same; k++)
			same = strlist_contains(&mine, theirs.items[k]);
		strlist_release(&theirs);
		if (same) {
			*holder = strtoll(s->queued.items[i], NULL, 10);
			*by_change = true;
			goto done;
		}
	}
	*own = (long long)mine.count;
done:
	strlist_release(&not);
	strlist_release(&commits);
	strlist_release(&mine);
	strlist_release(&trunk);
	return rc;
}

/*
 * The commit holds work of this claim, judged against the trunk as it is
 * now as well as at the claim: it is not already on the trunk (at the
 * claim: an old commit, the initial one; or now: a reset to a trunk that
 * others' work reached since); its content differs from the trunk's (an
 * empty commit, a copy, a merge of the trunk and nothing else hold no
 * work), and merged onto the trunk now it changes something; neither it
 * nor the same content was accepted for another task; it holds no
 * commit of another task that waits to land; and since the claim it holds
 * a change of its own: a commit that is no merge, not on the trunk, not
 * accepted for another task since the claim, and whose change (its patch
 * id, whatever its hash) is not that of work waiting to land. With no
 * base recorded at the claim nothing can be judged: refused. Fills *tree
 * with the commit's tree.
 */
static bool
check_new_work(struct ledger *ledger, const char *root, int64_t id,
    const struct subject *s, const char *base, char **tree,
    struct check_run *run)
{
	struct buf why = BUF_INIT, spec = BUF_INIT, mine = BUF_INIT,
		   theirs = BUF_INIT, trunk_tree = BUF_INIT, merged = BUF_INIT;
	struct strlist others = STRLIST_INIT, conflicts = STRLIST_INIT;
	struct err err = ERR_INIT;
	int64_t other = 0, holder = 0;
	long long own = -1;
	bool queued = false, by_change = false;
	int old, landed = 0;

	run->passed = false;
	if (base == NULL) {
		buf_addf(&run->output, "no trunk commit was recorded when #%lld "
		    "was claimed (the trunk could not be read then), so nothing "
		    "shows which work is new: release the task and claim it again",
		    (long long)id);
		goto done;
	}
	old = git_is_ancestor(root, s->commit, base, &why);
	if (old == 0 && s->trunk)
		landed = git_is_ancestor(root, s->commit, s->trunk, &why);
	buf_addf(&spec, "%s^{tree}", s->commit);
	if (git_rev_parse(root, spec.buf, &mine) == 0)
		*tree = xstrdup(mine.buf);
	buf_reset(&spec);
	buf_addf(&spec, "%s^{tree}", base);
	git_rev_parse(root, spec.buf, &theirs);
	if (old == 1) {
		buf_addf(&run->output, "%.12s was already on the trunk (at %.12s) "
		    "when #%lld was claimed: it holds no new work (commit the "
		    "task's work and report that commit)", s->commit, base,
		    (long long)id);
	} else if (landed == 1) {
		buf_addf(&run->output, "%.12s is on the trunk as it is now (at "
		    "%.12s): a commit the trunk holds is no task's own (it cannot be "
		    "told from a person's, or from work others landed since the "
		    "claim; commit the task's work on a branch and report that "
		    "commit)", s->commit, s->trunk);
	} else if (old < 0 || landed < 0) {
		buf_addf(&run->output, "cannot tell whether %.12s is new since "
		    "%.12s: %s", s->commit, base, why.buf);
	} else if (*tree == NULL) {
		buf_addf(&run->output, "cannot read the tree of %.12s", s->commit);
	} else if (theirs.len > 0 && strcmp(mine.buf, theirs.buf) == 0) {
		buf_addf(&run->output, "%.12s holds no change against the trunk at "
		    "the claim (%.12s): the same content, no new work (commit the "
		    "task's work and report that commit)", s->commit, base);
	} else if (s->trunk && gitm_tree_of(root, s->trunk, &trunk_tree) == 0 &&
	    gitm_merge_tree(root, s->trunk, s->commit, &merged, &conflicts,
		&why) == 0 && strcmp(merged.buf, trunk_tree.buf) == 0) {
		buf_addf(&run->output, "%.12s brings nothing the trunk does not "
		    "have now (at %.12s): merged onto it, it changes nothing (its "
		    "changes landed already, as another task's work or a copy of "
		    "it; commit this task's own work)", s->commit, s->trunk);
	} else if (accepted_elsewhere(ledger, id, s->commit, *tree, &other,
		       &err) < 0 ||
	    accepted_since_claim(ledger, id, &others, &err) < 0) {
		buf_addf(&run->output, "cannot read the verdicts: %s",
		    err.message.buf);
	} else if (other != 0) {
		buf_addf(&run->output, "%.12s (or the same content) was already "
		    "accepted for #%lld: work counts for one task (commit this "
		    "task's own work)", s->commit, (long long)other);
	} else if (own_changes(ledger, root, id, s, base, &others, &holder,
		       &queued, &by_change, &own, &why, &err) < 0) {
		buf_addf(&run->output, "cannot list the commits of %.12s since "
		    "%.12s: %s", s->commit, base, why.buf);
	} else if (holder != 0 && by_change) {
		buf_addf(&run->output, "%.12s makes the same change as the work "
		    "of #%lld (a copy of it, by patch id), which is verified and "
		    "not on the trunk: work counts for one task (build on the "
		    "trunk and commit this task's own work; a task that builds on "
		    "#%lld's work says so: 'daicho edit %lld --after %lld')",
		    s->commit, (long long)holder, (long long)holder, (long long)id,
		    (long long)holder);
	} else if (holder != 0) {
		buf_addf(&run->output, "%.12s holds the work of #%lld, which is "
		    "verified and %s: work counts for one task (build on the "
		    "trunk and commit this task's own work; a task that builds on "
		    "#%lld's work says so: 'daicho edit %lld --after %lld')",
		    s->commit, (long long)holder, queued ? "waits to land"
							 : "not on the trunk",
		    (long long)holder, (long long)id, (long long)holder);
	} else if (own == 0) {
		buf_addf(&run->output, "%.12s holds no change of its own since the "
		    "claim: each commit is a merge, is on the trunk, or was "
		    "accepted for another task (commit this task's own work)",
		    s->commit);
	} else {
		run->passed = true;
		buf_addf(&run->output, "%.12s holds work not on the trunk at the "
		    "claim (%.12s): %lld commit%s of its own", s->commit, base,
		    own, own == 1 ? "" : "s");
	}
done:
	buf_release(&why);
	buf_release(&spec);
	buf_release(&mine);
	buf_release(&theirs);
	buf_release(&trunk_tree);
	buf_release(&merged);
	strlist_release(&others);
	strlist_release(&conflicts);
	err_release(&err);
	return run->passed;
}

/*
 * What a commit changes against the trunk as it is now, read once
 * (as_on_trunk()).
 */
struct trunk_diff {
	struct strlist paths;
	int state;            /* 0 not read, 1 read, -1 could not be read */
};

#define TRUNK_DIFF_INIT { STRLIST_INIT, 0 }

/*
 * Whether path, which s's commit changes against the claim's base, is as
 * the trunk has it now (the trunk moved since the claim: another task's
 * landed work, which a person let change it, merged in). Such a change is
 * not the worker's. diff caches the commit's changes against the trunk.
 */
static bool
as_on_trunk(const char *repo, const struct subject *s, const char *base,
    const char *path, struct trunk_diff *diff)
{
	struct buf why = BUF_INIT;

	if (s->trunk == NULL || strcmp(s->trunk, base) == 0)
		return false;
	if (diff->state == 0)
		diff->state = git_changed_paths(repo, s->trunk, s->commit,
		    &diff->paths, &why) == 0 ? 1 : -1;
	buf_release(&why);
	return diff->state == 1 && !strlist_contains(&diff->paths, path);
}

/*
 * Whether path is protected for the task: by its own --protect globs, or
 * by the ledger's "protect" setting unless its --touches name the path.
 * *glob and *ledger_wide say which.
 */
static bool
is_protected(const struct subject *s, const char *path, const char **glob,
    bool *ledger_wide)
{
	const char *ignored;

	*ledger_wide = false;
	if (covered(&s->protects, path, glob))
		return true;
	*ledger_wide = covered(&s->defaults, path, glob) &&
		       !covered(&s->touches, path, &ignored);
	return *ledger_wide;
}

/*
 * The commit leaves protected paths as the trunk had them when the task
 * was claimed (base), or as it has them now (work of others that landed
 * since, merged in): the task's own --protect globs, and the ledger's
 * "protect" setting except where the task's --touches say it edits them.
 * A change of the worker's, and a checkout of an older version (work
 * forked from before the judge changed), are changes alike. A protected
 * path the trunk changed after the claim is a change too: who changed it
 * cannot be told from git (the worker may commit to the trunk), so such a
 * task is claimed again, against the new trunk.
 */
static bool
check_protected(const char *root, const struct subject *s, const char *base,
    struct check_run *run)
{
	struct strlist changed = STRLIST_INIT;
	struct trunk_diff against_trunk = TRUNK_DIFF_INIT;
	struct buf why = BUF_INIT;
	const char *glob = NULL;
	bool ledger_wide = false;
	size_t i;

	run->passed = false;
	if (base == NULL) {
		buf_adds(&run->output, "no trunk commit was recorded at the claim, "
		    "so nothing shows what the work changed: release the task and "
		    "claim it again");
		goto done;
	}
	if (git_changed_paths(root, base, s->commit, &changed, &why) < 0) {
		buf_addf(&run->output, "cannot list what %.12s changes: %s",
		    s->commit, why.buf);
		goto done;
	}
	for (i = 0; i < changed.count; i++) {
		if (is_protected(s, changed.items[i], &glob, &ledger_wide) &&
		    !as_on_trunk(root, s, base, changed.items[i], &against_trunk))
			break;
	}
	run->passed = i == changed.count;
	/*
	 * Merged onto the trunk now, the commit's own changes since it
	 * forked from it apply: none may be to a protected path (a worker
	 * that forked from a trunk whose test got stricter after its claim,
	 * and put the old test back, would undo the stricter one).
	 */
	if (run->passed && s->trunk && strcmp(s->trunk, base) != 0) {
		struct strlist forked = STRLIST_INIT;

		if (gitm_changed_since_fork(root, s->trunk, s->commit, &forked,
		    &why) < 0) {
			buf_addf(&run->output, "cannot list what %.12s changes since it "
			    "forked from the trunk: %s", s->commit, why.buf);
			run->passed = false;
			strlist_release(&forked);
			goto done;
		}
		for (size_t k = 0; k < forked.count && run->passed; k++) {
			if (is_protected(s, forked.items[k], &glob, &ledger_wide)) {
				buf_addf(&run->output, "%.12s changes %s (protected: '%s') "
				    "since it forked from the trunk: merged onto the trunk "
				    "now (%.12s), it would replace the trunk's version of "
				    "what judges the work", s->commit, forked.items[k],
				    glob, s->trunk);
				run->passed = false;
			}
		}
		strlist_release(&forked);
		if (!run->passed)
			goto done;
	}
	if (run->passed)
		buf_addf(&run->output, "%.12s changes %zu path%s against the trunk "
		    "at the claim (%.12s), none protected", s->commit, changed.count,
		    changed.count == 1 ? "" : "s", base);
	else if (ledger_wide)
		buf_addf(&run->output, "%.12s changes %s, which the ledger protects "
		    "('daicho config protect': '%s'): the work may not change what "
		    "judges it (it must be as on the trunk at the claim, %.12s); "
		    "when changing it is the task's job, a person exempts the task: "
		    "'daicho edit %lld --touches %s' (with the task's other globs: "
		    "--touches replaces them)", s->commit, changed.items[i],
		    glob, base, (long long)s->id, changed.items[i]);
	else
		buf_addf(&run->output, "%.12s changes %s, which this task protects "
		    "(--protect '%s'): the work may not change what judges it (it "
		    "must be as on the trunk at the claim, %.12s)", s->commit,
		    changed.items[i], glob, base);
done:
	strlist_release(&changed);
	strlist_release(&against_trunk.paths);
	buf_release(&why);
	return run->passed;
}

/*
 * The checks ran the work's own code (a build, a program a test calls),
 * which could rewrite a protected file before the test that reads it ran:
 * a protected path changed in the checkout at dir once the checks are done
 * fails the verdict, with a run saying which.
 */
static void
check_untouched_by_checks(const char *dir, const struct subject *s,
    struct verdict *out)
{
	struct strlist changed = STRLIST_INIT;
	struct buf why = BUF_INIT;
	const char *glob;
	bool ledger_wide;

	if (git_modified_paths(dir, &changed, &why) < 0) {
		buf_addf(&add_run(out, "protected")->output, "cannot tell what the "
		    "checks changed in the checkout: %s", why.buf);
		goto done;
	}
	for (size_t i = 0; i < changed.count; i++) {
		if (is_protected(s, changed.items[i], &glob, &ledger_wide)) {
			buf_addf(&add_run(out, "protected")->output, "the checks "
			    "changed %s, which is protected ('%s'), while they ran: "
			    "the work may not change what judges it", changed.items[i],
			    glob);
			break;
		}
	}
done:
	strlist_release(&changed);
	buf_release(&why);
}

/* Whether text is a full commit hash: 40 (SHA-1) or 64 (SHA-256) hex. */
static bool
is_full_hash(const char *text)
{
	size_t n = strspn(text, "0123456789abcdef");

	return text[n] == '\0' && (n == 40 || n == 64);
}

/* Whether commit is in the repository at root. */
static bool
commit_present(const char *root, const char *commit)
{
	struct buf spec = BUF_INIT, hash = BUF_INIT;
	bool present;

	buf_addf(&spec, "%s^{commit}", commit);
	present = git_rev_parse(root, spec.buf, &hash) == 0;
	buf_release(&spec);
	buf_release(&hash);
	return present;
}

/*
 * Make the reported commit present in the repository at root, fetching it
 * from remote when it is missing (see verify_task()). A run "fetch" in out
 * when there was anything to say; out->fetched_from and out->deferred as
 * documented there. Returns whether the commit is here now. The commit's
 * text comes from the ledger, which a process can write: it is given to
 * git only when it is a full hash.
 */
static bool
fetch_if_missing(const char *root, const char *commit, const char *remote,
    struct verdict *out)
{
	struct buf why_commit = BUF_INIT, why_branches = BUF_INIT,
		   branches = BUF_INIT, ref = BUF_INIT, why = BUF_INIT;
	struct check_run *run;
	int64_t start = clock_mono_ms();
	bool fetched_commit;

	if (!is_full_hash(commit)) {
		run = add_run(out, "fetch");
		buf_adds(&run->output, "refused: the reported commit is not a full "
		    "hash (40 or 64 hexadecimal digits), so it is given to git "
		    "neither to look up nor to fetch");
		return false;
	}
	if (commit_present(root, commit))
		return true;
	run = add_run(out, "fetch");
	if (remote == NULL || remote[0] == '\0') {
		buf_addf(&run->output, "%.12s is not in the repository at %s, and "
		    "fetching is off ('daicho config remote' is none): push it "
		    "and fetch it there, on a branch", commit, root);
		goto done;
	}
	if (!git_remote_exists(root, remote)) {
		buf_addf(&run->output, "%.12s is not in the repository at %s, which "
		    "has no remote '%s' to fetch it from (see 'git remote', and "
		    "'daicho config remote'): push it and fetch it there, on a "
		    "branch", commit, root, remote);
		goto done;
	}
	fetched_commit = git_fetch(root, remote, commit, VERIFY_FETCH_TIMEOUT_MS,
	    &why_commit) == 0 && commit_present(root, commit);
	if (fetched_commit && git_ref_containing(root, commit, &ref, &why) == 0) {
		run->passed = true;
		buf_addf(&run->output, "fetched %.12s from %s (it was not in the "
		    "repository at %s)", commit, remote, root);
		goto done;
	}
	/* Refused by the server, or on no branch here: its branches. */
	buf_addf(&branches, "+refs/heads/*:refs/remotes/%s/*", remote);
	if (git_fetch(root, remote, branches.buf, VERIFY_FETCH_TIMEOUT_MS,
		&why_branches) < 0) {
		out->deferred = true;
		buf_addf(&run->output, "cannot fetch %.12s from %s into the "
		    "repository at %s: tried 'git fetch %s %s' (%s) and 'git fetch "
		    "%s %s' (%s); the task stays reported for the next sweep",
		    commit, remote, root, remote, commit, why_commit.len
			? why_commit.buf : "fetched, but on no branch here",
		    remote, branches.buf, why_branches.buf);
		goto done;
	}
	if (!commit_present(root, commit)) {
		buf_addf(&run->output, "%.12s is not in the repository at %s, nor "
		    "on %s: asked for it (%s) and fetched every branch of %s, "
		    "without it (push it to %s, on a branch, then report it)",
		    commit, root, remote, why_commit.len ? why_commit.buf
							 : "nothing came",
		    remote, remote);
		goto done;
	}
	run->passed = true;
	buf_addf(&run->output, "fetched %.12s from %s, with its branches (it "
	    "was not in the repository at %s)", commit, remote, root);
done:
	if (run->passed)
		out->fetched_from = xstrdup(remote);
	run->duration_ms = clock_mono_ms() - start;
	buf_release(&why_commit);
	buf_release(&why_branches);
	buf_release(&branches);
	buf_release(&ref);
	buf_release(&why);
	return run->passed;
}

/*
 * What the report's commit must be before any check is worth running, in
 * a git repository: there is one when a check needs it (uncommitted files
 * never count), it is on a branch, it holds new work, and it leaves
 * protected paths alone. Each question is a run in out; returns whether
 * all passed. Outside git there is no commit, and nothing to ask.
 */
static bool
check_provenance(struct ledger *ledger, const char *root, const char *remote,
    const struct judge *judge, int64_t id, const struct subject *s,
    bool needs_commit, struct verdict *out, char **base_out)
{
	struct buf git_dir = BUF_INIT;
	const char *repo = judge ? judge->dir.buf : root;
	char *base = NULL;
	bool ok = true;

	if (ledger_git_dir(ledger, &git_dir) != 0)
		goto done;
	if (s->commit == NULL) {
		if (needs_commit) {
			buf_adds(&add_run(out, "committed")->output,
			    "no commit reported: in a git repository only committed "
			    "work counts, and files left uncommitted are never seen "
			    "(report with --commit REV)");
			ok = false;
		}
		goto done;
	}
	base = work_base(s);
	/* Fetched only for a question about it: no check needs it else. */
	if (needs_commit || s->protects.count > 0 || s->defaults.count > 0)
		ok = fetch_if_missing(root, s->commit, remote, out);
	/* What is judged, brought into the judge's own repository. */
	if (ok && judge) {
		struct strlist want = STRLIST_INIT;
		struct buf why = BUF_INIT;

		strlist_add(&want, s->commit);
		if (base)
			strlist_add(&want, base);
		if (s->trunk)
			strlist_add(&want, s->trunk);
		for (size_t i = 0; i < s->queued.count; i++) {
			const char *space = strchr(s->queued.items[i], ' ');

			if (space)
				strlist_add(&want, space + 1);
		}
		if (judge_fetch(judge, &want, &why) < 0) {
			buf_add(&add_run(out, "judge")->output, why.buf, why.len);
			out->deferred = true; /* not the work's fault */
			ok = false;
		}
		strlist_release(&want);
		buf_release(&why);
	}
	for (int step = 0; ok && step < 3; step++) {
		int64_t start = clock_mono_ms();
		struct check_run *run;

		if (step < 2 && !needs_commit)
			continue;
		if (step == 2 && s->protects.count == 0 && s->defaults.count == 0)
			continue;
		run = add_run(out, step == 0 ? "on-branch" : step == 1 ? "new-work"
						   : "protected");
		ok = step == 0 ? check_on_branch(root, s->commit, run)
		   : step == 1 ? check_new_work(ledger, repo, id, s, base,
				 &out->tree, run)
			       : check_protected(repo, s, base, run);
		run->duration_ms = clock_mono_ms() - start;
	}
done:
	*base_out = base;
	buf_release(&git_dir);
	return ok;
}

/*
 * Whether a symbolic link at path (inside a checkout) whose text is target
 * leads out of the checkout, judged by its text alone (so a link to
 * nothing is judged too): an absolute target does, and so does one whose
 * ".." climb above the checkout's root.
 */
static bool
link_leaves(const char *path, const char *target)
{
	struct buf walk = BUF_INIT;
	int depth = 0;
	bool out = false;
	const char *slash = strrchr(path, '/');

	if (target[0] == '/')
		return true;
	if (slash)
		buf_add(&walk, path, (size_t)(slash - path + 1));
	buf_adds(&walk, target);
	for (const char *p = walk.buf; *p && !out;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			out = --depth < 0;
		else if (n > 0 && !(n == 1 && p[0] == '.'))
			depth++;
		p += n + (p[n] == '/');
	}
	buf_release(&walk);
	return out;
}

/*
 * The work is all in the commit: no path it changed since base is a
 * symbolic link that leads out of the checkout at dir (to a file left
 * uncommitted in some checkout, say, which a cmd: check would then read).
 * A run in out when one does; returns whether none does.
 */
static bool
check_contained(const char *root, const char *dir, const char *commit,
    const char *base, struct verdict *out)
{
	struct strlist changed = STRLIST_INIT;
	struct buf why = BUF_INIT, full = BUF_INIT, outside = BUF_INIT;
	bool ok = true;

	if (base == NULL || git_changed_paths(root, base, commit, &changed,
	    &why) < 0)
		goto done; /* new-work and protected said what git could not */
	for (size_t i = 0; ok && i < changed.count; i++) {
		struct stat st;

		char target[4096];
		ssize_t n;

		buf_reset(&full);
		buf_addf(&full, "%s/%s", dir, changed.items[i]);
		if (lstat(full.buf, &st) < 0 || !S_ISLNK(st.st_mode))
			continue;
		buf_reset(&outside);
		n = readlink(full.buf, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		if (path_resolves_outside(dir, changed.items[i], &outside) == 1 ||
		    link_leaves(changed.items[i], target)) {
			buf_addf(&add_run(out, "in-commit")->output, "%s is a symbolic "
			    "link to %s, outside the commit: the work must be in the "
			    "commit", changed.items[i], outside.len ? outside.buf
			    : target);
			ok = false;
		}
	}
done:
	strlist_release(&changed);
	buf_release(&why);
	buf_release(&full);
	buf_release(&outside);
	return ok;
}

/*
 * Run the task's own check spec into run, in dir, commands under policy
 * (recorded in v). Returns 0, or -1 (err set) when a command cannot run
 * for want of the sandbox.
 */
static int
run_check(const struct check_policy *policy, const char *dir,
    const char *root, int64_t id, const struct subject *s, const char *spec,
    struct trace_paths *trace, struct check_run *run, struct verdict *v,
    struct err *err)
{
	int64_t start = clock_mono_ms();
	struct buf why = BUF_INIT;
	int rc = 0;

	if (strncmp(spec, "file:", 5) == 0) {
		check_file(dir, spec + 5, run);
	} else if (strncmp(spec, "cmd:", 4) == 0) {
		rc = check_cmd(policy, dir, spec + 4, id, s->check_timeout_ms,
		    s->network, trace, run, err);
		v->sandbox = check_policy_name(policy);
	} else if (strcmp(spec, "saved") == 0) {
		run->passed = s->result_bytes > 0;
		buf_adds(&run->output, s->result_bytes > 0 ? "a result is saved"
				       : s->result_bytes == 0
					   ? "the saved result is empty"
					   : "no result saved");
	} else if (strcmp(spec, "commit") == 0) {
		int changes = s->commit ? git_commit_has_changes(root, s->commit,
						 &why) : -1;

		run->passed = changes == 1;
		if (s->commit == NULL)
			buf_adds(&run->output, "no commit reported");
		else if (changes == 1)
			buf_addf(&run->output, "%.12s changes files", s->commit);
		else if (changes == 0)
			buf_addf(&run->output, "%.12s changes nothing", s->commit);
		else
			buf_add(&run->output, why.buf, why.len);
	} else {
		buf_addf(&run->output, "unknown check");
	}
	if (run->duration_ms == 0)
		run->duration_ms = clock_mono_ms() - start;
	buf_release(&why);
	return rc;
}

/*
 * What the checks gave on tree, as verify_record() keeps it: new objects
 * into *known (key -> true or false) and *inputs (key -> what a cmd:
 * check read and looked for there, {"read": [...], "missing": [...]});
 * empty when nothing is kept. Returns 0, or the ledger's error.
 */
static int
baseline_read(struct ledger *ledger, const char *tree, json_t **known,
    json_t **inputs, struct err *err)
{
	struct db_stmt *st;
	int rc;

	*known = json_object();
	*inputs = json_object();
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger, "SELECT key, passed, inputs FROM baselines"
	    " WHERE tree = ?", &st, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	db_bind_text(st, 1, tree);
	while ((rc = db_step(st)) == DB_ROW) {
		const char *text = db_column_text(st, 2);
		json_t *traced = text ? json_loads(text, 0, NULL) : NULL;

		json_object_set_new(*known, db_column_text(st, 0),
		    json_boolean(db_column_int(st, 1) != 0));
		if (json_is_object(traced))
			json_object_set(*inputs, db_column_text(st, 0), traced);
		json_decref(traced);
	}
	db_reset(st);
	rc = rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading baselines");
	ledger_rollback(ledger);
	return rc;
}

/* Keep v->base_results under v->base_tree, in the caller's transaction. */
static int
baseline_keep(struct ledger *ledger, const struct verdict *v, int64_t now,
    struct err *err)
{
	const char *key;
	json_t *passed;
	int rc = 0;

	if (v->base_tree == NULL || v->base_results == NULL)
		return 0;
	json_object_foreach(v->base_results, key, passed) {
		json_t *traced = v->base_inputs
				     ? json_object_get(v->base_inputs, key) : NULL;
		char *text = traced ? json_dumps(traced, JSON_COMPACT) : NULL;
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger,
		    "INSERT INTO baselines (tree, key, passed, at_ms, inputs)"
		    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (tree, key)"
		    " DO UPDATE SET passed = ?3, at_ms = ?4, inputs = ?5",
		    &st, err)) < 0) {
			free(text);
			return rc;
		}
		db_bind_text(st, 1, v->base_tree);
		db_bind_text(st, 2, key);
		db_bind_int(st, 3, json_is_true(passed));
		db_bind_int(st, 4, now);
		if (text)
			db_bind_text(st, 5, text);
		rc = db_step_done(ledger, st, "keeping a baseline", err);
		free(text);
		if (rc < 0)
			break;
	}
	return rc;
}

/* A trace's read and missing paths as kept in the baselines table. */
static json_t *
inputs_json(const struct trace_paths *trace)
{
	const struct strlist *lists[] = { &trace->read, &trace->missing,
		&trace->listed };
	json_t *arrays[3];

	for (size_t k = 0; k < 3; k++) {
		arrays[k] = json_array();
		for (size_t i = 0; i < lists[k]->count; i++)
			json_array_append_new(arrays[k],
			    json_string(lists[k]->items[i]));
	}
	return json_pack("{s:o, s:o, s:o, s:b}", "read", arrays[0], "missing",
	    arrays[1], "listed", arrays[2], "truncated", trace->truncated);
}

/*
 * Add the paths of kept (inputs_json()'s form) to the union in into
 * (trace_paths_sort() it once all are in).
 */
static void
inputs_add(struct trace_paths *into, const json_t *kept)
{
	size_t i;
	json_t *path;

	json_array_foreach(json_object_get(kept, "read"), i, path)
		if (json_is_string(path))
			strlist_add(&into->read, json_string_value(path));
	json_array_foreach(json_object_get(kept, "missing"), i, path)
		if (json_is_string(path))
			strlist_add(&into->missing, json_string_value(path));
	json_array_foreach(json_object_get(kept, "listed"), i, path)
		if (json_is_string(path))
			strlist_add(&into->listed, json_string_value(path));
	into->truncated |= json_is_true(json_object_get(kept, "truncated"));
}

/* Whether spec is a check about the tree (file:, cmd:). */
static bool
tree_check(const char *spec)
{
	return strncmp(spec, "file:", 5) == 0 || strncmp(spec, "cmd:", 4) == 0;
}

/* The key a check's result on a tree is kept under (judge_baseline_read()). */
static void
baseline_key(struct buf *key, int64_t id, const char *spec)
{
	buf_reset(key);
	if (strstr(spec, "DAICHO_TASK"))
		buf_addf(key, "#%lld ", (long long)id);
	buf_adds(key, spec);
}

/*
 * Run s's tree checks (files first, then commands) in dir, checked out at
 * the claim's base, each not already in known (with its inputs, for a
 * command, in inputs), and put each result in known and in fresh, and
 * what each command read and looked for (traced) in inputs and in
 * fresh_inputs. Returns 0, or -1 (err set) when a command cannot run for
 * want of the sandbox or the trace.
 */
static int
run_at_base(const struct verify_options *options, const char *dir,
    const char *repo, int64_t id, const struct subject *s, json_t *known,
    json_t *inputs, json_t *fresh, json_t *fresh_inputs, struct err *err)
{
	struct buf key = BUF_INIT;
	int rc = 0;

	for (int commands = 0; rc == 0 && commands <= 1; commands++)
		for (size_t i = 0; rc == 0 && i < s->checks.count; i++) {
			const char *spec = s->checks.items[i];
			struct trace_paths trace = TRACE_PATHS_INIT;
			struct verdict scratch = { 0 };
			struct check_run *run;

			if (!tree_check(spec) || (strncmp(spec, "cmd:", 4) == 0) !=
			    commands)
				continue;
			baseline_key(&key, id, spec);
			if (json_object_get(known, key.buf) &&
			    (!commands || json_object_get(inputs, key.buf)))
				continue;
			run = add_run(&scratch, spec);
			rc = run_check(options->policy, dir, repo, id, s, spec,
			    commands ? &trace : NULL, run, &scratch, err);
			if (rc == 0) {
				json_object_set_new(known, key.buf,
				    json_boolean(run->passed));
				json_object_set_new(fresh, key.buf,
				    json_boolean(run->passed));
			}
			if (rc == 0 && commands) {
				json_object_set_new(inputs, key.buf,
				    inputs_json(&trace));
				json_object_set_new(fresh_inputs, key.buf,
				    inputs_json(&trace));
			}
			trace_paths_release(&trace);
			verdict_release(&scratch);
		}
	buf_release(&key);
	return rc;
}

/* How a path is one of the checks' inputs (traced_input()). */
enum input_kind { INPUT_NONE, INPUT_READ, INPUT_MISSING, INPUT_LISTED };

/*
 * How path is one of the traced inputs of s (s->inputs), outside s's
 * scope: read (itself, or a path below it: a directory or a link to one
 * it was read through), looked for and not found (itself or a directory
 * above it: the entry in *entry), or, when base_dirs is not NULL (the
 * directories of the base's tree, sorted), in a directory the checks
 * listed: its own, or, for a path in directories the base lacks, the one
 * above the first of those (*entry). A listing saw every entry, so a
 * change of any counts, not only one added (a fail-fast runner that never
 * reached the second test still listed it). INPUT_NONE when it is none.
 */
static enum input_kind
traced_input(const struct subject *s, const char *path,
    const struct strlist *base_dirs, const char **entry)
{
	const char *ignored;
	struct buf dir = BUF_INIT;
	char *slash;

	*entry = path;
	if (covered(&s->scope, path, &ignored))
		return INPUT_NONE;
	/* Itself, or a directory (or a link to one) it was read through. */
	if ((*entry = trace_paths_find(&s->inputs.read, path, false)) ||
	    (*entry = trace_paths_find_below(&s->inputs.read, path)))
		return INPUT_READ;
	if ((*entry = trace_paths_find(&s->inputs.missing, path, true)))
		return INPUT_MISSING;
	if (base_dirs == NULL)
		return INPUT_NONE;
	/*
	 * Up from its own directory: the first one listed counts, while each
	 * below it is new (a directory the base had lists as it did).
	 */
	buf_adds(&dir, path);
	for (;;) {
		slash = strrchr(dir.buf, '/');
		if (slash)
			*slash = '\0';
		if ((*entry = trace_paths_find(&s->inputs.listed,
		    slash ? dir.buf : ".", false)) != NULL || slash == NULL ||
		    strlist_find_sorted(base_dirs, dir.buf))
			break;
	}
	buf_release(&dir);
	return *entry ? INPUT_LISTED : INPUT_NONE;
}

/*
 * The commit leaves what the checks read, looked for or listed on the
 * claim's base as it was (s->inputs, traced there), except inside the
 * task's scope (s->scope): a run "inputs" appended to out. A path as the
 * trunk has it now is as good (work of others, landed since). Returns
 * whether it passed.
 */
static bool
check_inputs(const char *repo, const struct subject *s, const char *base,
    int64_t id, struct verdict *out)
{
	struct check_run *run = add_run(out, "inputs");
	struct strlist changed = STRLIST_INIT, added = STRLIST_INIT,
		       base_dirs = STRLIST_INIT;
	struct trunk_diff against_trunk = TRUNK_DIFF_INIT;
	struct buf why = BUF_INIT;
	enum input_kind kind = INPUT_NONE;
	const char *entry = NULL, *path;
	size_t i;

	if (git_changed_paths(repo, base, s->commit, &changed, &why) < 0 ||
	    git_added_paths(repo, base, s->commit, &added, &why) < 0 ||
	    (changed.count > 0 && git_tree_dirs(repo, base, &base_dirs,
	     &why) < 0)) {
		buf_addf(&run->output, "cannot list what %.12s changes: %s",
		    s->commit, why.buf);
		goto done;
	}
	strlist_sort_unique(&base_dirs);
	for (i = 0; i < changed.count; i++) {
		path = changed.items[i];
		kind = traced_input(s, path, &base_dirs, &entry);
		if (kind != INPUT_NONE &&
		    !as_on_trunk(repo, s, base, path, &against_trunk))
			break;
	}
	run->passed = i == changed.count;
	if (run->passed) {
		buf_addf(&run->output, "%.12s changes %zu path%s, none that the "
		    "checks read, looked for or listed on the trunk at the claim "
		    "(%.12s; %zu traced) outside the task's scope%s", s->commit,
		    changed.count, changed.count == 1 ? "" : "s", base,
		    s->inputs.read.count + s->inputs.missing.count +
		    s->inputs.listed.count, s->inputs.truncated
		    ? " (the trace was cut short: only the first paths count)" : "");
		goto done;
	}
	path = changed.items[i];
	if (kind == INPUT_READ)
		buf_addf(&run->output, "%.12s changes %s, which the checks read "
		    "on the trunk at the claim (%.12s)", s->commit, path, base);
	else if (kind == INPUT_MISSING)
		buf_addf(&run->output, "%.12s changes %s, which the checks looked "
		    "for on the trunk at the claim (%.12s%s%s) and did not find",
		    s->commit, path, base, strcmp(entry, path) ? ", as " : "",
		    strcmp(entry, path) ? entry : "");
	else
		buf_addf(&run->output, "%.12s %s %s, in a directory (%s) the "
		    "checks listed on the trunk at the claim (%.12s)", s->commit,
		    strlist_contains(&added, path) ? "adds" : "changes", path,
		    entry, base);
	if (s->scope.count == 0)
		buf_addf(&run->output, "; the task has no scope (--touches) but "
		    "its worker's, so a person decides: 'daicho edit %lld "
		    "--touches ...' says what the work may change, then 'daicho "
		    "unblock %lld' sends it back to be reported again",
		    (long long)id, (long long)id);
	else
		buf_addf(&run->output, ": the work may not change what judges it "
		    "outside the task's --touches; if changing it is the work, a "
		    "person adds it to them ('daicho edit %lld --touches ...')",
		    (long long)id);
done:
	strlist_release(&changed);
	strlist_release(&added);
	strlist_release(&base_dirs);
	strlist_release(&against_trunk.paths);
	buf_release(&why);
	return run->passed;
}

/*
 * The checks' run at the commit wrote none of what they read on the
 * claim's base (outside the task's scope), nor a protected path: a write
 * put back before the checks ended is still a write. written: the paths
 * the run wrote. A failed run "inputs" appended to out when one did.
 */
static void
check_unwritten(const struct subject *s, const struct strlist *written,
    bool truncated, struct verdict *out)
{
	const char *entry, *glob;
	bool ledger_wide;

	/* A trace cut short cannot say what was left alone. */
	if (truncated) {
		buf_addf(&add_run(out, "inputs")->output, "the checks' run at the "
		    "commit touched more paths than the trace follows (%d): "
		    "nothing shows that it left what judges the work alone",
		    TRACE_RAW_LIMIT_PATHS);
		return;
	}
	for (size_t i = 0; i < written->count; i++) {
		const char *path = written->items[i];
		bool read = traced_input(s, path, NULL, &entry) == INPUT_READ;

		if (read || is_protected(s, path, &glob, &ledger_wide)) {
			buf_addf(&add_run(out, "inputs")->output, "the checks "
			    "wrote %s while they ran at the commit, which %s: the "
			    "work may not change what judges it, even for a while",
			    path, read ? "they only read on the trunk at the claim"
				       : "is protected");
			return;
		}
	}
}

int
verify_task(struct ledger *ledger, int64_t id,
    const struct verify_options *options, struct verdict *out, struct err *err)
{
	struct subject s;
	struct buf worktree = BUF_INIT, why = BUF_INIT, summary = BUF_INIT;
	struct judge_checkout warm = JUDGE_CHECKOUT_INIT;
	struct err unrun = ERR_INIT;
	const char *dir = options->root;
	/* Where the work's objects are read: the judge's own repository. */
	const char *repo = options->judge ? options->judge->dir.buf
					  : options->root;
	bool worktree_made = false, needs_tree = false, needs_commit = false;
	bool base_missing = false;
	struct buf base_tree = BUF_INIT;
	json_t *at_base = NULL; /* the base's results, when judged with it */
	json_t *at_inputs = NULL; /* what its commands read and looked for */
	struct strlist wrote = STRLIST_INIT; /* what the commands wrote */
	bool traced = false, wrote_too_much = false;
	size_t tree_checks = 0, passed_at_base = 0;
	char *base = NULL;
	bool ready;
	size_t first;
	int rc;

	memset(out, 0, sizeof(*out));
	out->task = id;
	out->at_ms = clock_now_ms();
	if ((rc = read_subject(ledger, id, &s, err)) < 0)
		return rc;
	out->checks_version = s.checks_version;
	if (s.commit)
		out->commit = xstrdup(s.commit);
	if (s.checks.count == 0 && s.result_bytes >= 0)
		strlist_add(&s.checks, "saved");
	for (size_t i = 0; i < s.checks.count; i++) {
		if (strncmp(s.checks.items[i], "file:", 5) == 0 ||
		    strncmp(s.checks.items[i], "cmd:", 4) == 0)
			needs_tree = true;
		if (strcmp(s.checks.items[i], "commit") == 0)
			needs_commit = true;
	}
	needs_commit = needs_commit || needs_tree;
	ready = check_provenance(ledger, options->root, options->remote,
	    options->judge, id, &s, needs_commit, out, &base);
	/*
	 * The checks at the claim's base too (kept by its tree): a check that
	 * passed there proves nothing about the work.
	 */
	if (ready && s.commit && needs_tree && base && options->judge &&
	    !s.no_baseline) {
		if (gitm_tree_of(repo, base, &base_tree) == 0) {
			if ((rc = baseline_read(ledger, base_tree.buf, &at_base,
			    &at_inputs, err)) < 0) {
				free(base);
				subject_release(&s);
				buf_release(&base_tree);
				return rc;
			}
			for (size_t i = 0; i < s.checks.count; i++) {
				baseline_key(&why, id, s.checks.items[i]);
				if (tree_check(s.checks.items[i]) &&
				    (json_object_get(at_base, why.buf) == NULL ||
				     (strncmp(s.checks.items[i], "cmd:", 4) == 0 &&
				      json_object_get(at_inputs, why.buf) == NULL)))
					base_missing = true;
			}
			buf_reset(&why);
		}
	}
	if (ready && s.commit && needs_tree) {
		const char *first_out = base_missing ? base : s.commit;

		/*
		 * A warm checkout of the judge's, made to hold exactly the
		 * commit; without a judge, a worktree of the project's own.
		 */
		if (options->judge) {
			if (judge_checkout_take(options->judge,
			    options->worktree_dir, first_out, &warm, &why) == 0)
				buf_adds(&worktree, warm.dir.buf);
		} else {
			buf_addf(&worktree, "%s/%lld-%s", options->worktree_dir,
			    (long long)id, options->token);
			if (path_make_parent_dirs(worktree.buf, 0755) < 0 ||
			    git_worktree_add(repo, worktree.buf, first_out, &why) < 0)
				buf_reset(&worktree);
		}
		if (worktree.len == 0) {
			struct check_run *run = add_run(out, "checkout");

			buf_addf(&run->output, "cannot check out %.12s in %s: %s",
			    first_out, repo, why.len ? why.buf : strerror(errno));
			ready = false;
		} else {
			worktree_made = true;
			dir = worktree.buf;
		}
		if (ready && base_missing) {
			out->base_results = json_object();
			out->base_inputs = json_object();
			out->base_tree = xstrdup(base_tree.buf);
			if (run_at_base(options, dir, repo, id, &s, at_base,
			    at_inputs, out->base_results, out->base_inputs,
			    &unrun) < 0) {
				out->deferred = true;
				ready = false;
			}
			/* Then the work itself, in the same checkout. */
			if (ready && gitm_checkout_clean(dir, s.commit, true,
			    &why) < 0) {
				buf_addf(&add_run(out, "checkout")->output,
				    "cannot check out %.12s in %s: %s", s.commit,
				    dir, why.buf);
				ready = false;
			}
		}
		if (ready)
			ready = check_contained(repo, dir, s.commit, base, out);
		/*
		 * What the commands read and looked for on the base is the
		 * checks' own: the work leaves it be, outside its scope.
		 */
		for (size_t i = 0; ready && at_inputs && i < s.checks.count; i++) {
			if (strncmp(s.checks.items[i], "cmd:", 4) != 0)
				continue;
			baseline_key(&why, id, s.checks.items[i]);
			inputs_add(&s.inputs, json_object_get(at_inputs, why.buf));
			traced = true;
		}
		buf_reset(&why);
		if (traced) {
			trace_paths_sort(&s.inputs);
			ready = check_inputs(repo, &s, base, id, out);
			/* Not the worker's fault when nobody drew its scope. */
			out->unscoped = !ready && s.scope.count == 0;
		}
	}
	/*
	 * The task's checks, each a run in the order given; but every check
	 * that looks at the checkout runs before any command does, so that no
	 * command of the work's can make the file a check looks for.
	 */
	first = out->run_count;
	for (size_t i = 0; ready && i < s.checks.count; i++)
		add_run(out, s.checks.items[i]);
	for (int commands = 0; ready && commands <= 1; commands++)
		for (size_t i = 0; ready && i < s.checks.count; i++) {
			struct trace_paths trace = TRACE_PATHS_INIT;

			if ((strncmp(s.checks.items[i], "cmd:", 4) == 0) != commands)
				continue;
			if (run_check(options->policy, dir, repo, id, &s,
			    s.checks.items[i], traced && commands ? &trace : NULL,
			    &out->runs[first + i], out, &unrun) < 0) {
				/* Not judged: the machine cannot sandbox. */
				out->deferred = true;
				ready = false;
			}
			for (size_t k = 0; k < trace.written.count; k++)
				strlist_add(&wrote, trace.written.items[k]);
			wrote_too_much |= trace.truncated;
			trace_paths_release(&trace);
		}
	if (ready && worktree_made &&
	    (s.protects.count > 0 || s.defaults.count > 0))
		check_untouched_by_checks(dir, &s, out);
	/* Written and put back is a write too: the trace saw it. */
	if (ready && traced)
		check_unwritten(&s, &wrote, wrote_too_much, out);
	/* Each tree check's result at the base, beside its own. */
	for (size_t i = 0; at_base && ready && i < s.checks.count; i++) {
		json_t *then;

		baseline_key(&why, id, s.checks.items[i]);
		then = json_object_get(at_base, why.buf);
		if (tree_check(s.checks.items[i]) && json_is_boolean(then)) {
			out->runs[first + i].base_passed = json_is_true(then);
			tree_checks++;
			passed_at_base += json_is_true(then);
		}
	}
	buf_reset(&why);
	if (warm.lock_fd >= 0)
		judge_checkout_give(&warm);
	else if (worktree_made)
		git_worktree_remove(repo, worktree.buf);
	out->passed = true;
	if (unrun.message.len > 0) {
		out->passed = false;
		buf_add(&summary, unrun.message.buf, unrun.message.len);
	}
	for (size_t i = 0; i < out->run_count; i++) {
		if (!out->runs[i].passed) {
			if (out->passed && out->unscoped) {
				buf_adds(&summary, "unscoped: ");
				buf_add_oneline(&summary, out->runs[i].output.buf);
			} else if (out->passed) {
				describe_failure(&summary, &out->runs[i]);
			}
			out->passed = false;
		}
	}
	/* Every check about the tree passed at the base: nothing is proved. */
	if (out->passed && tree_checks > 0 && passed_at_base == tree_checks) {
		out->passed = false;
		out->vacuous = true;
		buf_addf(&summary, "vacuous: every check passed on the trunk at the "
		    "claim (%.12s) already, so none proves this work; a person "
		    "decides: sharper checks ('daicho edit %lld --done-when ...'), "
		    "or 'daicho edit %lld --no-baseline'", base, (long long)id,
		    (long long)id);
	}
	if (out->passed) {
		size_t checks = out->run_count - first;

		if (checks == 0)
			buf_adds(&summary, "no checks: accepted on the report");
		else
			buf_addf(&summary, "%zu check%s passed", checks,
			    checks == 1 ? "" : "s");
		/* And daicho's own, which the evidence lists above them. */
		if (checks > 0 && first > 0) {
			buf_addf(&summary, " (and daicho's %zu: ", first);
			for (size_t i = 0; i < first; i++)
				buf_addf(&summary, "%s%s", i ? ", " : "",
				    out->runs[i].spec);
			buf_addch(&summary, ')');
		}
		if (out->fetched_from)
			buf_addf(&summary, " (the commit fetched from %s)",
			    out->fetched_from);
	}
	if (!out->deferred && out->sandbox && strcmp(out->sandbox, "off") == 0)
		buf_adds(&summary, " (checks ran unsandboxed: 'sandbox' is off)");
	out->summary = buf_detach(&summary, NULL);
	err_release(&unrun);
	json_decref(at_base);
	json_decref(at_inputs);
	strlist_release(&wrote);
	buf_release(&base_tree);
	free(base);
	subject_release(&s);
	buf_release(&worktree);
	buf_release(&warm.dir);
	buf_release(&why);
	return 0;
}

void
verify_locations(struct ledger *ledger, struct buf *worktree_dir,
    struct buf *root)
{
	if (worktree_dir) {
		ledger_local_dir(ledger, worktree_dir);
		buf_adds(worktree_dir, "/verify");
	}
	if (root)
		ledger_project_root(ledger, root);
}

int
verify_setup_read(struct ledger *ledger, const char *remote,
    struct verify_setup *s, struct err *err)
{
	int rc;

	verify_locations(ledger, &s->worktrees, &s->root);
	s->options.root = s->root.buf;
	s->options.worktree_dir = s->worktrees.buf;
	s->options.policy = &s->policy;
	s->options.judge = NULL;
	if ((rc = check_policy_read(ledger, &s->policy, err)) < 0 ||
	    (rc = judge_open(ledger, &s->judge, err)) < 0)
		return rc;
	if (rc == 0)
		s->options.judge = &s->judge;
	if (remote)
		buf_adds(&s->remote, strcmp(remote, "none") == 0 ? "" : remote);
	else if ((rc = settings_remote(ledger, &s->remote, err)) < 0)
		return rc;
	s->options.remote = s->remote.buf;
	return 0;
}

void
verify_setup_release(struct verify_setup *s)
{
	check_policy_release(&s->policy);
	judge_release(&s->judge);
	buf_release(&s->worktrees);
	buf_release(&s->root);
	buf_release(&s->remote);
}

int
verify_checks_in(struct ledger *ledger, int64_t id, const char *dir,
    const char *root, const struct check_policy *policy, struct verdict *out,
    struct err *err)
{
	struct subject s;
	size_t first = out->run_count;
	int rc;

	if ((rc = read_subject(ledger, id, &s, err)) < 0)
		return rc;
	for (size_t i = 0; i < s.checks.count; i++)
		add_run(out, s.checks.items[i]);
	/* As verify_task() runs them: files first, then commands. */
	for (int commands = 0; rc == 0 && commands <= 1; commands++)
		for (size_t i = 0; rc == 0 && i < s.checks.count; i++)
			if ((strncmp(s.checks.items[i], "cmd:", 4) == 0) == commands)
				rc = run_check(policy, dir, root, id, &s,
				    s.checks.items[i], NULL, &out->runs[first + i], out, err);
	subject_release(&s);
	return rc;
}

int
verify_run_command(const struct check_policy *policy, const char *dir,
    const char *command, int64_t task, int64_t timeout_ms,
    struct verdict *out, struct err *err)
{
	struct buf spec = BUF_INIT;
	struct check_run *run;
	int rc;

	buf_addf(&spec, "cmd:%s", command);
	run = add_run(out, spec.buf);
	rc = check_cmd(policy, dir, command, task, timeout_ms, false, NULL, run,
	    err);
	out->sandbox = check_policy_name(policy);
	buf_release(&spec);
	return rc;
}

void
verify_first_failure(const struct verdict *v, struct buf *out)
{
	for (size_t i = 0; i < v->run_count; i++) {
		if (!v->runs[i].passed) {
			describe_failure(out, &v->runs[i]);
			return;
		}
	}
}

int
verify_take(struct ledger *ledger, int64_t only, int64_t reported_by_ms,
    int64_t not_owned_by, const char *token, int64_t *id, struct err *err)
{
	/*
	 * The claim lasts as long as the task's cmd checks could take, plus
	 * two minutes for the worktree: a sweep that dies mid-way loses the
	 * task only until then. One task asked for by id (a runner's every
	 * job, verify ID) needs no search and nothing returned: no sort and
	 * no table of results for SQLite to make.
	 */
	bool by_id = only != 0 && reported_by_ms == 0 && not_owned_by == 0;
	struct db_stmt *st;
	int64_t now = clock_now_ms();
	int rc;

	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	rc = by_id ? db_prepare(ledger,
	    "UPDATE tasks SET verify_token = ?1, verify_expires_ms = ?2 + 120000"
	    " + coalesce(check_timeout_ms, 600000) * (SELECT count(*) FROM checks c"
	    "   WHERE c.task = tasks.id AND c.spec LIKE 'cmd:%')"
	    " WHERE id = ?3 AND state = 'reported'"
	    "  AND (verify_expires_ms IS NULL OR verify_expires_ms <= ?2)",
	    &st, err)
	    : db_prepare(ledger,
	    "UPDATE tasks SET verify_token = ?1, verify_expires_ms = ?2 + 120000"
	    " + coalesce(check_timeout_ms, 600000) * (SELECT count(*) FROM checks c"
	    "   WHERE c.task = tasks.id AND c.spec LIKE 'cmd:%')"
	    " WHERE id = (SELECT id FROM tasks WHERE state = 'reported'"
	    "  AND (?3 = 0 OR id = ?3) AND (?4 = 0 OR updated_ms <= ?4)"
	    "  AND (?5 = 0 OR owner IS DISTINCT FROM ?5)"
	    "  AND (verify_expires_ms IS NULL OR verify_expires_ms <= ?2)"
	    "  ORDER BY updated_ms, id LIMIT 1)"
	    " RETURNING id", &st, err);
	if (rc < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	db_bind_text(st, 1, token);
	db_bind_int(st, 2, now);
	db_bind_int(st, 3, only);
	if (!by_id) {
		db_bind_int(st, 4, reported_by_ms);
		db_bind_int(st, 5, not_owned_by);
	}
	rc = db_step(st);
	if (rc == DB_ROW)
		*id = db_column_int(st, 0);
	db_reset(st);
	if (by_id && rc == DB_DONE && db_changes(ledger) == 1) {
		*id = only;
		rc = DB_ROW;
	}
	if (rc != DB_ROW && rc != DB_DONE) {
		rc = db_error(ledger, rc, err, "taking a task to verify");
		ledger_rollback(ledger);
		return rc;
	}
	if (rc == DB_DONE) {
		ledger_rollback(ledger);
		return 1;
	}
	return ledger_commit(ledger, err);
}

/* Insert the verdict and its runs; sets verdict->id. */
static int
insert_verdict(struct ledger *ledger, struct verdict *v, int64_t actor,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "INSERT INTO verdicts (task, at_ms, actor, passed, commit_hash, summary,"
	    " checks_version, tree, sandbox, vacuous)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, v->task);
	db_bind_int(st, 2, v->at_ms);
	if (actor)
		db_bind_int(st, 3, actor);
	db_bind_int(st, 4, v->passed);
	if (v->commit)
		db_bind_text(st, 5, v->commit);
	db_bind_text(st, 6, v->summary);
	if (v->checks_version > 0)
		db_bind_int(st, 7, v->checks_version);
	if (v->tree)
		db_bind_text(st, 8, v->tree);
	if (v->sandbox)
		db_bind_text(st, 9, v->sandbox);
	db_bind_int(st, 10, v->vacuous);
	if ((rc = db_step_done(ledger, st, "recording a verdict", err)) < 0)
		return rc;
	v->id = db_last_insert_id(ledger);
	for (size_t i = 0; i < v->run_count; i++) {
		const struct check_run *run = &v->runs[i];

		if ((rc = db_prepare(ledger,
		    "INSERT INTO check_runs (verdict, seq, spec, passed, exit_status,"
		    " duration_ms, output, base_passed)"
		    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, v->id);
		db_bind_int(st, 2, (int64_t)i + 1);
		db_bind_text(st, 3, run->spec);
		db_bind_int(st, 4, run->passed);
		if (run->exit_status >= 0)
			db_bind_int(st, 5, run->exit_status);
		db_bind_int(st, 6, run->duration_ms);
		db_bind_blob(st, 7, run->output.buf, (int)run->output.len);
		if (run->base_passed >= 0)
			db_bind_int(st, 8, run->base_passed);
		if ((rc = db_step_done(ledger, st, "recording a check",
			 err)) < 0)
			return rc;
	}
	return 0;
}

/* Run one UPDATE with ?1 = task id and, when it uses it, ?2 = now. */
static int
update(struct ledger *ledger, const char *sql, int64_t id, int64_t now,
    struct err *err)
{
	return db_write(ledger, sql, id, now, NULL, "applying a verdict", err);
}

/*
 * The live holder of a report not accepted learns of it the way it
 * learns of other changes (a message: its hooks and the MCP server
 * announce it): rejected and still its own, failed, or blocked for a
 * person. Nothing for a verified report. Inside verify_record()'s
 * transaction; 0 or the error.
 */
static int
tell_holder(struct ledger *ledger, int64_t actor, int64_t owner,
    const struct verdict *v, enum verify_outcome outcome, int64_t attempts,
    int64_t max_attempts, struct err *err)
{
	struct buf text = BUF_INIT;
	int rc;

	switch (outcome) {
	case VERIFY_REJECTED_TO_OWNER:
		buf_addf(&text, "your report of #%lld was rejected (attempt %lld "
		    "of %lld): ", (long long)v->task, (long long)attempts + 1,
		    (long long)max_attempts);
		buf_add_oneline(&text, v->summary ? v->summary : "its checks failed");
		buf_addf(&text, "; it is still yours: fix it, commit and report "
		    "again ('daicho prompt %lld' shows the evidence)",
		    (long long)v->task);
		break;
	case VERIFY_FAILED:
		buf_addf(&text, "your report of #%lld was rejected and the task has "
		    "failed, its %lld attempts used up: ", (long long)v->task,
		    (long long)max_attempts);
		buf_add_oneline(&text, v->summary ? v->summary : "its checks failed");
		buf_adds(&text, "; stop working on it");
		break;
	case VERIFY_VACUOUS:
	case VERIFY_UNSCOPED:
		buf_addf(&text, "#%lld is blocked for a person, not for your work: ",
		    (long long)v->task);
		buf_add_oneline(&text, v->summary ? v->summary : "?");
		buf_addf(&text, "; wait for them ('daicho show %lld')",
		    (long long)v->task);
		break;
	default:
		return 0;
	}
	rc = msg_append(ledger, actor, owner, "message", text.buf, err);
	buf_release(&text);
	return rc;
}

/* What verify_record() decides on: the task, re-read under the lock. */
struct verdict_basis {
	char state[16];
	bool token_ok;        /* its verify_token is the one given */
	int64_t attempts;
	int64_t max_attempts;
	bool owner_alive;     /* its holder was seen since the stale limit */
	bool queued;          /* it waits in the landing queue */
	int64_t owner;        /* its holder, or 0 */
};

/*
 * Re-read task id into *out inside the caller's transaction: token is the
 * verification's claim (or NULL), and a holder seen at or after
 * seen_since_ms counts as alive. Returns 0, ERR_NOT_FOUND for no such
 * task, or the ledger's error.
 */
static int
read_verdict_basis(struct ledger *ledger, int64_t id, const char *token,
    int64_t seen_since_ms, struct verdict_basis *out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_prepare(ledger,
	    "SELECT t.state, t.verify_token IS NOT DISTINCT FROM ?2, t.attempts, t.max_attempts,"
	    " a.state IN ('active','waiting') AND a.last_seen_ms >= ?3,"
	    " t.land_queued_ms IS NOT NULL, t.owner"
	    " FROM tasks t LEFT JOIN agents a ON a.id = t.owner WHERE t.id = ?1",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	if (token)
		db_bind_text(st, 2, token);
	db_bind_int(st, 3, seen_since_ms);
	rc = db_step(st);
	if (rc == DB_ROW) {
		snprintf(out->state, sizeof(out->state), "%s",
		    db_column_text(st, 0));
		out->token_ok = db_column_int(st, 1) != 0;
		out->attempts = db_column_int(st, 2);
		out->max_attempts = db_column_int(st, 3);
		out->owner_alive = db_column_int(st, 4) != 0;
		out->queued = db_column_int(st, 5) != 0;
		out->owner = db_column_is_null(st, 6) ? 0 : db_column_int(st, 6);
	}
	db_reset(st);
	if (rc != DB_ROW)
		return rc == DB_DONE
			   ? err_set(err, ERR_NOT_FOUND, "no task #%lld", (long long)id)
			   : db_error(ledger, rc, err, "reading a task");
	return 0;
}

/*
 * Record deferred verdict v of a reported task and let go of the task,
 * marked changed now: this pass (which takes reports made before it
 * began) leaves it, the next tries again. Inside verify_record()'s
 * transaction; 0 or the error (the caller rolls back).
 */
static int
record_deferred(struct ledger *ledger, struct verdict *v, int64_t actor,
    int64_t now, struct err *err)
{
	int rc;

	if ((rc = insert_verdict(ledger, v, actor, err)) < 0 ||
	    (rc = update(ledger,
		 "UPDATE tasks SET verify_token = NULL,"
		 " verify_expires_ms = NULL, updated_ms = ?2 WHERE id = ?1",
		 v->task, now,
		 err)) < 0 ||
	    (rc = event_append(ledger, actor, "verify-deferred", v->task,
		 json_pack("{s:I, s:s, s:s?}", "verdict", (json_int_t)v->id,
		     "summary", v->summary, "commit", v->commit), err)) < 0)
		return rc;
	return 0;
}

/*
 * Two verifications of the same work for two tasks can pass at once
 * (sweep -j N): under the lock, the first to be recorded wins. When
 * v->commit (or its content) was already accepted for another task, v
 * fails with a "new-work" run saying so, and its summary is replaced.
 * Returns 0 or the ledger's error.
 */
static int
reject_if_accepted_elsewhere(struct ledger *ledger, struct verdict *v,
    struct err *err)
{
	struct check_run *run;
	struct buf summary = BUF_INIT;
	int64_t other = 0;
	int rc;

	if ((rc = accepted_elsewhere(ledger, v->task, v->commit, v->tree,
		 &other, err)) < 0)
		return rc;
	if (other == 0)
		return 0;
	run = add_run(v, "new-work");
	buf_addf(&run->output, "%.12s (or the same content) was already "
	    "accepted for #%lld while this report was being verified: work "
	    "counts for one task (commit this task's own work)", v->commit,
	    (long long)other);
	free(v->summary);
	v->summary = NULL;
	describe_failure(&summary, run);
	v->summary = buf_detach(&summary, NULL);
	v->passed = false;
	return 0;
}

/*
 * Accepted work on a commit must still reach the trunk (core/land.h): it
 * waits in the landing queue, and what comes after it waits for it to
 * land. Without a commit, or with landing off, the task's dependents are
 * released now. Returns 0 or the error.
 */
static int
mark_verified(struct ledger *ledger, const struct verdict *v, int64_t now,
    struct err *err)
{
	bool land = false;
	int rc;

	if (v->commit && (rc = settings_landing(ledger, &land, err)) < 0)
		return rc;
	rc = update(ledger, land
	    ? "UPDATE tasks SET state = 'verified', lease_expires_ms = NULL,"
	      " verify_token = NULL, verify_expires_ms = NULL,"
	      " land_queued_ms = ?2, land_base = NULL, land_waiting = NULL,"
	      " land_note = NULL, updated_ms = ?2 WHERE id = ?1"
	    : "UPDATE tasks SET state = 'verified', lease_expires_ms = NULL,"
	      " verify_token = NULL, verify_expires_ms = NULL,"
	      " land_note = NULL, updated_ms = ?2 WHERE id = ?1",
	    v->task, now, err);
	if (rc == 0 && !land)
		rc = task_release_dependents(ledger, v->task, err);
	return rc;
}

/*
 * Not the worker's to fix: a person sharpens the checks, or says what the
 * work may change. The task is blocked, v's summary the reason. Returns 0
 * or the error.
 */
static int
block_for_person(struct ledger *ledger, const struct verdict *v, int64_t now,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "UPDATE tasks SET state = 'blocked', lease_expires_ms = NULL,"
	    " verify_token = NULL, verify_expires_ms = NULL,"
	    " block_reason = ?3, updated_ms = ?2 WHERE id = ?1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, v->task);
	db_bind_int(st, 2, now);
	db_bind_text(st, 3, v->summary);
	return db_step_done(ledger, st, "blocking a task", err);
}

/*
 * A verified task whose work fails now is open again; its dependents wait
 * for it again if its work counted for them (it was not queued to land).
 * Returns 0 or the error.
 */
static int
reopen_verified(struct ledger *ledger, int64_t id, bool queued, int64_t now,
    struct err *err)
{
	int rc = 0;

	/* Only work that counted for its dependents (not queued) did. */
	if (!queued)
		rc = update(ledger,
		    "UPDATE tasks SET unmet_deps = unmet_deps + 1 WHERE id IN"
		    " (SELECT task FROM deps WHERE after = ?1)",
		    id, now, err);
	if (rc == 0)
		rc = update(ledger,
		    "UPDATE tasks SET state = 'open', owner = NULL,"
		    " lease_ms = NULL, lease_expires_ms = NULL,"
		    " land_queued_ms = NULL, land_base = NULL,"
		    " land_waiting = NULL, updated_ms = ?2 WHERE id = ?1",
		    id, now, err);
	return rc;
}

/*
 * Decide verdict v's outcome for the task as re-read (task), into
 * *outcome, and move the task there: a report (token) is verified,
 * blocked for a person, failed, given back to its live holder or
 * reopened; a verified task (no token) stays so or is reopened. The move
 * is checked against the lifecycle (TASK_MOVE_CHECK()) before it is
 * written. Inside verify_record()'s transaction; 0 or the error.
 */
static int
apply_outcome(struct ledger *ledger, const struct verdict *v,
    const char *token, const struct verdict_basis *task, int64_t now,
    enum verify_outcome *outcome, struct err *err)
{
	/* Where each outcome moves the task (NULL: it stays). */
	static const char *const state_after[VERIFY_UNSCOPED + 1] = {
		[VERIFY_VERIFIED] = "verified",
		[VERIFY_REJECTED_TO_OWNER] = "claimed",
		[VERIFY_REJECTED_TO_OPEN] = "open",
		[VERIFY_FAILED] = "failed",
		[VERIFY_REOPENED] = "open",
		[VERIFY_VACUOUS] = "blocked",
		[VERIFY_UNSCOPED] = "blocked",
	};

	if (token && v->passed)
		*outcome = VERIFY_VERIFIED;
	else if (token && (v->vacuous || v->unscoped))
		*outcome = v->vacuous ? VERIFY_VACUOUS : VERIFY_UNSCOPED;
	else if (token && task->attempts >= task->max_attempts)
		*outcome = VERIFY_FAILED;
	else if (token && task->owner_alive)
		*outcome = VERIFY_REJECTED_TO_OWNER;
	else if (token)
		*outcome = VERIFY_REJECTED_TO_OPEN;
	else if (v->passed)
		*outcome = VERIFY_STILL_GOOD;
	else
		*outcome = VERIFY_REOPENED;
	if (state_after[*outcome] != NULL)
		TASK_MOVE_CHECK(task->state, state_after[*outcome]);
	switch (*outcome) {
	case VERIFY_VERIFIED:
		return mark_verified(ledger, v, now, err);
	case VERIFY_VACUOUS:
	case VERIFY_UNSCOPED:
		return block_for_person(ledger, v, now, err);
	case VERIFY_FAILED:
		return update(ledger,
		    "UPDATE tasks SET state = 'failed', lease_expires_ms = NULL,"
		    " verify_token = NULL, verify_expires_ms = NULL, updated_ms = ?2"
		    " WHERE id = ?1", v->task, now, err);
	case VERIFY_REJECTED_TO_OWNER:
		return update(ledger,
		    "UPDATE tasks SET state = 'claimed', attempts = attempts + 1,"
		    " lease_ms = coalesce(lease_ms, " TASK_DEFAULT_LEASE_MS_SQL "),"
		    " lease_expires_ms = ?2 + coalesce(lease_ms, "
		    TASK_DEFAULT_LEASE_MS_SQL "), claim_named_ms = ?2,"
		    " verify_token = NULL, verify_expires_ms = NULL, updated_ms = ?2"
		    " WHERE id = ?1", v->task, now, err);
	case VERIFY_REJECTED_TO_OPEN:
		return update(ledger,
		    "UPDATE tasks SET state = 'open', owner = NULL, lease_ms = NULL,"
		    " lease_expires_ms = NULL, verify_token = NULL,"
		    " verify_expires_ms = NULL, updated_ms = ?2 WHERE id = ?1",
		    v->task, now, err);
	case VERIFY_REOPENED:
		return reopen_verified(ledger, v->task, task->queued, now, err);
	default:
		return 0; /* VERIFY_STILL_GOOD: it stays verified */
	}
}

/*
 * The events of verdict v's outcome: its kind ("verified", "rejected",
 * "reverified", "reopened") with where the task went back to, and "fail"
 * after it when the attempts are used up. Inside verify_record()'s
 * transaction; 0 or the error.
 */
static int
append_verdict_events(struct ledger *ledger, const struct verdict *v,
    int64_t actor, enum verify_outcome outcome, int64_t attempts,
    struct err *err)
{
	static const char *const kinds[] = {
		[VERIFY_VERIFIED] = "verified",
		[VERIFY_REJECTED_TO_OWNER] = "rejected",
		[VERIFY_REJECTED_TO_OPEN] = "rejected",
		[VERIFY_FAILED] = "rejected",
		[VERIFY_STILL_GOOD] = "reverified",
		[VERIFY_REOPENED] = "reopened",
		[VERIFY_VACUOUS] = "rejected",
		[VERIFY_UNSCOPED] = "rejected",
	};
	/* Sized by the last outcome, so every outcome indexes it. */
	static const char *const back_to[VERIFY_UNSCOPED + 1] = {
		[VERIFY_REJECTED_TO_OWNER] = "owner",
		[VERIFY_REJECTED_TO_OPEN] = "open",
		[VERIFY_FAILED] = "failed",
		[VERIFY_VACUOUS] = "blocked",
		[VERIFY_UNSCOPED] = "blocked",
	};
	/* Keys in order unless "to" or "fetched" follow (then sorted). */
	json_t *detail = json_pack("{s:s?, s:s, s:I}", "commit",
	    v->commit, "summary", v->summary, "verdict", (json_int_t)v->id);
	int rc;

	if (back_to[outcome])
		json_object_set_new(detail, "to", json_string(back_to[outcome]));
	if (v->fetched_from)
		json_object_set_new(detail, "fetched",
		    json_string(v->fetched_from));
	rc = event_append(ledger, actor, kinds[outcome], v->task, detail, err);
	if (rc == 0 && outcome == VERIFY_FAILED)
		rc = event_append(ledger, actor, "fail", v->task,
		    json_pack("{s:s, s:I}", "reason", "attempts exhausted",
			"attempts", (json_int_t)attempts), err);
	return rc;
}

int
verify_record(struct ledger *ledger, struct verdict *v, const char *token,
    int64_t actor, int64_t stale_after_ms, enum verify_outcome *outcome,
    struct err *err)
{
	struct verdict_basis task;
	int64_t now = clock_now_ms();
	int rc;

	*outcome = VERIFY_STALE;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		return rc;
	/* Re-read what the decision rests on, under the lock. */
	if ((rc = read_verdict_basis(ledger, v->task, token, now - stale_after_ms,
		 &task, err)) < 0)
		goto fail;
	if (token ? strcmp(task.state, "reported") != 0 || !task.token_ok
		  : strcmp(task.state, "verified") != 0) {
		ledger_rollback(ledger);
		return 0; /* decided elsewhere meanwhile: this verdict is moot */
	}
	if (v->deferred) {
		*outcome = VERIFY_DEFERRED;
		if (token == NULL) {
			ledger_rollback(ledger);
			return 0; /* a verified task stays so: nothing to record */
		}
		if ((rc = record_deferred(ledger, v, actor, now, err)) < 0)
			goto fail;
		return ledger_commit(ledger, err);
	}
	if (token && v->passed && v->commit &&
	    (rc = reject_if_accepted_elsewhere(ledger, v, err)) < 0)
		goto fail;
	if ((rc = insert_verdict(ledger, v, actor, err)) < 0 ||
	    (rc = baseline_keep(ledger, v, now, err)) < 0 ||
	    (rc = apply_outcome(ledger, v, token, &task, now, outcome, err)) < 0 ||
	    (rc = append_verdict_events(ledger, v, actor, *outcome,
		 task.attempts, err)) < 0)
		goto fail;
	if (token && task.owner_alive && task.owner != 0 && task.owner != actor &&
	    (rc = tell_holder(ledger, actor, task.owner, v, *outcome,
		 task.attempts, task.max_attempts, err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	*outcome = VERIFY_STALE;
	return rc;
}

/* Read the check runs of verdict out->id into out. Returns 0 or the error. */
static int
read_runs(struct ledger *ledger, struct verdict *out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT spec, passed, exit_status, duration_ms, output, base_passed"
	    " FROM check_runs WHERE verdict = ? ORDER BY seq", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, out->id);
	while ((rc = db_step(st)) == DB_ROW) {
		struct check_run *run = add_run(out, db_column_text(st, 0));

		run->passed = db_column_int(st, 1) != 0;
		run->exit_status = db_column_is_null(st, 2)
				       ? -1 : db_column_int(st, 2);
		run->duration_ms = db_column_int(st, 3);
		buf_add(&run->output, db_column_blob(st, 4),
		    db_column_bytes(st, 4));
		run->base_passed = db_column_is_null(st, 5)
				       ? -1 : db_column_int(st, 5) != 0;
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading checks");
}

/* Fill a verdict (runs not yet read) from a row of the verdicts query. */
static void
verdict_from_row(struct db_stmt *st, int64_t task, struct verdict *out)
{
	const char *commit = db_column_text(st, 3), *sandbox;

	memset(out, 0, sizeof(*out));
	out->task = task;
	out->id = db_column_int(st, 0);
	out->at_ms = db_column_int(st, 1);
	out->passed = db_column_int(st, 2) != 0;
	out->commit = commit ? xstrdup(commit) : NULL;
	out->summary = xstrdup(db_column_text(st, 4));
	out->checks_version = db_column_int(st, 5);
	sandbox = db_column_text(st, 6);
	out->sandbox = sandbox == NULL ? NULL
		     : strcmp(sandbox, "off") == 0 ? "off" : "sandbox";
	out->vacuous = db_column_int(st, 7) != 0;
}

int
verify_last(struct ledger *ledger, int64_t id, struct verdict *out,
    struct err *err)
{
	struct db_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
	    "SELECT id, at_ms, passed, commit_hash, summary, checks_version,"
	    " sandbox, vacuous"
	    " FROM verdicts WHERE task = ? ORDER BY id DESC LIMIT 1",
	    &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW)
		verdict_from_row(st, id, out);
	db_reset(st);
	if (rc == DB_DONE) {
		rc = 1;
		goto done;
	}
	if (rc != DB_ROW) {
		rc = db_error(ledger, rc, err, "reading verdicts");
		goto done;
	}
	rc = read_runs(ledger, out, err);
done:
	ledger_rollback(ledger);
	if (rc != 0)
		verdict_release(out);
	return rc;
}

int
verify_each(struct ledger *ledger, int64_t id, int64_t limit,
    int (*fn)(const struct verdict *verdict, void *arg), void *arg,
    struct err *err)
{
	struct verdict *verdicts = NULL;
	size_t count = 0, alloc = 0;
	struct db_stmt *st;
	int rc;

	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
	    "SELECT id, at_ms, passed, commit_hash, summary, checks_version,"
	    " sandbox, vacuous"
	    " FROM verdicts WHERE task = ?1 ORDER BY id DESC LIMIT ?2",
	    &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, limit > 0 ? limit : INT64_MAX);
	while ((rc = db_step(st)) == DB_ROW) {
		xgrow((void **)&verdicts, &alloc, count + 1, sizeof(*verdicts));
		verdict_from_row(st, id, &verdicts[count++]);
	}
	db_reset(st);
	if (rc != DB_DONE) {
		rc = db_error(ledger, rc, err, "reading verdicts");
		goto done;
	}
	rc = 0;
	for (size_t i = 0; i < count && rc == 0; i++)
		rc = read_runs(ledger, &verdicts[i], err);
	for (size_t i = 0; i < count && rc == 0; i++)
		rc = fn(&verdicts[i], arg);
done:
	ledger_rollback(ledger);
	for (size_t i = 0; i < count; i++)
		verdict_release(&verdicts[i]);
	free(verdicts);
	return rc;
}

int
verify_if_instant(struct ledger *ledger, int64_t id, int64_t actor,
    int64_t stale_after_ms, bool *done, enum verify_outcome *outcome,
    struct err *err)
{
	struct check_policy policy = CHECK_POLICY_INIT;
	struct verify_options where = { NULL, ".", NULL, NULL, &policy, NULL };
	struct buf token = BUF_INIT, root = BUF_INIT, remote = BUF_INIT;
	struct verdict verdict;
	int64_t heavy = 0, taken = 0;
	int rc;

	*done = false;
	if ((rc = db_count(ledger,
	    "SELECT count(*) FROM checks WHERE task = ?1 AND spec <> 'saved'",
	    id, &heavy, "reading checks", err)) < 0 || heavy > 0)
		return rc;
	verify_locations(ledger, NULL, &root);
	where.root = root.buf;
	if ((rc = settings_remote(ledger, &remote, err)) < 0)
		goto done;
	where.remote = remote.buf;
	verify_new_token(&token);
	where.token = token.buf;
	if ((rc = verify_take(ledger, id, 0, 0, token.buf, &taken, err)) != 0) {
		buf_release(&root);
		buf_release(&remote);
		buf_release(&token);
		return rc < 0 ? rc : 0; /* 1: not reported, or being verified */
	}
	if ((rc = verify_task(ledger, id, &where, &verdict, err)) == 0) {
		rc = verify_record(ledger, &verdict, token.buf, actor, stale_after_ms,
		    outcome, err);
		verdict_release(&verdict);
	}
	*done = rc == 0 && *outcome != VERIFY_DEFERRED;
done:
	buf_release(&root);
	buf_release(&remote);
	buf_release(&token);
	return rc;
}

int
verify_needs_commit(struct ledger *ledger, int64_t id, bool *needs,
    struct err *err)
{
	struct buf git_dir = BUF_INIT;
	int64_t count = 0;
	int rc;

	*needs = false;
	if (ledger_git_dir(ledger, &git_dir) != 0) {
		buf_release(&git_dir);
		return 0;
	}
	buf_release(&git_dir);
	rc = db_count(ledger,
	    "SELECT count(*) FROM checks WHERE task = ?1 AND (spec = 'commit'"
	    " OR spec LIKE 'file:%' OR spec LIKE 'cmd:%')", id, &count,
	    "reading checks", err);
	*needs = count > 0;
	return rc;
}

int
verify_commit_known(struct ledger *ledger, const char *commit, bool *known,
    struct buf *where)
{
	struct buf git_dir = BUF_INIT, spec = BUF_INIT, hash = BUF_INIT;

	*known = true;
	if (ledger_git_dir(ledger, &git_dir) == 0) {
		verify_locations(ledger, NULL, where);
		buf_addf(&spec, "%s^{commit}", commit);
		*known = git_rev_parse(where->buf, spec.buf, &hash) == 0;
	}
	buf_release(&git_dir);
	buf_release(&spec);
	buf_release(&hash);
	return 0;
}
