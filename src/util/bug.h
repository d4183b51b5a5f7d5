/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Invariants. BUG_ON(cond, fmt, ...) ends the process when cond holds: a
 * state that daicho's own logic excludes (a commit outside a transaction,
 * a nested level closed twice, a task moved along no edge of its
 * lifecycle). It is never for bad input, a busy ledger or a failing
 * system call: those are errors, reported and survived. On in every build,
 * as git's BUG() and tmux's fatalx() are: carrying on past a broken
 * invariant would write a ledger nobody can trust. It prints
 * "daicho: BUG: FILE:LINE: what" on stderr and aborts, so that a core
 * dump, when enabled, shows where.
 */
#ifndef DAICHO_BUG_H
#define DAICHO_BUG_H

#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
#define BUG_ON(cond, ...)                                                     \
	do {                                                                  \
		if (cond)                                                     \
			BUG(__VA_ARGS__);                                     \
	} while (0)

_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
