/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Who may act from the dashboard: the person who started the server at a
 * terminal. It prints a one-time login token there; the browser that
 * brings it back gets a session (a cookie) and a CSRF token that every
 * action must carry. Tokens are 256 bits from the kernel's random source.
 * See docs/security.md.
 */
#include <string.h>

#include "serve/serve.h"
#include "util/clock.h"
#include "util/random.h"

void
serve_auth_init(struct serve_auth *auth, bool enabled, int64_t lifetime_ms)
{
	memset(auth, 0, sizeof(*auth));
	pthread_mutex_init(&auth->lock, NULL);
	auth->enabled = enabled;
	auth->lifetime_ms = lifetime_ms;
	auth->started_ms = clock_now_ms();
	if (enabled && serve_random_token(auth->login_token) < 0)
		auth->enabled = false;
}

void
serve_auth_release(struct serve_auth *auth)
{
	pthread_mutex_destroy(&auth->lock);
	memset(auth, 0, sizeof(*auth));
}

int
serve_random_token(char *hex)
{
	return random_hex(hex, SERVE_TOKEN_HEX / 2);
}

bool
serve_token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0 && la > 0;
}

/*
 * With auth->lock held: make a session in a free slot, else an expired
 * one, else the oldest's, and copy it to *out. Returns 0 or -1.
 */
static int
open_locked(struct serve_auth *auth, struct serve_session *out)
{
	struct serve_session *slot = NULL;
	int64_t now = clock_now_ms();

	for (size_t i = 0; i < SERVE_SESSION_MAX; i++) {
		struct serve_session *s = &auth->sessions[i];

		if (s->id[0] == '\0' || now - s->created_ms > auth->lifetime_ms) {
			slot = s;
			break;
		}
		if (slot == NULL || s->created_ms < slot->created_ms)
			slot = s;
	}
	if (serve_random_token(slot->id) < 0 ||
	    serve_random_token(slot->csrf) < 0) {
		memset(slot, 0, sizeof(*slot));
		return -1;
	}
	slot->created_ms = now;
	*out = *slot;
	return 0;
}

int
serve_auth_login(struct serve_auth *auth, const char *token,
    int64_t revoked_ms, struct serve_session *out)
{
	int rc = -1;

	pthread_mutex_lock(&auth->lock);
	/* A revoke after the start ends the start's link too. */
	if (revoked_ms >= auth->started_ms)
		memset(auth->login_token, 0, sizeof(auth->login_token));
	if (auth->enabled && auth->login_token[0] != '\0' && token != NULL &&
	    serve_token_equal(token, auth->login_token) &&
	    (rc = open_locked(auth, out)) == 0)
		/* One time: nobody else can log in with it, whoever sees it. */
		memset(auth->login_token, 0, sizeof(auth->login_token));
	pthread_mutex_unlock(&auth->lock);
	return rc;
}

int
serve_auth_open(struct serve_auth *auth, struct serve_session *out)
{
	int rc = -1;

	pthread_mutex_lock(&auth->lock);
	if (auth->enabled)
		rc = open_locked(auth, out);
	pthread_mutex_unlock(&auth->lock);
	return rc;
}

bool
serve_auth_session(struct serve_auth *auth, const char *cookie,
    int64_t revoked_ms, struct serve_session *out)
{
	int64_t now = clock_now_ms();
	bool found = false;

	if (cookie == NULL || strlen(cookie) != SERVE_TOKEN_HEX)
		return false;
	pthread_mutex_lock(&auth->lock);
	for (size_t i = 0; i < SERVE_SESSION_MAX && !found; i++) {
		struct serve_session *s = &auth->sessions[i];

		if (s->id[0] == '\0' || !serve_token_equal(cookie, s->id))
			continue;
		if (now - s->created_ms <= auth->lifetime_ms &&
		    s->created_ms > revoked_ms) {
			*out = *s;
			found = true;
		} else {
			memset(s, 0, sizeof(*s));
		}
	}
	pthread_mutex_unlock(&auth->lock);
	return found;
}

void
serve_auth_logout(struct serve_auth *auth, const char *id)
{
	pthread_mutex_lock(&auth->lock);
	for (size_t i = 0; i < SERVE_SESSION_MAX; i++)
		if (auth->sessions[i].id[0] != '\0' &&
		    serve_token_equal(id, auth->sessions[i].id))
			memset(&auth->sessions[i], 0, sizeof(auth->sessions[i]));
	pthread_mutex_unlock(&auth->lock);
}

unsigned
serve_auth_check_action(const struct serve_request *req, struct buf *why)
{
	const char *origin = serve_header(req, "Origin");
	const char *site = serve_header(req, "Sec-Fetch-Site");
	const char *header = serve_header(req, "X-CSRF-Token");
	struct buf field = BUF_INIT;
	bool carried;

	if (!req->server->auth.enabled) {
		buf_adds(why, "this dashboard is read-only: it was not started by "
		    "a person at a terminal");
		return 403;
	}
	if (req->session == NULL) {
		buf_adds(why, "not logged in: open the one-time login URL that "
		    "'daicho serve' printed to its terminal");
		return 401;
	}
	/*
	 * A browser sends Origin with every POST: one without it is not the
	 * dashboard's page (a script holding a copied cookie, say).
	 */
	if (origin == NULL) {
		buf_addf(why, "an action comes from the dashboard's own page "
		    "(%s), which sends an Origin header; this request has none",
		    req->server->origin.buf);
		return 403;
	}
	if (strcmp(origin, req->server->origin.buf) != 0) {
		buf_addf(why, "a request from another origin (%.100s)", origin);
		return 403;
	}
	if (site != NULL && strcmp(site, "same-origin") != 0 &&
	    strcmp(site, "none") != 0) {
		buf_addf(why, "a cross-site request (Sec-Fetch-Site: %.40s)", site);
		return 403;
	}
	carried = header != NULL ? serve_token_equal(header, req->session->csrf)
		  : serve_form_field(req, "csrf", &field) &&
		    serve_token_equal(field.buf, req->session->csrf);
	buf_release(&field);
	if (!carried) {
		buf_adds(why, "missing or wrong CSRF token (reload the page)");
		return 403;
	}
	return 0;
}

bool
serve_auth_refuse(const struct serve_request *req, struct serve_response *res)
{
	struct buf why = BUF_INIT;
	unsigned refused = serve_auth_check_action(req, &why);

	if (refused)
		serve_error(req, res, refused, "%s", why.buf);
	buf_release(&why);
	return refused != 0;
}
