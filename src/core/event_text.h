/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Events as sentences a person reads: "w1 claimed #4 Parse headers",
 * "sweep verified #4 Parse headers: 2 checks passed", "alice approved
 * request #2 (git push)". One function, for every listing that shows
 * events to people ('daicho status', 'events', 'log', 'handoff', and
 * later the web dashboard), so that an event reads the same everywhere.
 *
 * It lives in core, beside the events it describes, because the web
 * dashboard (src/integ) may use core but not the command line layer. It
 * is pure: no SQL, no printing, no terminal codes; the caller decides how
 * to show the text (and escapes it for HTML, say).
 */
#ifndef DAICHO_EVENT_TEXT_H
#define DAICHO_EVENT_TEXT_H

#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"

/*
 * Append to out one sentence, without a final full stop, for the event of
 * kind by actor (an agent name, or NULL when no one is on record) about
 * task (0: none; title its title, or NULL when unknown) with detail (the
 * event's detail object, or NULL). Every kind daicho records has its own
 * sentence, built from the detail's fields (a field missing from an older
 * event is left out); an unknown kind reads "KIND on #ID" ("KIND by
 * ACTOR" when about no task). Text from people and agents (titles,
 * reasons, notes) is put on one line: control characters become '?'.
 */
void event_text_add(struct buf *out, const char *actor, const char *kind,
    int64_t task, const char *title, const json_t *detail);

#endif
