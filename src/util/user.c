/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/user.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/buf.h"

const char *
user_login_name(void)
{
	static const char *name;
	const char *env;
	struct passwd *pw;
	FILE *f;

	if (name != NULL)
		return name;
	if ((f = fopen("/etc/passwd", "re")) != NULL) {
		uid_t uid = getuid();

		while ((pw = fgetpwent(f)) != NULL) {
			if (pw->pw_uid == uid && pw->pw_name && *pw->pw_name) {
				name = xstrdup(pw->pw_name);
				break;
			}
		}
		fclose(f);
	}
	if (name == NULL) {
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
	static const char *home;
	struct passwd *pw;
	FILE *f;

	if (home == NULL && (f = fopen("/etc/passwd", "re")) != NULL) {
		uid_t uid = getuid();

		while ((pw = fgetpwent(f)) != NULL)
			if (pw->pw_uid == uid && pw->pw_dir && *pw->pw_dir) {
				home = xstrdup(pw->pw_dir);
				break;
			}
		fclose(f);
	}
	return home;
}
