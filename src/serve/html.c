/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * HTML for the dashboard: escaping, the frame every page shares, and the
 * CSS and JavaScript it needs, written here and served from memory (no
 * external network, no CDN).
 */
#include <string.h>
#include <time.h>

#include "serve/serve.h"
#include "util/clock.h"
#include "util/utf8.h"

void
html_escape_n(struct buf *out, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		unsigned cp;
		size_t n = i + 3 <= len ? utf8_invisible(text + i, &cp) : 0;

		/* Shown, not obeyed: "\u202egnigats" must not read "staging". */
		if (n > 0) {
			buf_addf(out, "[U+%04X]", cp);
			i += n - 1;
			continue;
		}

		switch (c) {
		case '&': buf_adds(out, "&amp;"); break;
		case '<': buf_adds(out, "&lt;"); break;
		case '>': buf_adds(out, "&gt;"); break;
		case '"': buf_adds(out, "&quot;"); break;
		case '\'': buf_adds(out, "&#39;"); break;
		default:
			/* Control characters other than tab and newline are shown
			 * as '?', as the terminal output does. */
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				buf_addch(out, '?');
			else
				buf_addch(out, (char)c);
		}
	}
}

void
html_escape(struct buf *out, const char *text)
{
	if (text != NULL)
		html_escape_n(out, text, strlen(text));
}

void
html_url_escape(struct buf *out, const char *text)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-_.~", *p))
			buf_addch(out, (char)*p);
		else
			buf_addf(out, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

void
html_age(struct buf *out, int64_t at_ms, int64_t now_ms)
{
	char when[32];
	time_t t = (time_t)(at_ms / 1000);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	buf_addf(out, "<time datetime=\"%s\" title=\"%s\">", when, when);
	if (at_ms <= 0)
		buf_adds(out, "never");
	else if (now_ms >= at_ms) {
		clock_add_age(out, now_ms - at_ms);
		buf_adds(out, " ago");
	} else {
		buf_adds(out, "in ");
		clock_add_age(out, at_ms - now_ms);
	}
	buf_adds(out, "</time>");
}

void
html_state(struct buf *out, const char *state)
{
	buf_adds(out, "<span class=\"state s-");
	html_escape(out, state);
	buf_adds(out, "\">");
	html_escape(out, state);
	buf_adds(out, "</span>");
}

void
html_empty(struct buf *out, const char *what, const char *next_html)
{
	buf_adds(out, "<p class=\"empty\">");
	html_escape(out, what);
	buf_addf(out, "</p><p class=\"next mute\">%s</p>", next_html);
}

void
html_action_form(const struct serve_request *req, struct buf *out,
    const char *action, int64_t id, const char *label)
{
	buf_addf(out, "<form class=\"action\" method=\"post\" "
	    "action=\"/api/%s/%lld\">", action, (long long)id);
	if (req->session != NULL)
		buf_addf(out, "<input type=\"hidden\" name=\"csrf\" value=\"%s\">",
		    req->session->csrf);
	if (strcmp(action, "approve") == 0)
		buf_adds(out, "<input name=\"if\" placeholder=\"only if CMD passes "
		    "(optional)\" size=\"22\">");
	else if (strcmp(action, "deny") == 0)
		buf_adds(out, "<input name=\"reason\" placeholder=\"reason "
		    "(optional)\" size=\"18\">");
	else if (strcmp(action, "unblock") == 0)
		buf_adds(out, "<input name=\"answer\" placeholder=\"your answer "
		    "(optional)\" size=\"24\">");
	else if (strcmp(action, "reply") == 0)
		buf_adds(out, "<input name=\"text\" placeholder=\"your reply\" "
		    "size=\"24\" required>");
	else if (strcmp(action, "reopen") == 0)
		buf_adds(out, "<input name=\"reason\" placeholder=\"why (needed for "
		    "verified work)\" size=\"24\">");
	buf_addf(out, "<button type=\"submit\" data-action=\"%s\" data-id=\"%lld\""
	    "%s>", action, (long long)id,
	    req->session ? "" : " disabled title=\"log in with the URL "
	    "'daicho serve' printed to act\"");
	html_escape(out, label);
	buf_adds(out, "</button></form>");
}

void
html_begin(const struct serve_request *req, struct buf *out, const char *title,
    const char *current)
{
	static const struct {
		const char *path, *name;
	} tabs[] = {
		{ "/", "Needs you" },
		{ "/agents", "Agents" },
		{ "/tasks", "Tasks" },
		{ "/graph", "Graph" },
		{ "/usage", "Usage" },
	};

	if (req->partial)
		return;
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width\">");
	if (req->session != NULL)
		buf_addf(out, "<meta name=\"csrf-token\" content=\"%s\">",
		    req->session->csrf);
	buf_adds(out, "<title>");
	html_escape(out, title);
	buf_adds(out, " · daicho</title>"
	    "<link rel=\"stylesheet\" href=\"/static/style.css\">"
	    "<script src=\"/static/app.js\" defer></script>"
	    "</head><body><header><span class=\"brand\">daicho</span><nav>");
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
		buf_addf(out, "<a href=\"%s\"%s>%s</a>", tabs[i].path,
		    strcmp(tabs[i].name, current) == 0 ? " class=\"current\""
		    " aria-current=\"page\"" : "", tabs[i].name);
	buf_adds(out, "</nav><span class=\"who\">");
	if (req->session != NULL)
		buf_addf(out, "signed in <form method=\"post\" action=\"/logout\" "
		    "class=\"inline\"><input type=\"hidden\" name=\"csrf\" "
		    "value=\"%s\"><button>log out</button></form>",
		    req->session->csrf);
	else if (req->server->auth.enabled)
		buf_adds(out, "read-only: open the login URL that 'daicho serve' "
		    "printed to act");
	else
		buf_adds(out, "read-only dashboard");
	buf_adds(out, "</span><span id=\"live\" class=\"live\" "
	    "title=\"live updates\"></span></header><main id=\"main\">");
}

