/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The runner (run/runner.h). One file because every transition of a
 * worker (launch, heartbeat, exit, report, requeue, rate-limit pause) reads
 * and writes one struct runner and its slots, in one loop; the logs,
 * rate-limit reading and spawning are run/ and util/ files of their own.
 * run_tasks() reads as its phases, runner_init() to runner_release(), and
 * run_loop() as the phases of a turn (issue 33).
 */
#include "run/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/agent.h"
#include "core/event.h"
#include "core/settings.h"
#include "core/sweep.h"
#include "core/task.h"
#include "core/usage.h"
#include "core/verify.h"
#include "run/ratelimit.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/git.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/spawn.h"
#include "util/strlist.h"

#define RATE_LIMIT_FIRST_PAUSE_MS 2000
#define RATE_LIMIT_MAX_PAUSE_MS 60000
#define RETRY_MAX_BACKOFF_MS (5 * 60 * 1000)
#define LOG_TAIL_BYTES 65536
/*
 * A log is always a new file: never one an earlier launch wrote (a
 * rate-limited launch spends no attempt, and its relaunch must not
 * overwrite its log), never through a symbolic link.
 */
#define LOG_OPEN_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)
/* How many launch numbers open_log() tries past the attempt count. */
#define LOG_NUMBER_TRIES 10000
/* The shortest time between two sweep passes started for new reports. */
#define SWEEP_GAP_MS 100
/* The longest the loop sleeps before it looks again (beats, deadlines). */
#define WAIT_MS 50

/* A worker process that is running. */
struct worker {
	pid_t pid;             /* 0: this slot is free */
	int64_t task;
	int64_t agent;         /* the claim's holder */
	int64_t attempt;
	int64_t started_ms;    /* monotonic */
	bool term_sent;
	char *log_path;
	int log_fd;            /* the log, open while the worker runs */
	bool log_named;        /* the log has its name (log_path) yet */
	bool log_reusable;     /* an unnamed file never named: may serve a
				  later launch if it stays empty (keep_log()) */
	bool reaped;           /* ended and waited for: its pid is no more */
	int64_t launch;        /* the log's number: this launch of the task */
	int64_t events_before; /* the newest event id when it was launched */
	char *worktree;        /* or NULL */
};

/*
 * Logs. A launch writes to an unnamed file (O_TMPFILE) in the logs
 * directory, which gets its name, <ledger dir>/logs/ID.N.log, when the
 * worker has printed something by the time it ends, or once it has run
 * LOG_NAME_AFTER_MS (so that 'daicho logs' can follow it). A launch that
 * printed nothing leaves no log: no name was made (creating a named file
 * for every job was most of what a short job cost the runner). Each launch
 * has a file of its own, never one an earlier worker had: a process that
 * escaped its worker's group may still write to that one. Where unnamed
 * files are not supported, each log is created by name and an empty one
 * removed at the end.
 *
 * Making an inode is most of what a short job costs the runner (on ext4
 * without a journal, the search for a free inode skips every one freed in
 * the last seconds: a cost that grows with the jobs run). So a worker's
 * file that stayed unnamed and empty serves a later launch, once the
 * kernel says no other process holds it open: each worker writes through
 * an open file of its own on the log (opened anew through /proc), and a
 * write lease is granted only on a file nobody else has open, so a process
 * that escaped the worker's group keeps its file from being reused.
 */
#define LOG_NAME_AFTER_MS 1000

struct runner {
	struct ledger *ledger;
	const struct run_options *opt;
	struct run_summary *sum;
	struct err *err;
	struct worker *workers;       /* opt->jobs slots */
	struct spawn *spawns;         /* each slot's spawn_start() state */
	int dev_null;                 /* the workers' stdin, or -1 */
	int launch_errno;             /* a worker that could not start */
	int64_t running;
	int64_t *agents;              /* one agent per slot */
	char **agent_names;
	struct buf agents_json;
	int64_t *touched;             /* every task launched, once */
	size_t touched_count, touched_alloc;
	struct buf touched_json;
	int64_t first_event, first_save;
	pid_t sweep_pid;
	bool sweep_pending;
	int64_t next_sweep_ms, next_beat_ms, next_progress_ms;
	int64_t sweep_started_ms; /* when the last sweep pass began */
	int64_t nothing_ready_ms; /* (ledger clock) when nothing was ready */
	int64_t pause_until_ms, pause_ms;
	int64_t pause_wall_until_ms;  /* (wall clock) the pause's end */
	bool paused, stopping, nothing_ready;
	int64_t finished;
	int64_t start_ms;
	regex_t rate_re;              /* --rate-limit-pattern, if given */
	bool has_rate_re;
	struct buf ledger_dir;
	struct buf root;              /* the project root (worktrees) */
	struct buf base;              /* HEAD when the run started */
	struct buf worktree_dir;      /* where task worktrees go (--worktree) */
	struct buf program;           /* CMD, found in $PATH at the start */
	sigset_t caught;              /* signals the runner has handlers for */
	int proc_fds;                 /* /proc/self/fd, or -1 */
	const char **env;             /* the workers' environment: worker_env() */
	size_t env_task_at;           /* env's DAICHO_TASK, then DAICHO_AGENT */
	struct buf env_ledger;        /* DAICHO_LEDGER=..., env's last entry */
	int *spare_logs;              /* empty unnamed logs nobody holds */
	int spare_log_count;          /* at most opt->jobs of them */
};

static int64_t
mono_now(void)
{
	return clock_mono_ms();
}

static const char *
name_of(const struct runner *r, int64_t agent)
{
	for (int i = 0; i < r->opt->jobs; i++)
		if (r->agents[i] == agent)
			return r->agent_names[i];
	return NULL;
}

/* Whether a slot holds task: running it, or about to launch it. */
static bool
is_running(const struct runner *r, int64_t task)
{
	for (int i = 0; i < r->opt->jobs; i++)
		if (r->workers[i].task == task)
			return true;
	return false;
}

static void
touch_task(struct runner *r, int64_t task)
{
	for (size_t i = 0; i < r->touched_count; i++)
		if (r->touched[i] == task)
			return;
	xgrow((void **)&r->touched, &r->touched_alloc, r->touched_count + 1,
	    sizeof(int64_t));
	r->touched[r->touched_count++] = task;
	/* "[1,2]" becomes "[1,2,3]": appended, not rewritten (O(n) a job). */
	r->touched_json.buf[--r->touched_json.len] = '\0';
	buf_addf(&r->touched_json, "%s%lld]", r->touched_count > 1 ? "," : "",
	    (long long)task);
}

/*
 * The worker's argv, appended to out: every "{id}" in an argument replaced
 * by the id.
 */
static void
worker_argv(char *const *argv, int64_t id, struct strlist *out)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", (long long)id);
	for (size_t i = 0; argv[i]; i++) {
		struct buf arg = BUF_INIT;
		const char *p = argv[i], *hit;

		while ((hit = strstr(p, "{id}")) != NULL) {
			buf_add(&arg, p, (size_t)(hit - p));
			buf_adds(&arg, text);
			p = hit + 4;
		}
		buf_adds(&arg, p);
		strlist_add_owned(out, buf_detach(&arg, NULL));
	}
}

/*
 * The trunk's commit now (the "trunk" setting's branch, else the one the
 * main work tree has out), into tip: what a new worktree starts from, so
 * that a task starts from the work that landed before it was claimed.
 * The run's base when it cannot be read.
 */
static void
trunk_now(struct runner *r, struct buf *tip)
{
	if (task_trunk_now(r->ledger, tip) != 0) {
		buf_reset(tip);
		buf_adds(tip, r->base.buf);
	}
}

/* Make (or reuse) the task's worktree on branch daicho/<id>. */
static int
prepare_worktree(struct runner *r, struct worker *w)
{
	struct buf path = BUF_INIT, branch = BUF_INIT, why = BUF_INIT,
		   tip = BUF_INIT;
	int rc = 0;

	buf_addf(&path, "%s/%lld", r->worktree_dir.buf, (long long)w->task);
	buf_addf(&branch, "daicho/%lld", (long long)w->task);
	if (access(path.buf, F_OK) != 0) {
		trunk_now(r, &tip);
		if (path_make_parent_dirs(path.buf, 0755) < 0 ||
		    git_worktree_add_branch(r->root.buf, path.buf, branch.buf,
			tip.buf, &why) < 0)
			rc = err_set(r->err, ERR_FAILED,
			    "cannot make a worktree for task #%lld (%s)",
			    (long long)w->task, why.len ? why.buf : strerror(errno));
	}
	if (rc == 0)
		w->worktree = buf_detach(&path, NULL);
	buf_release(&path);
	buf_release(&branch);
	buf_release(&why);
	buf_release(&tip);
	return rc;
}

