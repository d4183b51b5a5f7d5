#!/usr/bin/env bats
# The licence: LICENSE is ISC, and every source file of the product, its
# tests and benchmarks carries the copyright line in one form.

load helpers

setup() {
	any_backend "it reads the tree, not a ledger"
	common_setup
}

@test "LICENSE is the ISC licence" {
	run head -3 "$DAICHO_ROOT/LICENSE"
	[ "${lines[0]}" = "ISC License" ] || fail "$output"
	[[ "${lines[1]}" == "Copyright (c) 2026 the daicho authors" ]] || fail "$output"
	grep -q '^THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES' "$DAICHO_ROOT/LICENSE"
}

# mutant: the line dropped from one file, or written another way: that
# file is named.
@test "every C file starts with the copyright line; every script has it after its #! line" {
	local c='/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */'
	local sh='# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).'
	local f bad=()
	cd "$DAICHO_ROOT"
	[ -d .git ] || [ -f .git ] || skip "not a git checkout"
	while IFS= read -r f; do
		case $f in
		*.c | *.h) [ "$(head -1 "$f")" = "$c" ] || bad+=("$f") ;;
		*.sh) [ "$(sed -n "$( [ "$(head -c2 "$f")" = '#!' ] && echo 2 || echo 1 )p" "$f")" = "$sh" ] || bad+=("$f") ;;
		esac
	done < <(git ls-files 'src/*' 'tests/unit/*' 'tests/fuzz/*.c' 'bench/*' 'scripts/*' 'examples/*.sh')
	[ "${#bad[@]}" -eq 0 ] || fail "without the copyright line: ${bad[*]}"
}