void
html_end(const struct serve_request *req, struct buf *out)
{
	if (req->partial)
		return;
	buf_adds(out, "</main></body></html>\n");
}

static const char style_css[] =
    ":root{--bg:#fbfbf8;--fg:#1d1d1b;--mute:#6b6b66;--line:#deddd6;"
    "--accent:#2456a6;--warn:#a35a00;--bad:#b3261e;--ok:#2e7d32}\n"
    "*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,sans-serif;"
    "background:var(--bg);color:var(--fg)}\n"
    "header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;"
    "border-bottom:1px solid var(--line);background:#fff;position:sticky;top:0}\n"
    ".brand{font-weight:700;letter-spacing:.04em}nav a{margin-right:1em;"
    "color:var(--fg);text-decoration:none;padding:.2em 0}\n"
    "nav a.current{border-bottom:2px solid var(--accent);font-weight:600}\n"
    ".who{margin-left:auto;color:var(--mute);font-size:.9em}\n"
    ".live{width:.7em;height:.7em;border-radius:50%;background:#ccc}\n"
    ".live.on{background:var(--ok)}\n"
    "main{padding:1em 1.2em;max-width:1400px}h1{font-size:1.3em;margin:.2em 0 .6em}\n"
    "h2{font-size:1.05em;margin:1.4em 0 .4em}\n"
    "table{border-collapse:collapse;width:100%;background:#fff}\n"
    "th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid var(--line);"
    "vertical-align:top}th a{color:inherit}\n"
    "code,pre{font:12.5px/1.4 ui-monospace,monospace}\n"
    "pre{background:#fff;border:1px solid var(--line);padding:.6em;overflow:auto;"
    "max-height:32em;white-space:pre-wrap;word-break:break-word}\n"
    ".item{background:#fff;border:1px solid var(--line);border-left:4px solid "
    "var(--warn);padding:.6em .8em;margin:.5em 0}\n"
    ".item[data-urgency=now]{border-left-color:#c0392b}"
    ".item[data-urgency=later]{border-left-color:#8fa3b8}\n"
    ".item .kind{font-weight:600;margin-right:.6em}.item .since{color:var(--mute)}\n"
    ".item .resolve{margin-top:.3em}.item .resolve code{display:inline-block;"
    "margin-right:1em}\n"
    ".empty{color:var(--ok);font-weight:600}\n"
    ".state{display:inline-block;padding:0 .45em;border-radius:3px;font-size:.85em;"
    "background:#eee}\n"
    ".s-open{background:#e3ecfa}.s-claimed{background:#fff0c2}"
    ".s-reported{background:#f3e5f5}.s-verified{background:#dcefdc}.s-landed{background:#c8e6c9}"
    ".s-queued,.s-landing{background:#e3f2fd}.s-sent{background:#fde0dc}"
    ".s-blocked{background:#ffd9b0}.s-failed{background:#f8d0cc}"
    ".s-cancelled{background:#e4e4e4}.s-active{background:#dcefdc}"
    ".s-stale{background:#f8d0cc}.s-waiting{background:#fff0c2}"
    ".s-quiet{background:#ffd27a}"
    ".s-ended{background:#e4e4e4}.s-pass{background:#dcefdc}"
    ".s-fail{background:#f8d0cc}\n"
    "form.action,form.inline{display:inline-flex;gap:.3em;margin:.2em .6em .2em 0}\n"
    "button{font:inherit;padding:.15em .7em;border:1px solid #999;border-radius:3px;"
    "background:#fff;cursor:pointer}button:disabled{cursor:not-allowed;opacity:.5}\n"
    "input,select{font:inherit;padding:.1em .3em}\n"
    ".filters{display:flex;gap:.8em;flex-wrap:wrap;margin-bottom:.8em}\n"
    ".counts span{margin-right:1em}.mute{color:var(--mute)}\n"
    ".graph svg{max-width:100%;height:auto;background:#fff;border:1px solid "
    "var(--line)}\n"
    ".bar{fill:var(--accent)}.legend span{margin-right:.8em}\n"
    ".days .grid{stroke:var(--line);stroke-dasharray:2 3}"
    ".days .axis-line{stroke:#888}.days text{font-size:11px;fill:#555}"
    ".days .value{font-size:10px;fill:#333}\n";