/*
 * Open the log of w's launch: its name is <ledger dir>/logs/ID.N.log with
 * N the first number from the attempt count that no earlier launch used
 * (a launch given back without spending an attempt keeps its log, and
 * its relaunch gets the next number). Sets w->launch, w->log_path,
 * w->log_fd and w->log_named; the file is unnamed until name_log() when
 * the file system allows. Returns 0 or the error.
 */
static int
open_log(struct runner *r, struct worker *w)
{
	struct buf log = BUF_INIT, dir = BUF_INIT;
	struct stat st;
	int fd = -1;

	buf_addf(&dir, "%s/logs", r->ledger_dir.buf);
	for (int64_t n = w->attempt > 0 ? w->attempt : 1;
	     n < w->attempt + LOG_NUMBER_TRIES; n++) {
		buf_reset(&log);
		buf_addf(&log, "%s/%lld.%lld.log", dir.buf, (long long)w->task,
		    (long long)n);
		if (lstat(log.buf, &st) == 0) {
			if (S_ISLNK(st.st_mode)) {
				errno = ELOOP;
				break;
			}
			errno = EEXIST;
			continue;
		}
		if (errno != ENOENT)
			break;
		fd = r->spare_log_count > 0 ? r->spare_logs[--r->spare_log_count]
		    : open(dir.buf, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		/* One directory for all logs, made when first missing. */
		if (fd < 0 && errno == ENOENT &&
		    path_make_parent_dirs(log.buf, 0755) == 0)
			fd = open(dir.buf, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0) {
			w->log_named = false;
			w->log_reusable = true;
		} else {
			/* No unnamed files here: the log is made by name. */
			fd = open(log.buf, LOG_OPEN_FLAGS, 0644);
			if (fd < 0 && errno == ENOENT &&
			    path_make_parent_dirs(log.buf, 0755) == 0)
				fd = open(log.buf, LOG_OPEN_FLAGS, 0644);
			if (fd < 0 && errno == EEXIST)
				continue;
			w->log_named = true;
			w->log_reusable = false;
		}
		if (fd < 0)
			break;
		w->launch = n;
		w->log_fd = fd;
		w->log_path = buf_detach(&log, NULL);
		buf_release(&dir);
		return 0;
	}
	buf_release(&dir);
	fd = err_set(r->err, ERR_FAILED, "cannot write the log %s (%s)",
	    log.buf, errno == ELOOP ? "it is a symbolic link; remove it"
	    : errno == EEXIST ? "every log number is taken" : strerror(errno));
	buf_release(&log);
	return fd;
}

/*
 * Give w's unnamed log its name, w->log_path, or the next free number's
 * when that one was taken meanwhile (w->launch follows). Best effort: a
 * log that cannot be named stays unnamed (its output is lost, the run
 * goes on).
 */
static void
name_log(struct runner *r, struct worker *w)
{
	struct buf proc = BUF_INIT;

	if (w->log_named || w->log_fd < 0)
		return;
	buf_addf(&proc, "/proc/self/fd/%d", w->log_fd);
	for (int tries = 0; tries < LOG_NUMBER_TRIES; tries++) {
		if (linkat(w->log_fd, "", AT_FDCWD, w->log_path, AT_EMPTY_PATH) == 0 ||
		    (errno != EEXIST && linkat(AT_FDCWD, proc.buf, AT_FDCWD,
			w->log_path, AT_SYMLINK_FOLLOW) == 0)) {
			w->log_named = true;
			w->log_reusable = false;
			break;
		}
		if (errno != EEXIST)
			break;
		w->launch++;
		free(w->log_path);
		{
			struct buf log = BUF_INIT;

			buf_addf(&log, "%s/logs/%lld.%lld.log", r->ledger_dir.buf,
			    (long long)w->task, (long long)w->launch);
			w->log_path = buf_detach(&log, NULL);
		}
	}
	buf_release(&proc);
}

/* Whether the log of w's launch is empty: its worker printed nothing. */
static bool
log_is_empty(const struct worker *w)
{
	struct stat st;

	return w->log_fd >= 0 && fstat(w->log_fd, &st) == 0 && st.st_size == 0;
}

/*
 * Whether no process but the runner has w's log open: a write lease is
 * granted only then (each worker was given an open file of its own,
 * worker_log_fd()). Nobody can open an unnamed file afterwards.
 */
static bool
log_unshared(const struct worker *w)
{
	if (fcntl(w->log_fd, F_SETLEASE, F_WRLCK) != 0)
		return false;
	fcntl(w->log_fd, F_SETLEASE, F_UNLCK);
	return true;
}

/*
 * The worker of w ended (its log named if it printed anything:
 * exit_prepare()): an empty log loses its name, if it had one (a log
 * made by name), and w's log is closed, or kept for a later launch when
 * it is unnamed, empty and held by no one else (r may be NULL: closed).
 */
static void
close_log(struct runner *r, struct worker *w)
{
	if (w->log_fd < 0)
		return;
	if (w->log_named && log_is_empty(w) && unlink(w->log_path) == 0)
		w->log_named = false;
	/* Empty once nobody else can write to it: read in that order. */
	if (r && w->log_reusable && !w->log_named &&
	    r->spare_log_count < r->opt->jobs && log_unshared(w) &&
	    log_is_empty(w))
		r->spare_logs[r->spare_log_count++] = w->log_fd;
	else
		close(w->log_fd);
	w->log_fd = -1;
	w->log_reusable = false;
}

/*
 * The descriptor the worker of w writes its output to: an open file of
 * its own on an unnamed log (so that log_unshared() can tell when no
 * process holds it any more), else the runner's own. The caller closes it
 * after the launch when it differs from w->log_fd.
 */
static int
worker_log_fd(struct runner *r, struct worker *w)
{
	char name[24];
	int fd;

	if (!w->log_reusable)
		return w->log_fd;
	snprintf(name, sizeof(name), "%d", w->log_fd);
	if (r->proc_fds < 0 ||
	    (fd = openat(r->proc_fds, name, O_WRONLY | O_CLOEXEC)) < 0) {
		/* Shared with the worker: never reused. */
		w->log_reusable = false;
		return w->log_fd;
	}
	return fd;
}


static void drop_unused_worktree(struct runner *r, int64_t task,
    const char *path);

/* A launch that failed after its worktree was made: no worktree is left. */
static void
abandon_worktree(struct runner *r, struct worker *w)
{
	if (w->worktree) {
		drop_unused_worktree(r, w->task, w->worktree);
		free(w->worktree);
		w->worktree = NULL;
	}
}

/*
 * Start program with argv and env as the worker in slot: stdin /dev/null,
 * stdout and stderr to out_fd, in dir (NULL: here), in a process group of
 * its own, with an empty signal mask and every signal the runner handles
 * (r->caught, INT, TERM, PIPE and CHLD among them) at its default. The
 * runner does not wait for the exec (spawn_start()): a worker that could
 * not start is known when it is reaped (exit_prepare()). Returns 0 with
 * *pid set, or an errno.
 */
static int
spawn_worker(struct runner *r, int slot, pid_t *pid, const char *const *argv,
    const char *const *env, int out_fd, const char *dir)
{
	struct spawn_plan plan = {
		.program = r->program.buf,
		.argv = argv,
		.env = env,
		.stdin_fd = r->dev_null,
		.out_fd = out_fd,
		.dir = dir,
		.own_group = true,
		.to_default = &r->caught,
	};

	return spawn_start(&r->spawns[slot], &plan, pid);
}

/*
 * The environment of w's worker: the runner's, with DAICHO_TASK,
 * DAICHO_AGENT (task and agent, strings the caller owns until the launch)
 * and DAICHO_LEDGER. Made once per run (proc_environment() compares every
 * variable with each of ours); each launch only sets its two entries.
 * NULL when out of memory.
 */
static const char *const *
worker_env(struct runner *r, const char *task, const char *agent)
{
	if (r->env == NULL) {
		const char *extra[] = { "DAICHO_TASK=", "DAICHO_AGENT=", NULL,
			NULL };
		size_t n = 0;

		buf_addf(&r->env_ledger, "DAICHO_LEDGER=%s", ledger_path(r->ledger));
		extra[2] = r->env_ledger.buf;
		if ((r->env = proc_environment(extra)) == NULL)
			return NULL;
		while (r->env[n])
			n++;
		r->env_task_at = n - 3;
	}
	r->env[r->env_task_at] = task;
	r->env[r->env_task_at + 1] = agent;
	return r->env;
}

/* Start the worker process for w->task held by w->agent. */
static int
launch(struct runner *r, struct worker *w)
{
	struct buf env_task = BUF_INIT, env_agent = BUF_INIT;
	struct strlist argv = STRLIST_INIT;
	const char *const *env;
	int fd, rc;

	/* What happens to its task from now on is this launch's. */
	if ((rc = event_last_id(r->ledger, &w->events_before, r->err)) < 0)
		return rc;
	if (r->opt->worktree && (rc = prepare_worktree(r, w)) < 0)
		return rc;
	if ((rc = open_log(r, w)) < 0) {
		abandon_worktree(r, w);
		return rc;
	}
	fd = worker_log_fd(r, w);
	buf_addf(&env_task, "DAICHO_TASK=%lld", (long long)w->task);
	buf_addf(&env_agent, "DAICHO_AGENT=%s", name_of(r, w->agent));
	env = worker_env(r, env_task.buf, env_agent.buf);
	worker_argv(r->opt->argv, w->task, &argv);
	rc = env ? spawn_worker(r, (int)(w - r->workers), &w->pid,
	    strlist_argv(&argv), env, fd, w->worktree) : ENOMEM;
	if (fd != w->log_fd)
		close(fd);
	if (env)
		worker_env(r, "DAICHO_TASK=", "DAICHO_AGENT=");
	strlist_release(&argv);
	buf_release(&env_task);
	buf_release(&env_agent);
	if (rc != 0) {
		w->pid = 0;
		close_log(r, w);
		free(w->log_path);
		w->log_path = NULL;
		abandon_worktree(r, w);
		return err_set(r->err, ERR_FAILED, "cannot run %s (%s)",
		    r->opt->argv[0], strerror(rc));
	}
	w->started_ms = mono_now();
	w->term_sent = false;
	r->running++;
	r->sum->launched++;
	touch_task(r, w->task);
	if (r->opt->observer.started)
		r->opt->observer.started(r->opt->observer.arg, w->task, w->attempt,
		    name_of(r, w->agent));
	return 0;
}

struct returned {
	struct runner *r;
	int64_t task, owner;
};

static int
find_returned(int64_t task, int64_t owner, void *arg)
{
	struct returned *found = arg;

	if (is_running(found->r, task))
		return 0;
	found->task = task;
	found->owner = owner;
	return 1;
}

static int
check_budget(struct runner *r)
{
	int64_t tokens = 0;
	double cost = 0;
	int rc;

	/* Before every launch: saves land when workers exit, never between. */
	if ((r->opt->budget_tokens <= 0 && r->opt->budget_cost <= 0) ||
	    r->touched_count == 0)
		return 0;
	if ((rc = usage_since(r->ledger, r->first_save, r->touched_json.buf,
		 &tokens, &cost, r->err)) < 0)
		return rc;
	if ((r->opt->budget_tokens > 0 && tokens >= r->opt->budget_tokens) ||
	    (r->opt->budget_cost > 0 && cost >= r->opt->budget_cost)) {
		if (!r->sum->budget_spent) {
			struct err ignored = ERR_INIT;

			event_record(r->ledger, r->opt->actor, "budget-spent", 0,
			    json_pack("{s:I, s:f}", "tokens", (json_int_t)tokens,
				"cost", cost), &ignored);
			err_release(&ignored);
		}
		r->sum->budget_spent = true;
	}
	return 0;
}

/* Tasks held by our agents that no slot runs: returned_tasks(). */
struct returned_list {
	struct runner *r;
	struct returned *items; /* in id order, at most opt->jobs */
	int count;
};

static int
collect_returned(int64_t task, int64_t owner, void *arg)
{
	struct returned_list *list = arg;

	if (is_running(list->r, task))
		return 0;
	list->items[list->count].task = task;
	list->items[list->count].owner = owner;
	return ++list->count == list->r->opt->jobs;
}

/*
 * Inside the caller's transaction, choose a task for each free slot: first
 * tasks the sweep sent back to one of our agents, then the next ready
 * ones (claimed now). Chosen slots get their task, holder and attempt and
 * are listed in chosen (*count of them). Sets nothing_ready when no more
 * could be had. The returned tasks are read once for all the slots: every
 * one is handed out before any claim, so none can be claimed meanwhile.
 */
static int
choose_tasks(struct runner *r, struct worker **chosen, int *count)
{
	struct returned_list returned = { r, NULL, 0 };
	int next_returned = 0, rc = 0;

	returned.items = xcalloc((size_t)r->opt->jobs, sizeof(*returned.items));
	for (int i = 0; i < r->opt->jobs; i++) {
		if (r->workers[i].pid == 0 && r->workers[i].task == 0) {
			rc = task_each_claimed_by(r->ledger, r->agents_json.buf,
			    collect_returned, &returned, r->err);
			break;
		}
	}
	for (int i = 0; i < r->opt->jobs && rc >= 0; i++) {
		struct worker *w = &r->workers[i];
		struct task_state task;

		if (w->pid || w->task)
			continue;
		if ((rc = check_budget(r)) < 0)
			break;
		if (r->sum->budget_spent)
			break;
		if (next_returned < returned.count) {
			w->task = returned.items[next_returned].task;
			w->agent = returned.items[next_returned].owner;
			next_returned++;
		} else {
			int64_t claimed = 0;
			struct claim_terms terms = { r->opt->lease_ms,
				r->opt->max_hold_ms, NULL };
			/*
			 * The time before the claim looked: a backoff that ends
			 * after it was not ready then, whatever the claim took
			 * (under load, a backoff can end while it runs).
			 */
			int64_t asked_ms = clock_now_ms();

			rc = task_claim(r->ledger, r->agents[i], 0, r->opt->label,
			    &terms, &claimed, r->err);
			if (rc == -ERR_NOT_FOUND) {
				err_release(r->err);
				r->nothing_ready = true;
				r->nothing_ready_ms = asked_ms;
				rc = 0;
				break;
			}
			if (rc < 0)
				break;
			w->task = claimed;
			w->agent = r->agents[i];
		}
		chosen[(*count)++] = w;
		if ((rc = task_get_state(r->ledger, w->task, &task, r->err)) < 0)
			break;
		w->attempt = task.attempts;
	}
	free(returned.items);
	return rc < 0 ? rc : 0;
}

/*
 * Read what the end of the worker's log says about a rate limit into *rl
 * (run/ratelimit.h). exited_ok: the worker exited 0, when only a client's
 * closing result can say so; a log without the word "error" is not read.
 * A delay ("Please retry in 84s") counts from the log's last write, when
 * the client printed its last line, not from the worker's exit: a worker
 * that lingers after printing it does not stretch the pause.
 */
static void
read_rate_limit(struct runner *r, const struct worker *w, bool exited_ok,
    struct rate_limit *rl)
{
	struct buf tail = BUF_INIT;
	struct stat st;
	off_t size;
	int64_t printed_ms = clock_now_ms();
	/* The launch, on the wall clock: nothing was printed before it. */
	int64_t launched_ms = printed_ms - (mono_now() - w->started_ms);
	int fd = open(w->log_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	/*
	 * A file from the future (another clock, on a network file system)
	 * leaves it "now"; one from before the launch (a slow clock, coarse
	 * time stamps) counts from the launch.
	 */
	if (fstat(fd, &st) == 0) {
		int64_t written_ms = (int64_t)st.st_mtim.tv_sec * 1000 +
		    st.st_mtim.tv_nsec / 1000000;

		if (written_ms < printed_ms)
			printed_ms = written_ms > launched_ms ? written_ms
							      : launched_ms;
	}
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > LOG_TAIL_BYTES ? size - LOG_TAIL_BYTES : 0, SEEK_SET);
	if (buf_read_fd(&tail, fd) == 0 &&
	    (!exited_ok || memmem(tail.buf, tail.len, "error", 5) != NULL))
		rate_limit_scan(tail.buf, tail.len, size > LOG_TAIL_BYTES,
		    r->has_rate_re ? &r->rate_re : NULL, printed_ms, rl);
	close(fd);
	buf_release(&tail);
}

/*
 * The worktree's HEAD when it holds a commit of its own, one the trunk (or
 * the run's base) does not have; else NULL (caller frees).
 */
static char *
worktree_commit(struct runner *r, const char *worktree)
{
	struct buf head = BUF_INIT, tip = BUF_INIT, why = BUF_INIT;
	char *commit = NULL;

	if (git_rev_parse(worktree, "HEAD", &head) < 0 ||
	    strcmp(head.buf, r->base.buf) == 0)
		goto done;
	trunk_now(r, &tip);
	if (git_is_ancestor(r->root.buf, head.buf, tip.buf, &why) == 1)
		goto done;
	commit = buf_detach(&head, NULL);
done:
	buf_release(&head);
	buf_release(&tip);
	buf_release(&why);
	return commit;
}

/*
 * Pause launches after a rate limit: until the time the client said the
 * limit lifts (a subscription's usage limit: hours, maybe), else 2 s
 * doubling to 60 s. A pause is only ever made longer.
 */
static void
pause_launches(struct runner *r, int64_t task, const struct rate_limit *rl)
{
	int64_t now = clock_now_ms(), pause_ms, until;
	json_t *detail;

	r->pause_ms = r->pause_ms ? r->pause_ms * 2 : RATE_LIMIT_FIRST_PAUSE_MS;
	if (r->pause_ms > RATE_LIMIT_MAX_PAUSE_MS)
		r->pause_ms = RATE_LIMIT_MAX_PAUSE_MS;
	/* A reset sooner than the backoff's pause does not shorten it. */
	pause_ms = rl->resets_ms - now > r->pause_ms ? rl->resets_ms - now
						       : r->pause_ms;
	until = mono_now() + pause_ms;
	if (r->paused && until < r->pause_until_ms) {
		pause_ms = r->pause_until_ms - mono_now();
		until = r->pause_until_ms;
	}
	r->pause_until_ms = until;
	if (r->pause_wall_until_ms < now + pause_ms)
		r->pause_wall_until_ms = now + pause_ms;
	/* Every pause and every extension of one is on the record. */
	detail = json_pack("{s:s, s:I, s:I, s:b}", "reason",
	    rl->resets_ms - now > r->pause_ms ? "usage limit" : "rate limit",
	    "pause_ms", (json_int_t)pause_ms,
	    "until_ms", (json_int_t)(now + pause_ms), "extended", r->paused);
	if (rl->said.len)
		json_object_set_new(detail, "said", json_string(rl->said.buf));
	{
		struct err ignored = ERR_INIT;

		event_record(r->ledger, r->opt->actor, "pause", task, detail,
		    &ignored);
		err_release(&ignored);
	}
	r->paused = true;
}

/*
 * A task just reported: verified here at once when its checks need no
 * process (none, or only "saved"), else by the next sweep pass.
 */
static int
verify_now_or_later(struct runner *r, int64_t task)
{
	enum verify_outcome outcome;
	bool done;
	int rc = verify_if_instant(r->ledger, task, r->opt->actor,
	    r->opt->stale_after_ms, &done, &outcome, r->err);

	if (rc == 0 && !done)
		r->sweep_pending = true;
	return rc;
}

/* What the runner does about a worker that ended. */
enum exit_action {
	EXIT_NOTHING,     /* the task moved on */
	EXIT_VERIFY,      /* the worker reported it: verify it */
	EXIT_INTERRUPTED, /* stopped by our signal: give the claim back */
	EXIT_RATE_LIMIT,  /* give the claim back, no attempt spent; pause */
	EXIT_REPORT,      /* exit 0 without a report: report for it */
	EXIT_REQUEUE,     /* a failed attempt: retry after a backoff, or fail */
	EXIT_NOT_STARTED, /* it could not become CMD: give the claim back */
	EXIT_JUDGED,      /* its own report was rejected while it ran (the
			     rejection spent the attempt): launch it again */
};

/*
 * A worker that ended, from waitpid() to its outcome: reap() handles every
 * worker that ended since the last look in one transaction.
 */
struct exit_job {
	struct worker *w;         /* its slot, until exit_free_slot() */
	int64_t task;             /* set by exit_free_slot() */
	int status;               /* from waitpid() */
	int code;                 /* exit status, or -1 for a signal */
	int start_errno;          /* why it could not become CMD, or 0 */
	bool timed_out;
	int64_t duration;
	char *commit;             /* the worktree's commit to report, or NULL */
	struct rate_limit rl;
	bool rate_limited;
	bool failed;              /* requeued with no attempt left */
	const char *outcome;      /* for the exit event and the observer */
	char moved_on[32];        /* the state the task moved on to, if any */
	struct buf reason;
};

/*
 * What can be known about an ended worker without the ledger, outside
 * the transaction so that the write lock is not held for it: the commit
 * to report (it runs git) when the worker exited 0 in time, and whether
 * its log reads like a rate limit.
 */
static void
exit_prepare(struct runner *r, struct exit_job *job)
{
	struct worker *w = job->w;
	int status = job->status;

	job->duration = mono_now() - w->started_ms;
	job->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	job->start_errno = spawn_failure(&r->spawns[w - r->workers]);
	job->timed_out = w->term_sent;
	job->outcome = "nothing to do";
	buf_init(&job->reason);
	job->commit = w->worktree && job->code == 0 && !job->timed_out
	    ? worktree_commit(r, w->worktree) : NULL;
	/*
	 * A rate limit: exit 75, or a failure whose log says so, or a
	 * client's closing result that says so whatever the exit status (a
	 * worker script may exit 0 after its client failed).
	 */
	rate_limit_init(&job->rl);
	/* What it printed is kept under its name; nothing printed, no log. */
	if (!log_is_empty(w))
		name_log(r, w);
	if (!job->timed_out && job->code != 75 && job->code >= 0 &&
	    w->log_named && !log_is_empty(w))
		read_rate_limit(r, w, job->code == 0, &job->rl);
	job->rate_limited = !job->timed_out && (job->code == 75 ||
	    (job->code != 0 && job->rl.limited) || job->rl.final);
	r->running--;
	r->finished++;
}

/* "[ID]", the JSON array of one task id, into out (32 bytes). */
static const char *
task_ids_json(int64_t task, char *out)
{
	snprintf(out, 32, "[%lld]", (long long)task);
	return out;
}

/*
 * Inside the caller's transaction: decide what becomes of the ended
 * worker's task, record the exit (before acting, so the log reads exit,
 * then what followed, even when a sweep is quick), then act: a report, a
 * verdict, a requeue, a claim given back. Returns 0 or the error.
 */
static int
exit_apply(struct runner *r, struct exit_job *job)
{
	struct worker *w = job->w;
	enum exit_action action = EXIT_NOTHING;
	struct task_state task;
	char ids[32];
	int rc;

	if ((rc = task_get_state(r->ledger, w->task, &task, r->err)) < 0)
		return rc;
	if (strcmp(task.state, "claimed") == 0 && task.owner_id == w->agent) {
		int64_t rejected = 0;

		/*
		 * Rejected while it ran: the worker reported, and the sweep
		 * sent the task back to its holder. That verdict judged this
		 * launch; a report for it, or a failed attempt, would judge
		 * it twice.
		 */
		if (!job->start_errno && !job->rate_limited &&
		    (rc = event_count_among(r->ledger, "rejected",
		     w->events_before, task_ids_json(w->task, ids), &rejected,
		     r->err)) < 0)
			return rc;
		if (job->start_errno) {
			action = EXIT_NOT_STARTED;
			job->outcome = "could not start; left claimable";
		} else if (r->stopping && job->code != 0) {
			action = EXIT_INTERRUPTED;
			job->outcome = "interrupted; left claimable";
		} else if (job->rate_limited) {
			action = EXIT_RATE_LIMIT;
			job->outcome = "rate-limited; requeued, launches paused";
		} else if (rejected > 0) {
			action = EXIT_JUDGED;
			job->outcome = "its report was rejected while it ran; "
			    "launched again";
		} else if (job->code == 0 && !job->timed_out) {
			action = EXIT_REPORT;
			job->outcome = "reported for it";
		} else {
			action = EXIT_REQUEUE;
			job->outcome = "failed attempt";
		}
	} else if (strcmp(task.state, "reported") == 0) {
		action = EXIT_VERIFY;
		r->pause_ms = 0;
		job->outcome = "reported by the worker";
	} else {
		snprintf(job->moved_on, sizeof(job->moved_on), "%s", task.state);
		job->outcome = job->moved_on;
	}
	{
		/* A launch that printed nothing leaves no log: close_log(). */
		bool silent = !w->log_named || log_is_empty(w);
		/* Keys in order: event_append() need not sort them. */
		json_t *detail = json_pack("{s:I, s:I, s:o, s:I, s:o, s:s}",
		    "attempt", (json_int_t)w->attempt, "duration_ms",
		    (json_int_t)job->duration, "exit",
		    job->code >= 0 ? json_integer(job->code) : json_null(),
		    "launch", (json_int_t)w->launch, "log",
		    silent ? json_null() : json_string(w->log_path),
		    "outcome", job->outcome);

		if (job->timed_out)
			json_object_set_new(detail, "timed_out", json_true());
		/* settle()'s transaction holds it: no savepoint of its own. */
		if ((rc = event_append(r->ledger, r->opt->actor, "exit", w->task,
			 detail, r->err)) < 0)
			return rc;
	}
	switch (action) {
	case EXIT_NOTHING:
		break;
	case EXIT_VERIFY:
		rc = verify_now_or_later(r, w->task);
		break;
	case EXIT_INTERRUPTED:
		/* We passed it the signal: not the task's failure. */
		rc = task_release_claim(r->ledger, w->agent, w->task, r->err);
		break;
	case EXIT_JUDGED:
		/*
		 * The rejection counted its failure and left the claim with
		 * its holder: choose_tasks() launches it again as returned
		 * work.
		 */
		break;
	case EXIT_NOT_STARTED:
		/* Not the task's failure either; the run ends
		 * (end_after_failed_start()). */
		rc = task_release_claim(r->ledger, w->agent, w->task, r->err);
		if (rc == 0 && r->launch_errno == 0)
			r->launch_errno = job->start_errno;
		break;
	case EXIT_RATE_LIMIT:
		/* Not the task's fault: no attempt spent. */
		rc = task_release_claim(r->ledger, w->agent, w->task, r->err);
		if (rc == 0) {
			pause_launches(r, w->task, &job->rl);
			r->sum->rate_limited++;
		}
		break;
	case EXIT_REPORT:
		rc = task_report(r->ledger, w->agent, w->task, job->commit,
		    "reported by daicho run: the worker exited 0", r->err);
		if (rc == 0)
			rc = verify_now_or_later(r, w->task);
		r->pause_ms = 0;
		break;
	case EXIT_REQUEUE: {
		int64_t backoff = r->opt->retry_backoff_ms;

		if (job->timed_out)
			buf_adds(&job->reason, "timed out");
		else if (job->code >= 0)
			buf_addf(&job->reason, "exit %d", job->code);
		else
			buf_addf(&job->reason, "killed by signal %d",
			    WTERMSIG(job->status));
		for (int64_t k = 1; k < w->attempt && backoff < RETRY_MAX_BACKOFF_MS; k++)
			backoff *= 2;
		if (backoff > RETRY_MAX_BACKOFF_MS)
			backoff = RETRY_MAX_BACKOFF_MS;
		rc = task_requeue(r->ledger, w->agent, w->task, job->reason.buf,
		    backoff, r->opt->retries >= 0 ? r->opt->retries + 1 : 0,
		    &job->failed, r->err);
		if (rc == 0 && !job->failed)
			r->sum->retried++;
		job->outcome = job->failed ? "failed: attempts used up"
					   : "requeued for retry";
		break;
	}
	}
	return rc;
}

/*
 * Free the slot of an ended worker, once its exit is applied: its log is
 * kept, or removed when empty (close_log()); the job keeps the task's id.
 */
static void
exit_free_slot(struct runner *r, struct exit_job *job)
{
	struct worker *w = job->w;

	job->task = w->task;
	close_log(r, w);
	free(w->log_path);
	free(w->worktree);
	memset(w, 0, sizeof(*w));
	w->log_fd = -1;
}

/*
 * After the transaction: tell the observer (only when it committed: what
 * it is told is in the ledger), and release the job.
 */
static void
exit_release(struct runner *r, struct exit_job *job, bool committed)
{
	if (committed && r->opt->observer.ended)
		r->opt->observer.ended(r->opt->observer.arg, job->task, job->code,
		    job->duration, job->outcome);
	free(job->commit);
	buf_release(&job->reason);
	rate_limit_release(&job->rl);
}

/* A sweep pass in a child process, so slow checks never stall launching. */
static void
start_sweep(struct runner *r)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct sweep_options options = {
			.jobs = 1,
			.stale_after_ms = r->opt->stale_after_ms,
			.actor = r->opt->actor,
			.stop = r->opt->signal_received,
		};
		struct sweep_stats stats = { 0 };
		struct ledger *own = NULL;
		struct err err = ERR_INIT;
		int status = 0;

		ledger_leave_to_parent(r->ledger);
		if (ledger_open(ledger_path(r->ledger), &own, &err) < 0 ||
		    sweep_pass(own, &options, &stats, &err) < 0)
			status = 1;
		ledger_close(own);
		_exit(status);
	}
	if (pid > 0)
		r->sweep_pid = pid;
	r->sweep_pending = false;
	r->sweep_started_ms = mono_now();
	r->next_sweep_ms = r->sweep_started_ms + r->opt->sweep_every_ms;
}

