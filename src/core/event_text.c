/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/event_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/settings.h"
#include "util/clock.h"

/*
 * Each kind's sentence is a template. In it:
 *   %A          the actor ("someone" when none is on record)
 *   %T          the task: "#4 Title" ("#4" without a title)
 *   %{key}      the detail's field key: a string, or a number
 *   %c{key}     a commit, cut to 10 characters
 *   %d{key}     a duration in milliseconds ("4m23s")
 *   %t{key}     a time in milliseconds since the epoch
 *   %l{key}     an array of strings, joined by ", "
 *   %i{key}     an array of task ids, each "#N", joined by ", "
 *   %v{key}     a setting's value (the detail's "key" names the setting)
 *   %N{key|w}   a count (a number, or an array's length) and the word w,
 *               with an "s" unless the count is 1
 *   %?{key}     nothing; requires the field to be set (see below)
 *   %!{key}     nothing; requires the field not to be set
 *   %={key=v}   nothing; requires the field to be the string v
 *   [...]       an optional part (not nested), written only when every
 *               field in it is set and every requirement holds
 * A field is set when it is present and not null, false, "" or []; for %d
 * and %T, not 0 either. Outside [...] a field that is not set is "?".
 */
static const struct {
	const char *kind;
	const char *text;
} sentences[] = {
	{ "add", "%A added %T" },
	{ "claim", "%A claimed %T" },
	{ "lease-expired", "[%?{owner}%{owner} lost %T][%!{owner}%T lost its "
	  "holder][ (%{reason})][%!{reason} (its lease ran out)][%={to=open}; "
	  "open again][%={to=failed}; failed]" },
	{ "fail", "%T failed[: %{reason}][ after %N{attempts|attempt}]" },
	{ "release", "[%!{forced}%A released %T][%?{forced}%A took %T back]"
	  "[ from %{owner}][ (it was %{from})]" },
	{ "requeue", "%A put %T back[: %{reason}][ (attempt %{attempts})]"
	  "[, to retry in %d{retry_after_ms}]" },
	{ "block", "%A blocked %T[: %{reason}]" },
	{ "cancel", "%A cancelled %T[ (it was %{from})][: %{reason}]" },
	{ "report", "%A reported %T done[ at commit %c{commit}][: %{note}]" },
	{ "save", "%A saved a result for %T (%N{bytes|byte}[, "
	  "%N{tokens_in|token} in][, %{tokens_out} out][, $%{cost}][, "
	  "%{model}])" },
	/* The judge decided, not whoever started it: the sweep's runner. */
	{ "verified", "the sweep (run by %A) verified %T[ at commit "
	  "%c{commit}][ (fetched from %{fetched})][: %{summary}]" },
	{ "rejected", "%T rejected[ at commit %c{commit}][ (fetched from "
	  "%{fetched})][: %{summary}]"
	  "[%={to=owner}; back to its holder][%={to=open}; open again]"
	  "[%={to=failed}; failed, its attempts used up]" },
	{ "reverified", "the sweep (run by %A) verified %T again[: "
	  "%{summary}]" },
	{ "landed", "%A landed %T on %{trunk}[ at %c{landed}][ (its commit "
	  "%c{commit})][, with %N{batch|task} in one batch]" },
	{ "land-conflict", "%T could not land on %{trunk}[ (at %c{before})]: "
	  "its commit[ %c{commit}] conflicts[ in %l{paths}]"
	  "[%={to=open}; open again][%={to=failed}; failed, its landing tries "
	  "used up]" },
	{ "land-failed", "%T could not land on %{trunk}[ (at %c{before})]: "
	  "the merged tree fails[: %{summary}]"
	  "[%={to=open}; open again][%={to=failed}; failed, its landing tries "
	  "used up]" },
	{ "land-pause", "%A paused landing" },
	{ "land-resume", "%A resumed landing" },
	{ "verify-deferred", "%A could not verify %T[ at commit %c{commit}]"
	  "[: %{summary}]; still reported, for the next sweep" },
	{ "reopened", "%T no longer passes[: %{summary}]; open again" },
	{ "reopen", "%A reopened %T[ (it was %{from})][: %{reason}]"
	  "[; after it, %i{ran} had already run on its work]" },
	{ "unblock", "%A unblocked %T[%={to=owner}; back to %{owner}]"
	  "[%={to=open}; open again][, answering: %{answer}]" },
	{ "edit", "%A edited %T[: %l{fields}]" },
	{ "wait", "%A waits for %{for}[, as %{owner} asked] (wait #%{wait})" },
	{ "wait-end", "[%?{agent}%A ended the wait of %{agent}][%!{agent}%A "
	  "stopped waiting][ (wait #%{wait})][%!{wait} (%N{ended|wait})]" },
	{ "wait-reassigned", "wait #%{wait} passed[ from %{from}], who ended, "
	  "to the live holder of its role" },
	{ "wait-needs-human", "wait #%{wait} needs a person: its owner[ "
	  "%{from}] ended, and no one live holds its role" },
	{ "wait-overdue", "wait #%{wait} is overdue[%!{needs_human}; its owner "
	  "was reminded][%?{needs_human}%!{persons}; its owner is gone, so it "
	  "needs a person][%?{persons}; it is the person's to answer]" },
	{ "agent-inherit", "%{name} took over what an ended agent of its name "
	  "held (claims %{claims}, waits %{waits}, waits it owns "
	  "%{owned_waits})" },
	{ "agent-register", "%{name} joined[ as %{role}][ (%{kind})]" },
	{ "agent-end", "[%!{agent}%A ended][%?{agent}%!{name}%!{reason}%A ended "
	  "agent #%{agent}][%?{name}%A ended %{name}][%?{reason}agent "
	  "#%{agent} ended: %{reason}]" },
	{ "agent-takeover", "%{name} was taken over by a new agent of that "
	  "name (the old one was %{was}[, last seen %t{last_seen_ms}])" },
	{ "agent-rename", "%{from} is now %{to}[ (role %{role})]" },
	{ "agent-stale", "%{name} went stale[ (last seen %t{last_seen_ms})]" },
	{ "reserve", "%A reserved %l{globs}[ for %d{ttl_ms}][ (%T)]" },
	{ "unreserve", "%A released %N{released|reservation}" },
	{ "config", "[%?{new}%A set %{key} to %v{new}][%!{new}%A unset "
	  "%{key}][ (it was %v{old})]" },
	{ "web-login", "%A made a dashboard login link, good once until "
	  "%t{expires_ms}" },
	{ "web-revoke", "%A ended every dashboard session" },
	{ "gate-add", "%A added gate #%{gate} for '%{pattern}'[%?{approval}, "
	  "which needs a person's approval][, requiring %l{requires}]" },
	{ "gate-rm", "%A removed gate #%{gate}" },
	{ "approval-request", "%A asked to run '%{command}' (request "
	  "#%{approval})" },
	{ "approve", "%A approved request #%{approval}[ (%{command})][ if "
	  "%{if}]" },
	{ "deny", "%A denied request #%{approval}[ (%{command})][: %{reason}]" },
	{ "approval-used", "%A ran the command of approval #%{approval}" },
	{ "send", "%A sent %N{messages|message} to %{to}" },
	{ "handoff", "%A handed[ the role of %{from_name}][%!{from_name} its "
	  "role] and %N{waits|wait} to[ %{to_name}][%!{to_name} agent #%{to}]" },
	{ "budget-spent", "%A's run stopped launching: its budget is spent "
	  "(%N{tokens|token}, $%{cost})" },
	{ "pause", "%A's run paused[ %d{pause_ms}][ for a %{reason}]"
	  "[%?{extended} more][ after %T]" },
	{ "exit", "the worker of %T[ exited %{exit}][%!{exit} was killed]"
	  "[%?{timed_out} at its timeout][ after %d{duration_ms}][: "
	  "%{outcome}]" },
	{ "resume", "%A's run resumed launching" },
};