static const char app_js[] =
    "// daicho dashboard: live updates over Server-Sent Events. Without\n"
    "// JavaScript every page still works, only without live updates.\n"
    "(function () {\n"
    "  'use strict';\n"
    "  var main = document.getElementById('main');\n"
    "  var dot = document.getElementById('live');\n"
    "  if (!main || !window.EventSource || !window.fetch) return;\n"
    "  var busy = false, again = false;\n"
    "  function editing() {\n"
    "    var a = document.activeElement;\n"
    "    return a && main.contains(a) && (a.tagName === 'INPUT' ||\n"
    "      a.tagName === 'TEXTAREA' || a.tagName === 'SELECT') && a.value;\n"
    "  }\n"
    "  function refresh() {\n"
    "    if (busy) { again = true; return; }\n"
    "    if (editing()) { again = true; setTimeout(refresh, 1000); return; }\n"
    "    busy = true;\n"
    "    fetch(location.pathname + location.search, {\n"
    "      headers: { 'X-Daicho-Partial': '1' }, credentials: 'same-origin',\n"
    "      cache: 'no-store' })\n"
    "      .then(function (r) { return r.ok ? r.text() : null; })\n"
    "      .then(function (html) {\n"
    "        if (html !== null) {\n"
    "          main.innerHTML = html;\n"
    "          document.documentElement.setAttribute('data-updated',\n"
    "            String(Date.now()));\n"
    "        }\n"
    "      })\n"
    "      .catch(function () {})\n"
    "      .then(function () {\n"
    "        busy = false;\n"
    "        if (again) { again = false; refresh(); }\n"
    "      });\n"
    "  }\n"
    "  function connect() {\n"
    "    var source = new EventSource('/events');\n"
    "    source.addEventListener('open', function () {\n"
    "      if (dot) { dot.className = 'live on'; dot.title = 'live'; }\n"
    "      document.documentElement.setAttribute('data-live', 'on');\n"
    "    });\n"
    "    source.addEventListener('error', function () {\n"
    "      if (dot) { dot.className = 'live'; dot.title = 'reconnecting'; }\n"
    "      // Refused (503: too many streams): the browser gives up; not us.\n"
    "      if (source.readyState === EventSource.CLOSED)\n"
    "        setTimeout(connect, 10000);\n"
    "    });\n"
    "    source.addEventListener('change', refresh);\n"
    "  }\n"
    "  connect();\n"
    "})();\n";

bool
html_static(const char *path, const char **type, const char **body)
{
	if (strcmp(path, "/static/style.css") == 0) {
		*type = "text/css; charset=utf-8";
		*body = style_css;
		return true;
	}
	if (strcmp(path, "/static/app.js") == 0) {
		*type = "text/javascript; charset=utf-8";
		*body = app_js;
		return true;
	}
	return false;
}