static void
kill_overdue(struct runner *r)
{
	int64_t now = mono_now();

	if (r->opt->timeout_ms <= 0)
		return;
	for (int i = 0; i < r->opt->jobs; i++) {
		struct worker *w = &r->workers[i];

		if (!w->pid || w->reaped || now - w->started_ms < r->opt->timeout_ms)
			continue;
		if (!w->term_sent) {
			kill(-w->pid, SIGTERM);
			w->term_sent = true;
		} else if (now - w->started_ms >= r->opt->timeout_ms + r->opt->grace_ms) {
			kill(-w->pid, SIGKILL);
		}
	}
}

/*
 * Worker w ended (reaped) with status: add it to *jobs (an array of
 * opt->jobs, made here when NULL; *count of them).
 */
static void
take_exit(struct runner *r, struct worker *w, int status,
    struct exit_job **jobs, size_t *count)
{
	/* Anything the worker left in its group goes too. */
	kill(-w->pid, SIGKILL);
	if (*jobs == NULL)
		*jobs = xcalloc((size_t)r->opt->jobs, sizeof(**jobs));
	w->reaped = true;
	(*jobs)[*count].w = w;
	(*jobs)[*count].status = status;
	(*count)++;
}

/*
 * Collect every worker that ended since the last look into *jobs (*count
 * of them; an array of opt->jobs, or NULL when none ended) and learn what
 * can be learnt without the ledger (exit_prepare()).
 */
