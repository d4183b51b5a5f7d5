/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The judge's repository: where verification and landing look at work.
 *
 * A worker shares the project's repository, and whatever git reads there
 * it can change: replace refs, grafts, the shallow file, sparse-checkout,
 * hooks, fsmonitor, filters and includeIf in .git/config. So the judge
 * never reads work there. It keeps a bare repository of its own,
 * <ledger dir>/judge.git, whose configuration daicho writes again before
 * every use (no hooks, no fsmonitor, nothing else), from which it removes
 * grafts, a shallow file, alternates and replace refs, and into which it
 * brings what it judges by object transfer: a fetch from the project's
 * repository of its branches and of the commits named (the objects are
 * checked as they arrive). Every git command in it, and in the checkouts
 * made from it (<ledger dir>/verify/, <ledger dir>/land/), runs without
 * the system's or the user's configuration, replace refs or grafts
 * (git_own_repository()).
 */
#ifndef DAICHO_JUDGE_H
#define DAICHO_JUDGE_H

#include "core/err.h"
#include "core/ledger.h"
#include "util/buf.h"
#include "util/strlist.h"

struct judge {
	struct buf dir;     /* <ledger dir>/judge.git */
	struct buf project; /* the project's common git directory */
};

#define JUDGE_INIT { BUF_INIT, BUF_INIT }

/*
 * Where the judge's repository is (j->dir) and the project's it fetches
 * from (j->project), without making or touching it. Returns 0, or 1 when
 * the ledger is in no git repository.
 */
int judge_locate(struct ledger *ledger, struct judge *j);

/*
 * Make the judge's repository ready for this process: made when missing,
 * its configuration written again, what could change what it sees taken
 * out, and its directories (and the checkout directories) registered as
 * daicho's own. Returns 0; 1 when the ledger is in no git repository (no
 * judge); or ERR_FAILED when it cannot be made.
 */
int judge_open(struct ledger *ledger, struct judge *j, struct err *err);

/*
 * Bring into the judge's repository the project's branches (as its own
 * refs/heads/) and each of commits (full hashes; those the project lacks
 * are left out): one fetch, whatever is there already. Returns 0, or -1
 * with why (the project's history is cut short, git failed).
 */
int judge_fetch(const struct judge *j, const struct strlist *commits,
    struct buf *why);

/*
 * A warm checkout of the judge's repository, taken by one verification at
 * a time: <dir>/warm-K, held by a lock on <dir>/warm-K.lock that the
 * process's death releases.
 */
struct judge_checkout {
	struct buf dir;
	int lock_fd;   /* -1 when none is held */
};

#define JUDGE_CHECKOUT_INIT { BUF_INIT, -1 }

/* At most this many warm checkouts (verifications at once) a ledger has. */
#define JUDGE_CHECKOUTS_MAX 64

/*
 * Take the first free warm checkout under dir (made when there is none)
 * and make it hold exactly commit: checked out, forced, and everything it
 * does not track removed (gitm_checkout_clean()). One that cannot be made
 * so is removed and made again. Returns 0 with *out held; -1 (why says)
 * when none can be had.
 */
int judge_checkout_take(const struct judge *j, const char *dir,
    const char *commit, struct judge_checkout *out, struct buf *why);

/*
 * Give c back, emptied of what the checks left there (the next taker
 * cleans it again, in case this did not finish).
 */
void judge_checkout_give(struct judge_checkout *c);

void judge_release(struct judge *j);

#endif
