# A git that fails as git itself sometimes does, for tests of how daicho
# copes. Needs $TEST_ROOT.

# fake_worktree_add_failure once|always|other: put first on PATH a git
# whose `worktree add` fails as a lost race with git's own removal of
# .git/worktrees does (exit 128, git's message, and with -b the branch
# already made), the first time only or every time, or (other) fails every
# time for another reason; and which is the real git otherwise. Each worktree add it
# sees is a line in $TEST_ROOT/fakegit/tries.
fake_worktree_add_failure() {
	local real
	real="$(command -v git)"
	mkdir -p "$TEST_ROOT/fakegit"
	cat >"$TEST_ROOT/fakegit/git" <<EOF
#!/bin/sh
case " \$* " in
*" worktree add "*)
	echo try >>"$TEST_ROOT/fakegit/tries"
	if [ "$1" = other ]; then
		echo "fatal: hook post-checkout failed" >&2
		exit 128
	fi
	if [ "$1" = always ] || [ ! -e "$TEST_ROOT/fakegit/failed" ]; then
		: >"$TEST_ROOT/fakegit/failed"
		# Like git: with -b the branch is made first, then the add dies.
		prev= branch= dir=.
		for a in "\$@"; do
			[ "\$prev" = -C ] && dir=\$a
			[ "\$prev" = -b ] && branch=\$a
			prev=\$a
		done
		[ -z "\$branch" ] || "$real" -C "\$dir" branch "\$branch" "\$prev" || exit 1
		echo "fatal: could not create directory of '.git/worktrees/x': No such file or directory" >&2
		exit 128
	fi
	;;
esac
exec "$real" "\$@"
EOF
	chmod +x "$TEST_ROOT/fakegit/git"
	export PATH="$TEST_ROOT/fakegit:$PATH"
}