static void
collect_exits(struct runner *r, struct exit_job **jobs, size_t *count)
{
	pid_t pid;
	int status;

	*jobs = NULL;
	*count = 0;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == r->sweep_pid) {
			r->sweep_pid = 0;
			continue;
		}
		for (int i = 0; i < r->opt->jobs; i++) {
			if (r->workers[i].pid == pid) {
				take_exit(r, &r->workers[i], status, jobs, count);
				break;
			}
		}
	}
	for (size_t i = 0; i < *count; i++)
		exit_prepare(r, &(*jobs)[i]);
}

/*
 * One transaction for every worker that ended since the last look, each
 * exit with everything it leads to (the exit event, a report, a verdict,
 * a requeue), and, when claim is set, the tasks of the free slots
 * (choose_tasks(): chosen, *chosen_count): one commit for them all, and
 * the state decided on cannot change under us. Then the observer hears of
 * the exits (only when committed) and the chosen slots are launched.
 */
static int
settle(struct runner *r, struct exit_job *jobs, size_t count, bool claim)
{
	struct worker **chosen = NULL;
	int chosen_count = 0, rc = 0, free_slots = 0;

	if (claim) {
		r->nothing_ready = false;
		/* The slots of the workers that just ended are free too. */
		free_slots = (int)count;
		for (int i = 0; i < r->opt->jobs; i++)
			if (r->workers[i].pid == 0)
				free_slots++;
		claim = free_slots > 0;
	}
	if (count == 0 && !claim)
		return 0;
	if (claim)
		chosen = xcalloc((size_t)r->opt->jobs, sizeof(*chosen));
	/*
	 * Any failure below rolls the whole look back, so the core calls
	 * inside need no savepoints of their own. The one passed over,
	 * nothing to claim, follows no write: the walk offers only lapsed
	 * claims with attempts left, which it takes (and were that to
	 * change, the commit would fail rather than keep half a claim).
	 */
	rc = ledger_begin_all_or_nothing(r->ledger, r->err);
	for (size_t i = 0; i < count && rc == 0; i++)
		rc = exit_apply(r, &jobs[i]);
	/* The ended workers' slots are free once their exits are applied. */
	for (size_t i = 0; i < count; i++)
		exit_free_slot(r, &jobs[i]);
	/* An exit may have paused launches (a rate limit) or ended them. */
	if (rc == 0 && claim && !r->paused && !r->stopping && !r->launch_errno)
		rc = choose_tasks(r, chosen, &chosen_count);
	if (rc == 0)
		rc = ledger_commit(r->ledger, r->err);
	if (rc < 0) {
		ledger_rollback(r->ledger);
		for (int k = 0; k < chosen_count; k++)
			chosen[k]->task = chosen[k]->agent = 0;
		chosen_count = 0;
	}
	for (size_t i = 0; i < count; i++)
		exit_release(r, &jobs[i], rc == 0);
	for (int k = 0; k < chosen_count; k++) {
		struct worker *w = chosen[k];

		if (rc == 0 && (rc = launch(r, w)) == 0)
			continue;
		/* Give the claim back so the task is not stranded. */
		{
			struct err ignored = ERR_INIT;

			task_release_claim(r->ledger, w->agent, w->task, &ignored);
			err_release(&ignored);
		}
		w->task = w->agent = 0;
	}
	free(chosen);
	return rc;
}

