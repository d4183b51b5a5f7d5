/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Landing in lanes: a slow change does not hold up quick ones.
 *
 * A batch is one merged tree, checked once: cheap, but every task in it
 * waits for the slowest task's checks. When a lander may check several
 * trees at once (l->options->jobs above 1) and some task of the batch has
 * checks that took LANE_SLOW_MS or more when it was verified, the batch is
 * split into lanes:
 *
 *  1. The conflict analyzer splits the batch into parts that do not touch
 *     one another: two tasks are in one part when a path one's commit
 *     changes (since it forked from the trunk) is one the other changes,
 *     or matches the other's --touches, or when their --touches overlap.
 *     Parts may land in any order; the tasks of a part stay in queue order.
 *  2. The parts are sorted by the time their checks took at verification,
 *     quickest first (the quick ones, under LANE_SLOW_MS, in queue order). A part starts a lane of its own (up to jobs lanes)
 *     when its checks took LANE_SLOW_MS or more, and more than LANE_RATIO
 *     times those of the lane it would join.
 *  3. Lane k's candidate is built on lane k-1's (the first on the trunk):
 *     the tree the trunk will have when every lane before it has landed.
 *     Each lane's tree is checked at once, in a process and a warm
 *     checkout of its own, running only that lane's tasks' checks and the
 *     land-check; the results go to the lander's results, kept by tree.
 *  4. In lane order, as soon as a lane's process is done, land_group()
 *     lands it: it merges onto the trunk as it is, which is the tree that
 *     was checked when every lane before it landed, finds the results
 *     kept, and moves the trunk. A lane that does not land as built (it
 *     failed, was bisected, or the trunk moved) leaves the lanes after it
 *     checked on a tree that will not be: they are stopped and the rest is
 *     landed again, in lanes once more.
 *
 * So every trunk commit is still checked on exactly its tree; what lanes
 * add is checking ahead, in parallel, on the tree the trunk is expected to
 * have. A batch whose checks are all quick stays one tree: one land-check
 * for all of it is less work than one a lane.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/db.h"
#include "core/land_internal.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/gitmerge.h"

/* A part's checks must have taken this long to start a lane of its own, */
#define LANE_SLOW_MS 1000
/* and more than this many times those of the lane it would join. */
#define LANE_RATIO 2
/* How often a lander waiting for its lanes renews the land lock. */
#define LANE_RENEW_MS 2000

/* What the analyzer knows of one member. */
struct trait {
	int64_t cost_ms;        /* its checks' time at its last verdict */
	struct strlist paths;   /* what its commit changes, sorted */
	struct strlist touches; /* its --touches globs */
	size_t part;            /* union-find parent */
};

/* One lane: its members, its speculative candidate, its process. */
struct lane {
	struct member **members;
	size_t count;
	int64_t cost_ms;
	struct candidate c;     /* built on the lane before's candidate */
	struct buf base_tree;   /* the trunk's tree it was built on */
	struct buf dir;         /* its warm checkout */
	struct buf output;      /* what its process wrote: JSON */
	pid_t pid;              /* 0: no process (nothing to check) */
	int fd;                 /* the read end of its process's pipe */
};

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Each member's cost, and its --touches, into traits. Returns 0, or the
 * ledger's error.
 */
static int
read_traits(struct lander *l, struct member **group, size_t count,
    struct trait *traits, struct err *err)
{
	int rc;

