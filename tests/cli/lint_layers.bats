#!/usr/bin/env bats
# tests/lint-layers, which make check runs first: an include of a higher
# layer, an include between side-by-side layers, the store reaching into
# core, and a circle of includes are each refused; the tree passes.

load helpers

setup() {
	any_backend "it reads the source, not a ledger"
	common_setup
	LINT="$DAICHO_ROOT/tests/lint-layers"
	cp -r "$DAICHO_ROOT/src" "$TEST_ROOT/src"
}

# plant FILE LINE: add LINE after FILE's first include (FILE under src/).
plant() {
	sed -i "0,/^#include/s||$2\n#include|" "$TEST_ROOT/src/$1"
}

@test "lint-layers: the tree as it is passes" {
	run "$LINT" "$TEST_ROOT"
	assert_success
	assert_output ""
}

@test "lint-layers: util including core is refused, naming the file and line" {
	plant util/buf.c '#include "core/ledger.h"'
	run "$LINT" "$TEST_ROOT"
	assert_failure
	assert_line --regexp '^src/util/buf\.c:[0-9]+: util includes core/ledger\.h, of a higher layer$'
}

@test "lint-layers: core including cmd, and run including integ (side by side), are refused" {
	plant core/task.c '#include "cmd/cmd.h"'
	plant run/runner.c '#include "integ/hook.h"'
	run "$LINT" "$TEST_ROOT"
	assert_failure
	assert_line --regexp '^src/core/task\.c:[0-9]+: core includes cmd/cmd\.h, of a higher layer$'
	assert_line --regexp '^src/run/runner\.c:[0-9]+: run includes integ/hook\.h: run and integ are side by side$'
}

@test "lint-layers: a driver may include core/err.h, never core/ledger.h" {
	plant store/sqlite/open.c '#include "core/err.h"'
	run "$LINT" "$TEST_ROOT"
	assert_success
	plant store/sqlite/open.c '#include "core/ledger.h"'
	run "$LINT" "$TEST_ROOT"
	assert_failure
	assert_output --regexp '^src/store/sqlite/open\.c:[0-9]+: the store includes core/ledger\.h \(of core it may include only core/err\.h and core/version\.h\)$'
}

@test "lint-layers: a circle of includes among core's files is refused; the dashboard's pages may call each other" {
	plant core/task.c '#include "core/verify.h"'
	run "$LINT" "$TEST_ROOT"
	assert_failure
	assert_output --regexp '^src: a circle of includes: .*core/task -> .*core/verify'
	cp -r "$DAICHO_ROOT/src/core/task.c" "$TEST_ROOT/src/core/task.c"
	plant serve/html.c '#include "serve/serve.h"'
	plant serve/serve.c '#include "serve/html.h"'
	run "$LINT" "$TEST_ROOT"
	assert_success
}