#define SENTENCES (sizeof(sentences) / sizeof(sentences[0]))

/* What one template is filled from. */
struct event_fields {
	const char *actor;
	int64_t task;
	const char *title;
	const json_t *detail;
};

/* Whether value counts as set (see the template notes above). */
static bool
is_set(const json_t *value)
{
	if (value == NULL || json_is_null(value) || json_is_false(value))
		return false;
	if (json_is_string(value))
		return *json_string_value(value) != '\0';
	if (json_is_array(value))
		return json_array_size(value) > 0;
	return true;
}

/* Append a number or a string for a person (other values as JSON). */
static void
add_value(struct buf *out, const json_t *value)
{
	char *text;

	if (json_is_string(value)) {
		buf_add_oneline(out, json_string_value(value));
	} else if (json_is_integer(value)) {
		buf_addf(out, "%lld", (long long)json_integer_value(value));
	} else if (json_is_real(value)) {
		buf_addf(out, "%g", json_real_value(value));
	} else if ((text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY))) {
		buf_add_oneline(out, text);
		free(text);
	}
}

/* Append an array's strings joined by ", " (other values as add_value). */
static void
add_list(struct buf *out, const json_t *array)
{
	const json_t *item;
	size_t i;

	json_array_foreach(array, i, item) {
		if (i)
			buf_adds(out, ", ");
		add_value(out, item);
	}
}

/*
 * Fill one placeholder: spec points just after '%'. Appends its text to
 * out, sets *set to whether its field is set (and its requirement holds),
 * and returns the length of the placeholder after '%'.
 */