/*
 * A worker could not become CMD (r->launch_errno): the run ends. Workers
 * launched with it may have failed the same way without being reaped
 * yet; each is waited for until it has exec'd or failed, and those that
 * failed are reaped and their claims given back, as a launch that failed
 * at once gave them back. Workers that run are left running (their
 * claims are recovered by the next run). Returns the run's error.
 */
static int
end_after_failed_start(struct runner *r)
{
	struct exit_job *jobs = NULL;
	size_t count = 0;
	int rc;

	for (int i = 0; i < r->opt->jobs; i++) {
		struct worker *w = &r->workers[i];
		int failure, status;

		if (w->pid == 0 || w->reaped ||
		    !spawn_started(&r->spawns[i], 5000, &failure) || failure == 0 ||
		    waitpid(w->pid, &status, 0) != w->pid)
			continue;
		take_exit(r, w, status, &jobs, &count);
	}
	for (size_t i = 0; i < count; i++)
		exit_prepare(r, &jobs[i]);
	rc = settle(r, jobs, count, false);
	free(jobs);
	if (rc < 0)
		return rc;
	return err_set(r->err, ERR_FAILED, "cannot run %s (%s)", r->opt->argv[0],
	    strerror(r->launch_errno));
}

/* Handle the workers that ended, with no new claims (when stopping). */
static int
reap(struct runner *r)
{
	struct exit_job *jobs;
	size_t count;
	int rc;

	collect_exits(r, &jobs, &count);
	rc = settle(r, jobs, count, false);
	free(jobs);
	return rc;
}

