/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A small reader of TOML documents for what daicho needs from other
 * programs' configuration (Codex's config.toml): every string or boolean
 * value with the full path of keys that leads to it, through table
 * headers ([a."b.c"]), dotted keys (a.b = 1) and inline tables
 * ({ k = "v" }). Arrays, arrays of tables, numbers, dates and multi-line
 * strings are skipped, not reported. Malformed lines are skipped: the
 * reader never fails.
 */
#ifndef DAICHO_TOML_H
#define DAICHO_TOML_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strlist.h"

/*
 * Called for each value: keys the path (keys->items[0] the outermost),
 * value the string's content (escapes decoded) or "true"/"false", is_bool
 * which. Both are borrowed for the call.
 */
typedef void toml_value_fn(const struct strlist *keys, const char *value,
    bool is_bool, void *arg);

/* Read text (len bytes), calling fn for each value as described above. */
void toml_each_value(const char *text, size_t len, toml_value_fn *fn,
    void *arg);

#endif