	if ((rc = ledger_begin_read(l->ledger, err)) < 0)
		return rc;
	for (size_t i = 0; i < count && rc == 0; i++) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(l->ledger,
		    "SELECT coalesce(sum(duration_ms), 0) FROM check_runs"
		    " WHERE verdict = (SELECT max(id) FROM verdicts WHERE task = ?1)",
		    &st, err)) < 0)
			break;
		db_bind_int(st, 1, group[i]->id);
		if ((rc = db_step(st)) == DB_ROW)
			traits[i].cost_ms = db_column_int(st, 0);
		db_reset(st);
		if (rc != DB_ROW) {
			rc = db_error(l->ledger, rc, err, "reading a verdict's time");
			break;
		}
		if ((rc = db_prepare(l->ledger,
		    "SELECT glob FROM touches WHERE task = ?1 ORDER BY glob",
		    &st, err)) < 0)
			break;
		db_bind_int(st, 1, group[i]->id);
		while ((rc = db_step(st)) == DB_ROW)
			strlist_add(&traits[i].touches, db_column_text(st, 0));
		db_reset(st);
		rc = rc == DB_DONE ? 0 : db_error(l->ledger, rc, err,
		    "reading a task's touches");
	}
	ledger_rollback(l->ledger);
	return rc;
}

/* Whether one of globs matches one of paths. */
static bool
globs_cover(const struct strlist *globs, const struct strlist *paths)
{
	for (size_t g = 0; g < globs->count; g++)
		for (size_t p = 0; p < paths->count; p++)
			if (glob_covers(globs->items[g], paths->items[p]))
				return true;
	return false;
}

/* Whether members a and b touch one another (see the top of the file). */
static bool
touch_each_other(const struct trait *a, const struct trait *b)
{
	size_t i = 0, k = 0;

	/* The same path changed by both: a walk of two sorted lists. */
	while (i < a->paths.count && k < b->paths.count) {
		int order = strcmp(a->paths.items[i], b->paths.items[k]);

		if (order == 0)
			return true;
		if (order < 0)
			i++;
		else
			k++;
	}
	if (globs_cover(&a->touches, &b->paths) ||
	    globs_cover(&b->touches, &a->paths))
		return true;
	for (i = 0; i < a->touches.count; i++)
		for (k = 0; k < b->touches.count; k++)
			if (glob_overlap(a->touches.items[i], b->touches.items[k]))
				return true;
	return false;
}

static size_t
part_of(struct trait *traits, size_t i)
{
	while (traits[i].part != i)
		i = traits[i].part = traits[traits[i].part].part;
	return i;
}

/* A part: its members' indexes (queue order), its cost. */
struct part {
	size_t *index;
	size_t count;
	int64_t cost_ms;
};

/*
 * Quick parts first, in queue order (a few milliseconds more or less are
 * no reason to pass another); then the slow ones, quickest first.
 */
static int
compare_parts(const void *a, const void *b)
{
	const struct part *x = a, *y = b;
	int64_t cx = x->cost_ms >= LANE_SLOW_MS ? x->cost_ms : 0,
		cy = y->cost_ms >= LANE_SLOW_MS ? y->cost_ms : 0;

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->index[0] < y->index[0] ? -1 : x->index[0] > y->index[0];
}

/*
 * Plan the lanes for group on tip into *lanes (*n of them; members in
 * lane order). Fewer than two means: land it as one. Returns 0, or -1
 * (err set) for the ledger's error; git's failures only make one lane.
 */