/* Name the logs of workers that have run a while: 'daicho logs' follows. */
static void
name_running_logs(struct runner *r)
{
	for (int i = 0; i < r->opt->jobs; i++) {
		struct worker *w = &r->workers[i];

		if (w->pid && !w->reaped && !w->log_named &&
		    mono_now() - w->started_ms >= LOG_NAME_AFTER_MS)
			name_log(r, w);
	}
}

static int
beat(struct runner *r)
{
	int64_t interval = r->opt->lease_ms / 4, *tasks;
	int rc;

	if (interval > 10000)
		interval = 10000;
	if (interval < 250)
		interval = 250;
	if (mono_now() < r->next_beat_ms)
		return 0;
	r->next_beat_ms = mono_now() + interval;
	/*
	 * A worker the runner sees alive is working on its task: the beat
	 * names that task, so the claim's maximum hold holds while it runs.
	 */
	tasks = xcalloc((size_t)r->opt->jobs + 1, sizeof(int64_t));
	for (int i = 0; i < r->opt->jobs; i++)
		if (r->workers[i].pid)
			tasks[i] = r->workers[i].task;
	rc = agent_beat(r->ledger, r->agents, tasks, (size_t)r->opt->jobs + 1,
	    r->err);
	free(tasks);
	return rc;
}

static int
progress(struct runner *r)
{
	static const char *const states[] = { "verified", "failed", "landed" };
	struct run_progress p = { 0 };
	int64_t counts[3] = { 0 }, open = 0;
	int rc;

	if (r->opt->observer.progress == NULL || mono_now() < r->next_progress_ms)
		return 0;
	r->next_progress_ms = mono_now() + 250;
	for (size_t i = 0; i < 3; i++)
		if ((rc = task_count_among(r->ledger, r->touched_json.buf, states[i],
			 &counts[i], r->err)) < 0)
			return rc;
	{
		const char *open_state = "open";

		if ((rc = task_count_by_state(r->ledger, &open_state, &open, 1,
			 r->err)) < 0)
			return rc;
	}
	p.running = r->running;
	p.verified = counts[0] + counts[2];
	p.failed = counts[1];
	p.queued = open;
	p.finished = r->finished;
	p.elapsed_ms = mono_now() - r->start_ms;
	p.paused = r->paused;
	p.paused_until_ms = r->paused ? r->pause_wall_until_ms : 0;
	p.budget_spent = r->sum->budget_spent;
	r->opt->observer.progress(r->opt->observer.arg, &p);
	return 0;
}

/* Whether anything this run touched may still need it. */
static int
work_in_flight(struct runner *r, bool *in_flight)
{
	struct returned found = { r, 0, 0 };
	int64_t count = 0;
	int rc;

	*in_flight = false;
	if ((rc = task_each_claimed_by(r->ledger, r->agents_json.buf, find_returned,
		 &found, r->err)) < 0)
		return rc;
	if (found.task) {
		*in_flight = true;
		return 0;
	}
	/*
	 * A backoff that ended after the last launch attempt makes its task
	 * ready for the next one, not finished; with the budget spent there
	 * is no next one.
	 */
	if ((rc = task_count_in_flight(r->ledger, r->touched_json.buf,
		 r->sum->budget_spent || r->nothing_ready_ms == 0 ? clock_now_ms()
		 : r->nothing_ready_ms, &count, r->err)) < 0)
		return rc;
	*in_flight = count > 0;
	return 0;
}

/*
 * Idle, with no worker running and nothing ready: on a shared
 * (PostgreSQL) ledger, sleep until another process commits a change, a
 * signal comes, or a second passes, instead of looking every 50 ms. Returns
 * 0, or a negative error.
 */
static int
wait_for_the_ledger(struct runner *r)
{
	int rc = ledger_wait_change(r->ledger, 1000, r->err);

	return rc < 0 ? rc : 0;
}

/* Sleep until a child changes state or WAIT_MS pass. */
static void
wait_a_moment(void)
{
	sigset_t children;
	struct timespec pause = { 0, WAIT_MS * 1000 * 1000 };

	sigemptyset(&children);
	sigaddset(&children, SIGCHLD);
	sigtimedwait(&children, NULL, &pause);
}

static int
register_agents(struct runner *r)
{
	int rc;

	buf_addch(&r->agents_json, '[');
	for (int i = 0; i < r->opt->jobs; i++) {
		struct buf name = BUF_INIT;

		buf_addf(&name, "run%ld-%d", (long)getpid(), i + 1);
		rc = agent_start(r->ledger, name.buf, "script", "run", getpid(),
		    &r->agents[i], r->err);
		r->agent_names[i] = buf_detach(&name, NULL);
		if (rc < 0)
			return rc;
		buf_addf(&r->agents_json, "%s%lld", i ? "," : "",
		    (long long)r->agents[i]);
	}
	buf_addch(&r->agents_json, ']');
	return 0;
}

/* Stop: pass the signal on, wait for the workers, free their claims. */
static void
stop_workers(struct runner *r, int sig)
{
	for (int i = 0; i < r->opt->jobs; i++)
		if (r->workers[i].pid && !r->workers[i].reaped)
			kill(-r->workers[i].pid, sig);
	if (r->sweep_pid)
		kill(r->sweep_pid, SIGTERM);
}

/* After a stop: our agents' claims go back, so others can take them. */
static void
release_held(struct runner *r)
{
	for (size_t i = 0; i < r->touched_count; i++) {
		struct task task;
		struct err ignored = ERR_INIT;

		if (task_get(r->ledger, r->touched[i], &task, &ignored) == 0) {
			if (strcmp(task.state, "claimed") == 0 && name_of(r, task.owner_id))
				task_release_claim(r->ledger, task.owner_id, task.id,
				    &ignored);
			task_free_fields(&task);
		}
		err_release(&ignored);
	}
}

/*
 * Remove task's worktree at path, with its branch, when it holds no work:
 * no commit past the run's base and no uncommitted change. Work is never
 * thrown away; a task that is run again gets a new worktree.
 */
static void
drop_unused_worktree(struct runner *r, int64_t task, const char *path)
{
	struct buf branch = BUF_INIT;
	char *commit;

	if (access(path, F_OK) != 0)
		return;
	commit = worktree_commit(r, path);
	if (commit == NULL && git_worktree_is_clean(path) == 1) {
		buf_addf(&branch, "daicho/%lld", (long long)task);
		git_worktree_remove(r->root.buf, path);
		git_branch_delete(r->root.buf, branch.buf);
	}
	free(commit);
	buf_release(&branch);
}

/*
 * At the end of a run, whatever became of each task: its worktree goes
 * unless it holds work (a failed or interrupted run leaves no empty
 * worktrees and branches behind; 'daicho sweep' removes the others once
 * their work is merged).
 */
static void
tidy_worktrees(struct runner *r)
{
	for (size_t i = 0; i < r->touched_count; i++) {
		struct buf path = BUF_INIT;

		buf_addf(&path, "%s/%lld", r->worktree_dir.buf,
		    (long long)r->touched[i]);
		drop_unused_worktree(r, r->touched[i], path.buf);
		buf_release(&path);
	}
}

/*
 * Where task worktrees go: --worktree-dir (relative to the project root),
 * else <root>/.daicho-worktrees. A directory inside the work tree is
 * excluded from git (info/exclude), so the main checkout never shows it.
 */
