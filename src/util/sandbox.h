/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A sandbox for a command that must not see or change more than it is
 * given: Debian's bubblewrap (bwrap), which makes it from Linux
 * namespaces. Inside it:
 *
 *  - the whole file system is read-only; /tmp, /var/tmp, /run and
 *    /dev/shm are empty and private; /dev and /proc are its own (it sees
 *    no other process);
 *  - each of sb->hidden is an empty directory (or, for a file, an empty
 *    file), so neither the project's files nor the ledger are there;
 *  - sb->git_dir, when set, is there again, read-only (git works in the
 *    checkout), with the hidden paths inside it hidden once more;
 *  - sb->dir is there, writable: the command's working directory;
 *  - the network is a loopback of its own, unless sb->network;
 *  - the environment is only PATH (the system's directories), HOME (an
 *    empty directory under the private /tmp), TMPDIR, LANG and sb->env.
 *
 * It runs in a session of its own, and ends with its parent.
 */
#ifndef DAICHO_SANDBOX_H
#define DAICHO_SANDBOX_H

#include <stdbool.h>

#include "util/buf.h"
#include "util/strlist.h"

/*
 * Debian's bwrap, by its full path: never one found through PATH, where a
 * worker could plant its own.
 */
#define SANDBOX_BWRAP "/usr/bin/bwrap"
/* The PATH inside the sandbox. */
#define SANDBOX_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* HOME inside the sandbox: empty at every start. */
#define SANDBOX_HOME "/tmp/home"

struct sandbox {
	const char *dir;               /* writable; where the command starts */
	const char *git_dir;           /* read-only inside, or NULL */
	const struct strlist *hidden;  /* absolute paths seen empty, or NULL */
	const struct strlist *env;     /* NAME=VALUE more, or NULL */
	bool network;                  /* the host's network, not its own */
};

/*
 * Whether bwrap can make a sandbox on this machine (tried once a process;
 * the answer is kept). When not, why says so in one line that says what
 * to do.
 */
bool sandbox_available(struct buf *why);

/*
 * The argv (appended to argv) that runs "/bin/sh -c command" in sb, for
 * proc_run(). Paths in sb that are not absolute, or are "/", are not
 * hidden.
 */
void sandbox_argv(const struct sandbox *sb, const char *command,
    struct strlist *argv);

#endif