static int
plan_lanes(struct lander *l, const char *tip, struct member **group,
    size_t count, struct lane **lanes, size_t *n, struct err *err)
{
	struct trait *traits = xcalloc(count, sizeof(*traits));
	struct part *parts = xcalloc(count, sizeof(*parts));
	struct buf why = BUF_INIT;
	size_t nparts = 0;
	int64_t slowest = 0;
	int rc;

	*lanes = NULL;
	*n = 0;
	if ((rc = read_traits(l, group, count, traits, err)) < 0)
		goto done;
	for (size_t i = 0; i < count; i++)
		if (traits[i].cost_ms > slowest)
			slowest = traits[i].cost_ms;
	if (slowest < LANE_SLOW_MS)
		goto done; /* nothing slow: no need to know more */
	for (size_t i = 0; i < count; i++) {
		traits[i].part = i;
		if (gitm_changed_since_fork(l->root.buf, tip, group[i]->commit,
		    &traits[i].paths, &why) < 0)
			goto done; /* git will say it again, in land_group() */
		qsort(traits[i].paths.items, traits[i].paths.count,
		    sizeof(char *), compare_strings);
	}
	for (size_t i = 0; i < count; i++)
		for (size_t k = i + 1; k < count; k++)
			if (part_of(traits, i) != part_of(traits, k) &&
			    touch_each_other(&traits[i], &traits[k]))
				traits[part_of(traits, k)].part = part_of(traits, i);
	/* The parts, each in queue order, by their first member. */
	for (size_t i = 0; i < count; i++) {
		size_t root = part_of(traits, i), p;

		for (p = 0; p < nparts; p++)
			if (part_of(traits, parts[p].index[0]) == root)
				break;
		if (p == nparts)
			parts[nparts++].index = xcalloc(count, sizeof(size_t));
		parts[p].index[parts[p].count++] = i;
		parts[p].cost_ms += traits[i].cost_ms;
	}
	if (nparts < 2)
		goto done;
	qsort(parts, nparts, sizeof(*parts), compare_parts);
	for (size_t p = 0; p < nparts; p++) {
		struct lane *lane = *n ? &(*lanes)[*n - 1] : NULL;

		if (lane == NULL || ((int)*n < l->options->jobs &&
		    parts[p].cost_ms >= LANE_SLOW_MS &&
		    parts[p].cost_ms > LANE_RATIO * lane->cost_ms)) {
			*lanes = xrealloc(*lanes, (*n + 1) * sizeof(**lanes));
			lane = &(*lanes)[(*n)++];
			memset(lane, 0, sizeof(*lane));
			lane->members = xcalloc(count, sizeof(*lane->members));
			lane->fd = -1;
		}
		for (size_t i = 0; i < parts[p].count; i++)
			lane->members[lane->count++] = group[parts[p].index[i]];
		lane->cost_ms += parts[p].cost_ms;
	}
done:
	for (size_t i = 0; i < count; i++) {
		strlist_release(&traits[i].paths);
		strlist_release(&traits[i].touches);
	}
	for (size_t p = 0; p < nparts; p++)
		free(parts[p].index);
	free(traits);
	free(parts);
	buf_release(&why);
	return rc;
}