static int
set_worktree_dir(struct runner *r)
{
	const char *dir = r->opt->worktree_dir;
	struct buf entry = BUF_INIT, why = BUF_INIT;
	char *real_dir = NULL, *real_root = NULL;
	size_t len;
	int rc = 0;

	if (dir == NULL || *dir == '\0')
		buf_addf(&r->worktree_dir, "%s/.daicho-worktrees", r->root.buf);
	else if (dir[0] == '/')
		buf_adds(&r->worktree_dir, dir);
	else
		buf_addf(&r->worktree_dir, "%s/%s", r->root.buf, dir);
	/* Made now, so that "..", links and all resolve. */
	buf_adds(&entry, r->worktree_dir.buf);
	buf_adds(&entry, "/.");
	if (path_make_parent_dirs(entry.buf, 0755) < 0 ||
	    (real_dir = realpath(r->worktree_dir.buf, NULL)) == NULL ||
	    (real_root = realpath(r->root.buf, NULL)) == NULL) {
		rc = err_set(r->err, ERR_FAILED, "cannot make the worktree "
		    "directory %s (%s)", r->worktree_dir.buf, strerror(errno));
		goto done;
	}
	buf_reset(&r->worktree_dir);
	buf_adds(&r->worktree_dir, real_dir);
	len = strlen(real_root);
	if (strncmp(real_dir, real_root, len) == 0 && real_dir[len] == '/') {
		buf_reset(&entry);
		buf_addf(&entry, "%s/", real_dir + len);
		if (git_exclude(r->root.buf, entry.buf, &why) < 0)
			rc = err_set(r->err, ERR_FAILED, "cannot keep %s out of git "
			    "(%s)", r->worktree_dir.buf, why.buf);
	}
done:
	free(real_dir);
	free(real_root);
	buf_release(&entry);
	buf_release(&why);
	return rc;
}

static int
summarise(struct runner *r)
{
	struct run_summary *s = r->sum;
	int64_t claimed = 0, open = 0;
	int rc;

	s->tasks = (int64_t)r->touched_count;
	if ((rc = task_count_among(r->ledger, r->touched_json.buf, "verified",
		 &s->verified, r->err)) < 0 ||
	    (rc = task_count_among(r->ledger, r->touched_json.buf, "landed",
		 &s->landed, r->err)) < 0 ||
	    (rc = task_count_among(r->ledger, r->touched_json.buf, "queued",
		 &s->waiting_to_land, r->err)) < 0 ||
	    (rc = task_count_among(r->ledger, r->touched_json.buf, "failed",
		 &s->failed, r->err)) < 0 ||
	    (rc = task_count_among(r->ledger, r->touched_json.buf, "open", &open,
		 r->err)) < 0 ||
	    (rc = task_count_among(r->ledger, r->touched_json.buf, "claimed",
		 &claimed, r->err)) < 0 ||
	    (rc = task_count_among(r->ledger, r->touched_json.buf, "reported",
		 &s->awaiting, r->err)) < 0 ||
	    (rc = event_count_among(r->ledger, "rejected", r->first_event,
		 r->touched_json.buf, &s->false_reports, r->err)) < 0 ||
	    (rc = usage_since(r->ledger, r->first_save, r->touched_json.buf,
		 &s->tokens, &s->cost, r->err)) < 0)
		return rc;
	s->claimable = open + claimed;
	s->verified += s->landed;
	s->elapsed_ms = mono_now() - r->start_ms;
	return 0;
}

/*
 * Start r for a run of options on ledger, into summary and err: the
 * fields every later phase reads, --rate-limit-pattern compiled and CMD
 * found in $PATH once (not by every launch). Returns 0, or ERR_USAGE for a
 * bad pattern or ERR_FAILED for a CMD that cannot run; on an error r holds
 * nothing, and runner_release() is not for it.
 */
static int
runner_init(struct runner *r, struct ledger *ledger,
    const struct run_options *options, struct run_summary *summary,
    struct err *err)
{
	int rc;

	r->dev_null = -1;
	/*
	 * The heap is shared with each child between spawn_start()'s clone and
	 * its exec: giving memory back to the kernel then (brk shrinking,
	 * munmap of big blocks) costs a TLB shootdown on every CPU. A runner
	 * allocates the same small amounts over and over: keep them.
	 */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	r->ledger = ledger;
	r->opt = options;
	r->sum = summary;
	r->err = err;
	r->start_ms = mono_now();
	buf_init(&r->agents_json);
	buf_init(&r->touched_json);
	buf_init(&r->ledger_dir);
	buf_init(&r->root);
	buf_init(&r->base);
	buf_init(&r->worktree_dir);
	buf_init(&r->env_ledger);
	if (options->rate_limit_pattern) {
		if (regcomp(&r->rate_re, options->rate_limit_pattern,
			REG_EXTENDED | REG_ICASE | REG_NOSUB | REG_NEWLINE) != 0)
			return err_set(err, ERR_USAGE, "bad --rate-limit-pattern "
			    "'%s' (an extended regular expression)",
			    options->rate_limit_pattern);
		r->has_rate_re = true;
	}
	/* $PATH is searched once, not by every launch. */
	buf_init(&r->program);
	if ((rc = proc_runnable(options->argv[0], &r->program)) != 0) {
		buf_release(&r->program);
		if (r->has_rate_re)
			regfree(&r->rate_re);
		return err_set(err, ERR_FAILED, "cannot run %s (%s)",
		    options->argv[0], strerror(rc));
	}
	return 0;
}

/*
 * Give r its slots: a worker, a spawn, a spare log place and an agent for
 * each of opt->jobs (the caller's agent after them), and /proc/self/fd.
 * Cannot fail (allocation failure aborts; without /proc, proc_fds is -1).
 * r owns them all; runner_release() frees them.
 */
static void
runner_alloc_slots(struct runner *r)
{
	int jobs = r->opt->jobs;

	buf_adds(&r->touched_json, "[]");
	r->workers = xcalloc((size_t)jobs, sizeof(*r->workers));
	r->spawns = xcalloc((size_t)jobs, sizeof(*r->spawns));
	r->spare_logs = xcalloc((size_t)jobs, sizeof(*r->spare_logs));
	/* Each launch opens its log again through here (worker_log_fd()). */
	r->proc_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < jobs; i++)
		r->workers[i].log_fd = -1;
	/* The workers' agents, and the caller's last: beat() renews them all. */
	r->agents = xcalloc((size_t)jobs + 1, sizeof(*r->agents));
	r->agents[jobs] = r->opt->actor;
	r->agent_names = xcalloc((size_t)jobs, sizeof(char *));
}

/*
 * Open the workers' stdin (/dev/null) and find where the run works: the
 * project root, the ledger's directory and, with --worktree, the commit
 * the run starts from and the directory task worktrees go in. Returns 0
 * or the error (ERR_FAILED); what was opened stays in r, for
 * runner_release().
 */
static int
prepare_places(struct runner *r)
{
	int rc;

	if ((r->dev_null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(r->err, ERR_FAILED, "cannot open /dev/null (%s)",
		    strerror(errno));
	verify_locations(r->ledger, NULL, &r->root);
	ledger_local_dir(r->ledger, &r->ledger_dir);
	if (r->opt->worktree && git_rev_parse(r->root.buf, "HEAD", &r->base) < 0)
		return err_set(r->err, ERR_FAILED,
		    "--worktree needs a git repository with a commit at %s",
		    r->root.buf);
	if (r->opt->worktree && (rc = set_worktree_dir(r)) < 0)
		return rc;
	return 0;
}

/*
 * Into r->caught: the signals the runner handles, and those a worker must
 * get at their defaults whatever the runner does with them (as
 * proc_spawnattr_defaults() asks): spawn_worker() resets them all.
 */
static void
note_caught_signals(struct runner *r)
{
	sigemptyset(&r->caught);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;

		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &now) != 0)
			continue;
		/* Ignored ones stay ignored, as posix_spawn() leaves them. */
		if ((now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN) ||
		    sig == SIGINT || sig == SIGTERM ||
		    sig == SIGPIPE || sig == SIGCHLD)
			sigaddset(&r->caught, sig);
	}
}

/*
 * Start the run in the ledger: recover the claims of dead agents (into
 * sum->recovered), register the workers' agents, mark where this run's
 * events and usage begin, and tell the observer. Returns 0, or the error
 * of the first step that failed (the steps before it stay done).
 */
