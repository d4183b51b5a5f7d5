/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The user running daicho: login name, home directory, login shell.
 */
#ifndef DAICHO_USER_H
#define DAICHO_USER_H

/*
 * The name of the real user id, from /etc/passwd; else $LOGNAME or $USER;
 * else "uid-N" (N the user id, so two users never share a name). Never
 * NULL; the string lives until the process ends.
 *
 * /etc/passwd is read directly (fgetpwent) rather than through getpwuid():
 * the default build links the C library statically, and a static
 * getpwuid() must load the name-service libraries of the exact glibc it was
 * built with. Every build does the same, so a user has one name whichever
 * way daicho was linked. A user known only to a directory service (LDAP,
 * SSSD) is named by $LOGNAME or $USER, or by the user id.
 */
const char *user_login_name(void);

/*
 * The caller's home directory in the user database (/etc/passwd, read
 * directly: the binary is static, without NSS), or NULL. Kept once found.
 */
const char *user_home_dir(void);

/*
 * The caller's login shell in the user database (/etc/passwd, read
 * directly, as above), or "/bin/sh" when it names none. Never NULL.
 */
const char *user_shell(void);

#endif
