/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* The JSONL of `add --batch`, parsed into task specs (see batch.h). */
#include "cmd/batch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/duration.h"

/* Append a JSON value that is a string or an array of strings to list. */
static int
json_strings(struct err *err, size_t line, const char *field,
    json_t *value, struct strlist *list, bool ids_too)
{
	json_t *items = json_is_array(value) ? value : NULL;
	size_t n = items ? json_array_size(items) : 1;

	for (size_t i = 0; i < n; i++) {
		json_t *item = items ? json_array_get(items, i) : value;

		if (json_is_string(item)) {
			strlist_add(list, json_string_value(item));
		} else if (ids_too && json_is_integer(item)) {
			char text[32];

			snprintf(text, sizeof(text), "%lld",
			    (long long)json_integer_value(item));
			strlist_add(list, text);
		} else {
			return err_set(err, ERR_USAGE,
			    "line %zu: '%s' must be %s", line, field,
			    ids_too ? "an array of task ids or keys"
				    : "an array of strings");
		}
	}
	return 0;
}

/* Fill spec from one JSONL object; the spec borrows strings from obj. */
static int
spec_from_json(struct err *err, size_t line, json_t *obj,
    struct task_spec *spec)
{
	const char *field;
	json_t *value;
	int rc;

	spec->line = line;
	json_object_foreach(obj, field, value) {
		if (strcmp(field, "title") == 0 || strcmp(field, "body") == 0 ||
		    strcmp(field, "key") == 0) {
			if (!json_is_string(value))
				return err_set(err, ERR_USAGE,
				    "line %zu: '%s' must be a string", line, field);
			if (field[0] == 't')
				spec->title = json_string_value(value);
			else if (field[0] == 'k')
				spec->key = json_string_value(value);
			else {
				spec->body = json_string_value(value);
				spec->body_bytes = json_string_length(value);
			}
		} else if (strcmp(field, "priority") == 0 ||
			   strcmp(field, "max_attempts") == 0) {
			json_int_t n;

			if (!json_is_integer(value))
				return err_set(err, ERR_USAGE,
				    "line %zu: '%s' must be an integer", line, field);
			n = json_integer_value(value);
			if (field[0] == 'p') {
				spec->priority = n;
			} else {
				if (n < 1 || n > 1000000)
					return err_set(err, ERR_USAGE,
					    "line %zu: 'max_attempts' must be from 1 to "
					    "1000000", line);
				spec->max_attempts = n;
			}
		} else if (strcmp(field, "check_timeout") == 0) {
			int64_t ms;

			if (!json_is_string(value) ||
			    duration_parse(json_string_value(value), &ms) < 0 || ms <= 0)
				return err_set(err, ERR_USAGE,
				    "line %zu: 'check_timeout' must be a duration such as "
				    "\"90s\"", line);
			spec->check_timeout_ms = ms;
		} else if (strcmp(field, "parent") == 0) {
			struct strlist one = STRLIST_INIT;

			if ((rc = json_strings(err, line, field, value, &one, true)) < 0 ||
			    one.count != 1) {
				strlist_release(&one);
				return rc < 0 ? rc : err_set(err, ERR_USAGE,
				    "line %zu: 'parent' must be one task id or key", line);
			}
			free((char *)spec->parent);
			spec->parent = xstrdup(one.items[0]); /* freed by batch_release */
			strlist_release(&one);
		} else if (strcmp(field, "after") == 0) {
			if ((rc = json_strings(err, line, field, value, &spec->after,
				 true)) < 0)
				return rc;
		} else if (strcmp(field, "touches") == 0) {
			if ((rc = json_strings(err, line, field, value, &spec->touches,
				 false)) < 0)
				return rc;
		} else if (strcmp(field, "protect") == 0) {
			if ((rc = json_strings(err, line, field, value, &spec->protects,
				 false)) < 0)
				return rc;
		} else if (strcmp(field, "done_when") == 0) {
			if ((rc = json_strings(err, line, field, value, &spec->checks,
				 false)) < 0)
				return rc;
		} else if (strcmp(field, "labels") == 0) {
			if ((rc = json_strings(err, line, field, value, &spec->labels,
				 false)) < 0)
				return rc;
		} else {
			return err_set(err, ERR_USAGE,
			    "line %zu: unknown field '%s' (fields: title, body, key, "
			    "after, touches, protect, done_when, check_timeout, priority, "
			    "labels, "
			    "max_attempts, parent)", line, field);
		}
	}
	if (spec->title == NULL)
		return err_set(err, ERR_USAGE, "line %zu: missing 'title'", line);
	return 0;
}

int
batch_parse(char *text, size_t len, struct batch *batch, struct err *err)
{
	char *p = text;
	size_t line = 0;
	int rc;

	if (memchr(text, '\0', len))
		return err_set(err, ERR_USAGE, "batch input contains NUL bytes "
		    "(JSONL is text: one JSON object per line)");
	while (*p) {
		char *end = strchr(p, '\n');
		json_error_t jerr;
		json_t *obj;

		line++;
		if (end)
			*end = '\0';
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p != '\0') {
			obj = json_loads(p, JSON_REJECT_DUPLICATES, &jerr);
			if (obj == NULL || !json_is_object(obj)) {
				json_decref(obj);
				return obj ? err_set(err, ERR_USAGE,
				    "line %zu: not a JSON object", line)
					   : err_set(err, ERR_USAGE,
				    "line %zu: invalid JSON (%s at column %d)", line,
				    jerr.text, jerr.column);
			}
			if (batch->count == batch->alloc) {
				/* Both arrays grow to the same capacity. */
				size_t alloc = batch->alloc;

				xgrow((void **)&batch->specs, &alloc,
				    batch->count + 1, sizeof(*batch->specs));
				xgrow((void **)&batch->objects, &batch->alloc,
				    batch->count + 1, sizeof(*batch->objects));
			}
			batch->objects[batch->count] = obj;
			memset(&batch->specs[batch->count], 0,
			    sizeof(*batch->specs));
			batch->count++;
			if ((rc = spec_from_json(err, line, obj,
				 &batch->specs[batch->count - 1])) < 0)
				return rc;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	if (batch->count == 0)
		return err_set(err, ERR_USAGE,
		    "no tasks in the batch (one JSON object per line)");
	return 0;
}

void
batch_release(struct batch *batch)
{
	for (size_t i = 0; i < batch->count; i++) {
		free((char *)batch->specs[i].parent);
		task_spec_release(&batch->specs[i]);
		json_decref(batch->objects[i]);
	}
	free(batch->specs);
	free(batch->objects);
	*batch = (struct batch)BATCH_INIT;
}
