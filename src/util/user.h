/*
 * The login name of the user running daicho.
 */
#ifndef DAICHO_USER_H
#define DAICHO_USER_H

/*
 * The name of the real user id, from /etc/passwd; else $LOGNAME or $USER;
 * else "human". Never NULL; the string lives until the process ends.
 *
 * /etc/passwd is read directly rather than through getpwuid(): daicho is
 * linked statically, and a static getpwuid() must load the name-service
 * libraries of the exact glibc it was built with. A user known only to a
 * directory service (LDAP, SSSD) is named by $LOGNAME or $USER instead.
 */
const char *user_login_name(void);

#endif