static void
lanes_free(struct lane *lanes, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (lanes[k].pid > 0) {
			/*
			 * Its checks' supervisor sees its parent gone and
			 * kills what they started (util/proc.c).
			 */
			kill(lanes[k].pid, SIGKILL);
			while (waitpid(lanes[k].pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		if (lanes[k].fd >= 0)
			close(lanes[k].fd);
		free(lanes[k].members);
		land_candidate_release(&lanes[k].c);
		buf_release(&lanes[k].base_tree);
		buf_release(&lanes[k].dir);
		buf_release(&lanes[k].output);
	}
	free(lanes);
}

/*
 * In a lane's process: judge its candidate in its checkout, with a ledger
 * of its own, and write {"results": {...}, "runs": N} (the results kept
 * for its tree, the trees it checked) to fd. Never returns.
 */
static _Noreturn void
lane_process(struct lander *l, struct lane *lane, int fd)
{
	struct ledger *own = NULL;
	struct err err = ERR_INIT;
	struct buf failure = BUF_INIT;
	int64_t runs = l->stats->check_runs;
	bool passed = false;
	json_t *out;
	char *text;
	int status = 1;

	ledger_leave_to_parent(l->ledger);
	if (ledger_open(ledger_path(l->ledger), &own, &err) == 0) {
		l->ledger = own;
		l->lane_child = true;
		buf_reset(&l->checkout);
		buf_add(&l->checkout, lane->dir.buf, lane->dir.len);
		l->checkout_dirty = true;
		if (land_judge(l, &lane->c, &passed, &failure, &err) == 0) {
			out = json_pack("{s:O, s:I}", "results",
			    json_object_get(l->results, lane->c.tree.buf), "runs",
			    (json_int_t)(l->stats->check_runs - runs));
			text = json_dumps(out, JSON_COMPACT);
			json_decref(out);
			if (text && write(fd, text, strlen(text)) ==
			    (ssize_t)strlen(text))
				status = 0;
			free(text);
		}
		ledger_close(own);
	}
	_exit(status);
}

/*
 * Start lane's process (its checkout made first). On failure the lane
 * simply has none: land_group() judges it itself. Returns 0, or -1 (err
 * set) when its checkout cannot be made.
 */
static int
start_lane(struct lander *l, struct lane *lane, const char *tip,
    struct err *err)
{
	int fds[2];
	pid_t pid;

	if (land_bring(l, lane->c.commit.buf, err) < 0 ||
	    land_prepare_checkout(l, lane->dir.buf, l->judge.dir.buf, tip,
	    err) < 0)
		return -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		lane_process(l, lane, fds[1]);
	}
	close(fds[1]);
	lane->pid = pid;
	lane->fd = fds[0];
	return 0;
}

/*
 * Wait for lane's process to end, reading what it writes, and renewing
 * the land lock meanwhile; keep its results in l->results. Returns 0;
 * 2 when the pass is to stop (a signal, or landing paused: l->halt); or
 * a negative code (err set) when the lock was lost or the ledger failed.
 */
static int
wait_lane(struct lander *l, struct lane *lane, struct err *err)
{
	int64_t renew_at = clock_mono_ms() + LANE_RENEW_MS;
	json_t *got, *results;
	int status = 0, rc;

	while (lane->fd >= 0) {
		struct pollfd p = { lane->fd, POLLIN, 0 };
		char chunk[8192];

		if (land_stopping(l))
			return 2;
		if (clock_mono_ms() >= renew_at) {
			bool held = false;

			if ((rc = land_hold_lock(l, &held, err)) < 0)
				return rc;
			if (!held)
				return land_lock_lost(l, err);
			renew_at = clock_mono_ms() + LANE_RENEW_MS;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		ssize_t got_bytes = read(lane->fd, chunk, sizeof(chunk));

		if (got_bytes > 0) {
			buf_add(&lane->output, chunk, (size_t)got_bytes);
		} else if (got_bytes == 0 || errno != EINTR) {
			close(lane->fd);
			lane->fd = -1;
		}
	}
	while (waitpid(lane->pid, &status, 0) < 0 && errno == EINTR)
		;
	lane->pid = 0;
	/* A process that failed kept nothing: land_group() judges itself. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 0;
	got = json_loads(lane->output.buf ? lane->output.buf : "", 0, NULL);
	results = json_object_get(got, "results");
	if (json_is_object(results)) {
		json_t *known = json_object_get(l->results, lane->c.tree.buf);

		if (known == NULL)
			json_object_set(l->results, lane->c.tree.buf, results);
		else
			json_object_update(known, results);
		l->stats->check_runs += json_integer_value(json_object_get(got,
		    "runs"));
	}
	json_decref(got);
	return 0;
}

/* The members of lanes from k on, and those left out of every lane's
 * candidate, into *rest (*n). */
static void
rest_of(struct lane *lanes, size_t nlanes, size_t k, struct member ***rest,
    size_t *n)
{
	size_t total = 1;

	*n = 0;
	for (size_t j = 0; j < nlanes; j++)
		total += lanes[j].count;
	*rest = xrealloc(*rest, total * sizeof(**rest));
	for (size_t j = 0; j < nlanes; j++)
		for (size_t i = 0; i < lanes[j].count; i++) {
			struct member *m = lanes[j].members[i];
			bool in_candidate = false;

			for (size_t c = 0; c < lanes[j].c.count; c++)
				in_candidate |= lanes[j].c.members[c] == m;
			if (j >= k || !in_candidate)
				(*rest)[(*n)++] = m;
		}
}

int
land_lanes(struct lander *l, struct member **group, size_t count,
    struct err *err)
{
	struct buf tip = BUF_INIT, base = BUF_INIT, now = BUF_INIT,
		   tree = BUF_INIT;
	struct member **rest = NULL;
	struct lane *lanes = NULL;
	size_t nlanes = 0, nrest = 0, k = 0;
	int rc;

	if (l->options->jobs <= 1 || count < 2)
		return land_group(l, group, count, err);
	if ((rc = land_trunk_tip(l, &tip, err)) < 0 ||
	    (rc = plan_lanes(l, tip.buf, group, count, &lanes, &nlanes, err)) < 0)
		goto done;
	if (nlanes < 2) {
		rc = land_group(l, group, count, err);
		goto done;
	}
	/* Each lane's candidate on the one before: nothing sent back yet. */
	l->speculating = true;
	buf_adds(&base, tip.buf);
	for (k = 0; k < nlanes && rc == 0; k++) {
		struct lane *lane = &lanes[k];
		size_t dropped = 0;

		if ((rc = gitm_tree_of(l->root.buf, base.buf, &lane->base_tree)) < 0) {
			rc = err_set(err, ERR_FAILED, "cannot read the tree of %.12s",
			    base.buf);
			break;
		}
		rc = land_build_candidate(l, base.buf, lane->members, lane->count,
		    &lane->c, &dropped, err);
		if (rc == 0 && lane->c.count > 0) {
			buf_reset(&base);
			buf_add(&base, lane->c.commit.buf, lane->c.commit.len);
		}
	}
	l->speculating = false;
	/* Every lane checked at once, each in a checkout of its own. */
	for (k = 0; k < nlanes && rc == 0; k++) {
		if (lanes[k].c.count == 0)
			continue;
		if (k == 0)
			buf_add(&lanes[k].dir, l->checkout.buf, l->checkout.len);
		else
			buf_addf(&lanes[k].dir, "%s-%zu", l->checkout.buf, k + 1);
		rc = start_lane(l, &lanes[k], tip.buf, err);
	}
	/* The lane checked out first no longer holds what it did. */
	l->checkout_dirty = true;
	/* In lane order, each as soon as it (and those before) are done. */
	for (k = 0; k < nlanes && rc == 0; k++) {
		struct lane *lane = &lanes[k];

		if (lane->c.count == 0)
			continue;
		if ((rc = wait_lane(l, lane, err)) != 0) {
			if (rc == 2)
				rc = 0; /* stop: the rest stays queued */
			break;
		}
		buf_reset(&now);
		buf_reset(&tree);
		if ((rc = land_trunk_tip(l, &now, err)) < 0)
			break;
		if (gitm_tree_of(l->root.buf, now.buf, &tree) < 0) {
			rc = err_set(err, ERR_FAILED, "cannot read the tree of %.12s",
			    now.buf);
			break;
		}
		if (strcmp(tree.buf, lane->base_tree.buf) != 0)
			break; /* not the trunk it was checked for */
		if ((rc = land_group(l, lane->c.members, lane->c.count, err)) < 0 ||
		    land_stopping(l))
			break;
	}
	if (rc < 0 || land_stopping(l))
		goto done;
	/*
	 * What is not landed yet: lanes from k on (checked for a trunk that
	 * did not come), and members left out of their lane's candidate.
	 * Lanes once more, when what broke the plan was not the first lane;
	 * else one group, as ever (so this ends).
	 */
	rest_of(lanes, nlanes, k, &rest, &nrest);
	lanes_free(lanes, nlanes);
	lanes = NULL;
	nlanes = 0;
	if (nrest > 0)
		rc = k > 0 && nrest < count ? land_lanes(l, rest, nrest, err)
					    : land_group(l, rest, nrest, err);
done:
	lanes_free(lanes, nlanes);
	free(rest);
	buf_release(&tip);
	buf_release(&base);
	buf_release(&now);
	buf_release(&tree);
	return rc;
}
