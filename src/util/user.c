/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/user.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/buf.h"

/* The real user's entry in /etc/passwd: its fields, read once. */
static struct {
	bool read;
	char *name, *home, *shell;
} own;

/* Fill own from the real user id's /etc/passwd entry, once. */
static void
read_own_entry(void)
{
	struct passwd *pw;
	FILE *f;

	if (own.read)
		return;
	own.read = true;
	if ((f = fopen("/etc/passwd", "re")) == NULL)
		return;
	/* Each field from the first of the uid's lines that has it. */
	while ((pw = fgetpwent(f)) != NULL &&
	    (own.name == NULL || own.home == NULL || own.shell == NULL)) {
		if (pw->pw_uid != getuid())
			continue;
		if (own.name == NULL && pw->pw_name && *pw->pw_name)
			own.name = xstrdup(pw->pw_name);
		if (own.home == NULL && pw->pw_dir && *pw->pw_dir)
			own.home = xstrdup(pw->pw_dir);
		if (own.shell == NULL && pw->pw_shell && *pw->pw_shell)
			own.shell = xstrdup(pw->pw_shell);
	}
	fclose(f);
}

const char *
user_login_name(void)
{
	static const char *name;
	const char *env;

	if (name != NULL)
		return name;
	read_own_entry();
	if ((name = own.name) == NULL) {
		env = getenv("LOGNAME");
		if (env == NULL || *env == '\0')
			env = getenv("USER");
		if (env && *env) {
			name = env;
		} else {
			struct buf uid = BUF_INIT;

			buf_addf(&uid, "uid-%lu", (unsigned long)getuid());
			name = buf_detach(&uid, NULL);
		}
	}
	return name;
}

const char *
user_home_dir(void)
{
	read_own_entry();
	return own.home;
}

const char *
user_shell(void)
{
	read_own_entry();
	return own.shell ? own.shell : "/bin/sh";
}
