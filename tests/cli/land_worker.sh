#!/bin/sh
# A scripted worker for 'daicho run --worktree' in land_pipeline.bats: $1 is
# the task's id; it runs in the task's worktree. The task's prompt says what
# to do, a line each:
#   write FILE TEXT   FILE holds the line TEXT
#   append FILE TEXT  the line TEXT is added at the end of FILE
#   caller FILE       FILE calls the function lib.sh defines, whatever its name
#   rename OLD NEW    OLD becomes NEW in lib.sh and main.sh
#   nothing           a faker: no work, the trunk as it is now reported as done
# A task sent back from landing (its prompt says so after a line '---') is
# redone from the trunk as it is now, as its prompt tells it.
set -eu
id=$1
prompt=$(daicho prompt "$id")
trunk=$(git rev-parse main)
if printf '%s\n' "$prompt" | grep -q '^Sent back from landing'; then
	git reset -q --hard "$trunk"
fi
if printf '%s\n' "$prompt" | grep -qx nothing; then
	git reset -q --hard "$trunk"
	daicho report "$id" --commit HEAD
	exit 0
fi
printf '%s\n' "$prompt" | sed '/^---$/,$d' >"../.ops.$id"
while read -r op file rest; do
	case $op in
	write)
		mkdir -p "$(dirname "$file")"
		printf '%s\n' "$rest" >"$file"
		;;
	append) printf '%s\n' "$rest" >>"$file" ;;
	caller)
		fn=$(sed -n 's/^\([a-z]*\)() .*/\1/p' lib.sh)
		printf '. ./lib.sh\n%s\n' "$fn" >"$file"
		;;
	rename) sed -i "s/$file/$rest/g" lib.sh main.sh ;;
	esac
done <"../.ops.$id"
rm -f "../.ops.$id"
git add -A
git commit -qm "task $id"
daicho report "$id" --commit HEAD