static int
start_run(struct runner *r)
{
	int rc;

	/*
	 * The caller's heartbeat rides in every write transaction by default
	 * (three statements each); a runner writes several per job and beats
	 * its caller with its workers instead (beat()).
	 */
	ledger_set_begin_hook(r->ledger, NULL, NULL);
	if ((rc = agent_reap_dead(r->ledger, r->opt->actor, &r->sum->recovered,
		 r->err)) < 0 ||
	    (rc = register_agents(r)) < 0 ||
	    (rc = event_last_id(r->ledger, &r->first_event, r->err)) < 0 ||
	    (rc = usage_mark(r->ledger, &r->first_save, r->err)) < 0)
		return rc;
	if (r->opt->observer.starting &&
	    (rc = r->opt->observer.starting(r->opt->observer.arg, r->err)) < 0)
		return rc;
	return 0;
}

/*
 * On the first look after a stop signal came: the run is stopping, and
 * the workers get the signal.
 */
static void
notice_stop_signal(struct runner *r)
{
	if (!r->stopping && r->opt->signal_received &&
	    *r->opt->signal_received) {
		r->stopping = true;
		r->sum->signal = *r->opt->signal_received;
		stop_workers(r, r->sum->signal);
	}
}

/*
 * One turn's exits: collect the workers that ended, kill the overdue,
 * name the logs of those that run on, beat, check the budget, end a
 * rate-limit pause that is over, then settle() the exits, with new claims
 * unless stopping, paused or out of budget. Returns 0, or the error that
 * ends the run: when the beat or the budget check fails, the exits are
 * not applied (the next run recovers them); when a worker could not
 * start, end_after_failed_start()'s.
 */
static int
settle_turn(struct runner *r)
{
	struct exit_job *jobs;
	size_t count;
	int rc;

	collect_exits(r, &jobs, &count);
	kill_overdue(r);
	name_running_logs(r);
	if ((rc = beat(r)) < 0 || (rc = check_budget(r)) < 0) {
		/* Not applied: the next run recovers them. */
		for (size_t i = 0; i < count; i++) {
			exit_free_slot(r, &jobs[i]);
			exit_release(r, &jobs[i], false);
		}
		free(jobs);
		return rc;
	}
	if (r->paused && mono_now() >= r->pause_until_ms) {
		struct err ignored = ERR_INIT;

		r->paused = false;
		event_record(r->ledger, r->opt->actor, "resume", 0, NULL, &ignored);
		err_release(&ignored);
	}
	rc = settle(r, jobs, count, !r->stopping && !r->paused &&
	    !r->sum->budget_spent);
	free(jobs);
	if (rc == 0 && r->launch_errno)
		rc = end_after_failed_start(r);
	return rc;
}

/*
 * Reports are verified in batches: a pass at most every SWEEP_GAP_MS,
 * not one per finished job (a pass is a process and several
 * transactions; short jobs would pay one each). Starts one when it is
 * due and none is running.
 */
static void
sweep_when_due(struct runner *r)
{
	if (!r->stopping && r->sweep_pid == 0 &&
	    ((r->sweep_pending &&
		 mono_now() >= r->sweep_started_ms + SWEEP_GAP_MS) ||
		(r->touched_count > 0 && mono_now() >= r->next_sweep_ms)))
		start_sweep(r);
}

/*
 * The end of a turn. With no worker and no sweep running, the run is
 * over (*finished) when stopping, or when nothing is ready (or the budget
 * is spent) and nothing it touched is in flight, no sweep is pending and
 * there is no --follow; idle on a shared ledger, it waits for the ledger
 * to change. Otherwise it waits a moment. Returns 0 or the error.
 */
static int
wait_or_finish(struct runner *r, bool *finished)
{
	bool in_flight;
	int rc;

	*finished = false;
	if (r->running == 0 && r->sweep_pid == 0) {
		if (r->stopping) {
			*finished = true;
			return 0;
		}
		if ((r->nothing_ready || r->sum->budget_spent) && !r->paused) {
			if ((rc = work_in_flight(r, &in_flight)) < 0)
				return rc;
			if (!in_flight && !r->sweep_pending && !r->opt->follow) {
				*finished = true;
				return 0;
			}
			if (!in_flight && !r->sweep_pending &&
			    ledger_is_shared(r->ledger))
				return wait_for_the_ledger(r);
		}
	}
	wait_a_moment();
	return 0;
}

/*
 * The run's loop, a turn at a time: notice a stop signal, settle the
 * workers that ended and launch new ones (settle_turn()), start a sweep
 * when due, report progress, then wait or finish (wait_or_finish()).
 * Returns 0 when the run is over, or the error that ended it.
 */
static int
run_loop(struct runner *r)
{
	bool finished;
	int rc;

	for (;;) {
		notice_stop_signal(r);
		if ((rc = settle_turn(r)) < 0)
			return rc;
		sweep_when_due(r);
		if ((rc = progress(r)) < 0)
			return rc;
		if ((rc = wait_or_finish(r, &finished)) < 0 || finished)
			return rc;
	}
}

/*
 * After a stop: wait for the workers the signal was passed to (and the
 * sweep); after the grace period, kill what is left. Then our agents'
 * claims go back (release_held()). An error while reaping ends the wait.
 */
static void
wait_for_stopped_workers(struct runner *r)
{
	int64_t kill_at = mono_now() + r->opt->grace_ms;

	while (r->running > 0 || r->sweep_pid) {
		if (mono_now() >= kill_at) {
			stop_workers(r, SIGKILL);
			if (r->sweep_pid)
				kill(r->sweep_pid, SIGKILL);
		}
		if (reap(r) < 0)
			break;
		wait_a_moment();
	}
	release_held(r);
}

/*
 * End the workers' agents that hold nothing. One that still holds a claim
 * (the run ended on an error with its worker running, or with its exit
 * not applied) stays live: the next run finds its process gone, stops the
 * worker and reopens the task. Errors are ignored.
 */
static void
end_idle_agents(struct runner *r)
{
	for (int i = 0; i < r->opt->jobs; i++) {
		struct err ignored = ERR_INIT;
		bool ended;

		if (r->agents[i])
			agent_end_if_idle(r->ledger, r->agents[i], &ended, &ignored);
		err_release(&ignored);
	}
}

/*
 * Free what r holds, after runner_init() succeeded: its slots, the
 * workers' logs and worktree names, its files and buffers. Workers are
 * not waited for.
 */
static void
runner_release(struct runner *r)
{
	int jobs = r->opt->jobs;

	if (r->has_rate_re)
		regfree(&r->rate_re);
	for (int i = 0; i < jobs; i++)
		free(r->agent_names[i]);
	free(r->agent_names);
	free(r->agents);
	/* Workers left when the run ended on an error: their logs too. */
	for (int i = 0; r->workers && i < jobs; i++) {
		close_log(NULL, &r->workers[i]);
		free(r->workers[i].log_path);
		free(r->workers[i].worktree);
	}
	/*
	 * A worker not reaped may not have exec'd yet: it still reads its
	 * spawn's stack and copies, which are left to it (the memory is the
	 * child's too until then).
	 */
	for (int i = 0; r->spawns && i < jobs; i++) {
		if (r->workers[i].pid == 0 || r->workers[i].reaped)
			spawn_release(&r->spawns[i]);
		else
			spawn_abandon(&r->spawns[i]);
	}
	free(r->spawns);
	free(r->workers);
	if (r->dev_null >= 0)
		close(r->dev_null);
	while (r->spare_log_count > 0)
		close(r->spare_logs[--r->spare_log_count]);
	if (r->proc_fds >= 0)
		close(r->proc_fds);
	free(r->env);
	buf_release(&r->env_ledger);
	free(r->spare_logs);
	free(r->touched);
	buf_release(&r->agents_json);
	buf_release(&r->touched_json);
	buf_release(&r->ledger_dir);
	buf_release(&r->root);
	buf_release(&r->base);
	buf_release(&r->worktree_dir);
	buf_release(&r->program);
}

int
run_tasks(struct ledger *ledger, const struct run_options *options,
    struct run_summary *summary, struct err *err)
{
	struct runner r = { 0 };
	sigset_t children, previous;
	int rc;

	memset(summary, 0, sizeof(*summary));
	if ((rc = runner_init(&r, ledger, options, summary, err)) < 0)
		return rc;
	runner_alloc_slots(&r);
	if ((rc = prepare_places(&r)) < 0)
		goto done;
	note_caught_signals(&r);
	/* Children are reaped in the loop; block SIGCHLD to wait on it. */
	sigemptyset(&children);
	sigaddset(&children, SIGCHLD);
	sigprocmask(SIG_BLOCK, &children, &previous);
	if ((rc = start_run(&r)) < 0)
		goto unblock;
	rc = run_loop(&r);
	if (r.stopping)
		wait_for_stopped_workers(&r);
	if (options->worktree)
		tidy_worktrees(&r);
	end_idle_agents(&r);
	if (rc == 0)
		rc = summarise(&r);
unblock:
	sigprocmask(SIG_SETMASK, &previous, NULL);
done:
	runner_release(&r);
	return rc;
}