static size_t
fill(struct buf *out, const char *spec, const struct event_fields *e,
    bool *set)
{
	char type = '\0', key[64], *bar, *eq;
	const char *name = spec, *close;
	const json_t *value;
	size_t len;

	if (*spec == 'A') {
		buf_add_oneline(out, e->actor ? e->actor : "someone");
		*set = true;
		return 1;
	}
	if (*spec == 'T') {
		buf_addf(out, "#%lld", (long long)e->task);
		if (e->title && *e->title) {
			buf_addch(out, ' ');
			buf_add_oneline(out, e->title);
		}
		*set = e->task != 0;
		return 1;
	}
	if (*name != '{')
		type = *name++;
	close = strchr(name, '}');
	len = close ? (size_t)(close - name - 1) : 0;
	if (*name != '{' || close == NULL || len >= sizeof(key)) {
		*set = false; /* a template error: no such placeholder */
		return (size_t)(name - spec);
	}
	memcpy(key, name + 1, len);
	key[len] = '\0';
	bar = strchr(key, '|');
	eq = strchr(key, '=');
	if (bar)
		*bar = '\0';
	if (type == '=' && eq)
		*eq = '\0';
	value = json_object_get(e->detail, key);
	*set = is_set(value);
	switch (type) {
	case '?':
		break;
	case '!':
		*set = !*set;
		break;
	case '=':
		*set = *set && eq && json_is_string(value) &&
		       strcmp(json_string_value(value), eq + 1) == 0;
		break;
	case 'c':
		if (json_is_string(value) && strlen(json_string_value(value)) > 10)
			buf_add(out, json_string_value(value), 10);
		else
			add_value(out, value);
		break;
	case 'd':
		*set = *set && json_integer_value(value) > 0;
		clock_add_duration(out, json_integer_value(value));
		break;
	case 't':
		clock_add_timestamp(out, json_integer_value(value));
		break;
	case 'l':
		add_list(out, value);
		break;
	case 'i':
		for (size_t i = 0; i < json_array_size(value); i++)
			buf_addf(out, "%s#%lld", i ? ", " : "", (long long)
			    json_integer_value(json_array_get(value, i)));
		break;
	case 'v':
		if (json_is_integer(value) && settings_is_duration(json_string_value(
			json_object_get(e->detail, "key"))))
			clock_add_duration(out, json_integer_value(value));
		else if (json_is_array(value))
			add_list(out, value);
		else
			add_value(out, value);
		break;
	case 'N': {
		int64_t count = json_is_array(value)
		    ? (int64_t)json_array_size(value) : json_integer_value(value);

		*set = value != NULL && !json_is_null(value);
		buf_addf(out, "%lld %s%s", (long long)count, bar ? bar + 1 : "",
		    count == 1 ? "" : "s");
		break;
	}
	default:
		add_value(out, value);
		break;
	}
	return (size_t)(close + 1 - spec);
}

/*
 * Append the template text from start to end (a part without brackets).
 * Returns whether every field in it is set; a field that is not set
 * writes '?' when unset_mark.
 */
static bool
fill_part(struct buf *out, const char *start, const char *end,
    const struct event_fields *e, bool unset_mark)
{
	bool all = true;

	for (const char *p = start; p < end; p++) {
		struct buf piece = BUF_INIT;
		bool set, requirement;

		if (*p != '%') {
			buf_addch(out, *p);
			continue;
		}
		/* A requirement (%?, %!, %=) writes nothing, set or not. */
		requirement = p[1] != '\0' && strchr("?!=", p[1]) != NULL;
		p += fill(&piece, p + 1, e, &set);
		if (set || !unset_mark)
			buf_add(out, piece.buf, piece.len);
		else if (!requirement)
			buf_addch(out, '?');
		all &= set;
		buf_release(&piece);
	}
	return all;
}

void
event_text_add(struct buf *out, const char *actor, const char *kind,
    int64_t task, const char *title, const json_t *detail)
{
	struct event_fields e = { actor, task, title, detail };
	const char *text = NULL;

	for (size_t i = 0; i < SENTENCES && text == NULL; i++)
		if (strcmp(sentences[i].kind, kind) == 0)
			text = sentences[i].text;
	if (text == NULL) {
		buf_add_oneline(out, kind);
		if (task)
			buf_addf(out, " on #%lld", (long long)task);
		else if (actor) {
			buf_adds(out, " by ");
			buf_add_oneline(out, actor);
		}
		return;
	}
	while (*text) {
		const char *open = strchr(text, '['), *close;
		struct buf part = BUF_INIT;

		if (open == NULL) {
			fill_part(out, text, text + strlen(text), &e, true);
			break;
		}
		fill_part(out, text, open, &e, true);
		close = strchr(open, ']');
		if (close == NULL)
			close = open + strlen(open);
		if (fill_part(&part, open + 1, close, &e, false))
			buf_add(out, part.buf, part.len);
		buf_release(&part);
		text = *close ? close + 1 : close;
	}
}
