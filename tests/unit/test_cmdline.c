/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for shell/cmdline: splitting shell command lines into simple
 * commands and words, unwrapping wrappers, matching gate patterns, and
 * fingerprints for approvals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/cmdline.h"

/*
 * The commands of line as text: words joined by ',', commands by " / ",
 * so "git push 'a b'" gives "git,push,a b". The caller frees it.
 */
static char *
commands_text(const struct cmdline *line)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < line->count; i++) {
		const struct strlist *words = &line->commands[i].words;

		if (i > 0)
			buf_adds(&b, " / ");
		for (size_t j = 0; j < words->count; j++) {
			if (j > 0)
				buf_addch(&b, ',');
			buf_adds(&b, words->items[j]);
		}
	}
	return buf_detach(&b, NULL);
}

/* Split text, which must succeed, and compare its commands_text(). */
static void
expect_split(const char *text, const char *want)
{
	struct cmdline line = CMDLINE_INIT;
	struct buf why = BUF_INIT;
	char *got;
	int rc = cmdline_parse(text, &line, &why);

	if (rc != 0)
		fail_msg("cmdline_parse(\"%s\") = %d (%s), want 0", text, rc,
		    why.buf);
	assert_false(line.incomplete);
	got = commands_text(&line);
	if (strcmp(got, want) != 0)
		fail_msg("cmdline_parse(\"%s\")\n  got:  %s\n  want: %s", text,
		    got, want);
	free(got);
	cmdline_release(&line);
	buf_release(&why);
}

/* Split text, which must fail with a reason appended after a prefix. */
static void
expect_unterminated(const char *text)
{
	struct cmdline line = CMDLINE_INIT;
	struct buf why = BUF_INIT;
	struct strlist pattern = STRLIST_INIT;

	buf_adds(&why, "prefix: ");
	if (cmdline_parse(text, &line, &why) != -1)
		fail_msg("cmdline_parse(\"%s\") succeeded, want -1", text);
	assert_true(why.len > strlen("prefix: "));
	assert_memory_equal(why.buf, "prefix: ", strlen("prefix: "));
	assert_null(memchr(why.buf, '\n', why.len));
	assert_true(line.incomplete);
	/* Fails closed: every gate matches. */
	strlist_add(&pattern, "nothing-like-it");
	assert_true(cmdline_matches(&pattern, &line));
	strlist_release(&pattern);
	cmdline_release(&line);
	buf_release(&why);
}

/* Whether the gate pattern (which must be valid) matches the line text. */
static bool
matches(const char *pattern, const char *text)
{
	struct strlist words = STRLIST_INIT;
	struct cmdline line = CMDLINE_INIT;
	struct buf why = BUF_INIT;
	bool result;

	if (cmdline_pattern_check(pattern, &words, &why) != 0)
		fail_msg("cmdline_pattern_check(\"%s\"): %s", pattern, why.buf);
	if (cmdline_parse(text, &line, &why) != 0)
		fail_msg("cmdline_parse(\"%s\"): %s", text, why.buf);
	result = cmdline_matches(&words, &line);
	strlist_release(&words);
	cmdline_release(&line);
	buf_release(&why);
	return result;
}

/* The fingerprint of text run in cwd; the caller frees it. */
static char *
fingerprint(const char *text, const char *cwd)
{
	struct cmdline line = CMDLINE_INIT;
	struct buf out = BUF_INIT;

	assert_int_equal(cmdline_parse(text, &line, NULL), 0);
	cmdline_fingerprint(&line, cwd, &out);
	cmdline_release(&line);
	return buf_detach(&out, NULL);
}

static bool
same_fingerprint(const char *a, const char *b)
{
	char *fa = fingerprint(a, "/repo"), *fb = fingerprint(b, "/repo");
	bool same = strcmp(fa, fb) == 0;

	free(fa);
	free(fb);
	return same;
}

/*
 * Split text, which must succeed; the first unresolved reason among its
 * commands, or NULL, must be want (a static string, compared by text).
 */
static void
expect_unresolved(const char *text, const char *want)
{
	struct cmdline line = CMDLINE_INIT;
	const char *got = NULL;

	if (cmdline_parse(text, &line, NULL) != 0)
		fail_msg("cmdline_parse(\"%s\") failed", text);
	for (size_t i = 0; i < line.count && got == NULL; i++)
		got = line.commands[i].unresolved;
	if ((got == NULL) != (want == NULL) ||
	    (got != NULL && strcmp(got, want) != 0))
		fail_msg("cmdline_parse(\"%s\")\n  unresolved: %s\n  want: %s",
		    text, got ? got : "(none)", want ? want : "(none)");
	cmdline_release(&line);
}

/* Split text; its environment changes joined by ',' must be want. */
static void
expect_environment(const char *text, const char *want)
{
	struct cmdline line = CMDLINE_INIT;
	struct buf got = BUF_INIT;

	if (cmdline_parse(text, &line, NULL) != 0)
		fail_msg("cmdline_parse(\"%s\") failed", text);
	for (size_t i = 0; i < line.environment.count; i++)
		buf_addf(&got, "%s%s", i ? "," : "", line.environment.items[i]);
	if (strcmp(got.buf, want) != 0)
		fail_msg("cmdline_parse(\"%s\")\n  environment: %s\n  want: %s",
		    text, got.buf, want);
	buf_release(&got);
	cmdline_release(&line);
}

/*
 * Whether the command of text whose program is program gets arguments
 * added when it runs.
 */
static bool
arguments_added(const char *text, const char *program)
{
	struct cmdline line = CMDLINE_INIT;
	bool added = false, found = false;

	assert_int_equal(cmdline_parse(text, &line, NULL), 0);
	for (size_t i = 0; i < line.count; i++)
		if (strcmp(line.commands[i].words.items[0], program) == 0) {
			found = true;
			added = line.commands[i].arguments_added;
		}
	if (!found)
		fail_msg("no command %s in \"%s\"", program, text);
	cmdline_release(&line);
	return added;
}

static void
test_quoting(void **state)
{
	expect_split("'git' \"push\" g\\it", "git,push,git");
	expect_split("git commit -m 'a b'", "git,commit,-m,a b");
	expect_split("git commit -m \"a  b\"", "git,commit,-m,a  b");
	expect_split("echo 'a'\"b\"c\\ d", "echo,abc d");
	expect_split("echo '' \"\" x", "echo,,,x");
	expect_split("echo 'it'\\''s'", "echo,it's");
	expect_split("echo \"say \\\"hi\\\" \\\\ \\$HOME \\`x\\` \\n\"",
	    "echo,say \"hi\" \\ $HOME `x` \\n");
	expect_split("echo '$HOME \\n \"x\"'", "echo,$HOME \\n \"x\"");
	/* ANSI-C quotes decode their escapes: no way around a gate. */
	expect_split("$'\\x67it' push", "git,push");
	expect_split("$'\\147it' $'pu\\u0073h'", "git,push");
	expect_split("echo $'a\\tb' $'it\\'s'", "echo,a\tb,it's");
	expect_split("echo $\"x y\"", "echo,x y");
	/* A lone trailing backslash stays. */
	expect_split("echo a\\", "echo,a\\");
	/* Expansions are kept as written, not expanded. */
	expect_split("git push $REMOTE \"${BRANCH:-main}\"",
	    "git,push,$REMOTE,${BRANCH:-main}");
}

static void
test_blanks_and_continuations(void **state)
{
	expect_split("  git \t push   --force  ", "git,push,--force");
	expect_split("git \\\npush", "git,push");
	expect_split("git pu\\\nsh", "git,push");
	expect_split("git push \"a\\\nb\"", "git,push,ab");
	expect_split("", "");
	expect_split("   \t\n\n  ", "");
	/* \r is an ordinary character, as in sh. */
	expect_split("ls\r", "ls\r");
}

static void
test_operators(void **state)
{
	expect_split("make test && git push --force",
	    "make,test / git,push,--force");
	expect_split("a|b", "a / b");
	expect_split("a;b", "a / b");
	expect_split("a\nb", "a / b");
	expect_split("a &b", "a / b");
	expect_split("a||b&&c", "a / b / c");
	expect_split("a |& b", "a / b");
	expect_split("x | \\\ny", "x / y");
	expect_split("(cd sub && git push)", "cd,sub / git,push");
	expect_split("{ git push; }", "git,push");
	/* Reserved words are dropped where a command starts. */
	expect_split("if git push --force; then echo ok; else false; fi",
	    "git,push,--force / echo,ok / false");
	expect_split("while true; do git push; done", "true / git,push");
	expect_split("! git push", "git,push");
	/* ...but not elsewhere. */
	expect_split("echo if then }", "echo,if,then,}");
	expect_split("case x in a) git push;; b|c) rm x;; esac",
	    "case,x,in,a / git,push / b / c / rm,x");
	expect_split("f() { git push; }; f", "f / git,push / f");
}

static void
test_comments(void **state)
{
	expect_split("git push # --force", "git,push");
	expect_split("# git push --force\nls", "ls");
	expect_split("echo a#b '#c' \\#d", "echo,a#b,#c,#d");
	expect_split("a;#b\nc", "a / c");
}

static void
test_redirections(void **state)
{
	expect_split("git push > out.txt 2>&1 <in", "git,push");
	expect_split("git push >out.txt", "git,push");
	expect_split("echo hi >>log; echo x 2> /dev/null",
	    "echo,hi / echo,x");
	expect_split("cmd &>log; cmd &>>log 3<&0 <>f >|g 2>&-",
	    "cmd / cmd");
	expect_split(">out git push", "git,push");
	/* A number not touching the operator is a word. */
	expect_split("echo 2 > x", "echo,2");
	expect_split("echo '2'>x", "echo,2");
	expect_split("cat < <(git log)", "git,log / cat");
	expect_unterminated("cmd >");
	expect_unterminated("cmd 2>&1 |&>");
}

static void
test_here_documents(void **state)
{
	/* The body is data: quotes in it do not matter. */
	expect_split("cat <<'EOF' > notes\nDon't git push --force\nEOF\nls",
	    "cat / ls");
	expect_split("cat <<EOF\n\"unbalanced\nEOF", "cat");
	/* The way agents write commit messages. */
	expect_split("git commit -m \"$(cat <<'EOF'\nIt's done.\n\nMore "
		     "(really).\nEOF\n)\" && git push",
	    "cat / git,commit,-m,$(cat <<'EOF'\nIt's done.\n\nMore "
	    "(really).\nEOF\n) / git,push");
	/* <<- strips tabs; an unquoted body runs its substitutions. */
	expect_split("cat <<-\tEOF\n\thi $(whoami)\n\tEOF\necho done",
	    "cat / whoami / echo,done");
	expect_split("cat <<EOF\n`rm -rf /`\nEOF", "cat / rm,-rf,/");
	expect_split("cat <<'EOF'\n$(rm -rf /)\nEOF", "cat");
	/* A shell reading the body runs it. */
	expect_split("bash <<'EOF'\ngit push --force\nEOF",
	    "bash / git,push,--force");
	expect_split("cat <<'EOF' | sh\nrm -rf /\nEOF", "cat / sh / rm,-rf,/");
	expect_split("bash <<< 'git push --force'", "bash / git,push,--force");
	expect_split("cat <<< 'git push --force'", "cat");
	/* Two here-documents on one line, then an unterminated one. */
	expect_split("cat <<A <<B\na\nA\nb\nB\nls\ncat <<C\nno end",
	    "cat / ls / cat");
	expect_unterminated("bash <<'EOF'\necho 'oops\nEOF");
	assert_true(matches("git push *", "bash <<'EOF'\ngit push\nEOF"));
	assert_false(matches("git push *", "cat <<'EOF'\ngit push\nEOF"));
}

static void
test_substitutions(void **state)
{
	expect_split("echo $(git push --force)",
	    "git,push,--force / echo,$(git push --force)");
	expect_split("echo `git push --force`",
	    "git,push,--force / echo,`git push --force`");
	expect_split("echo \"$(git push)\" \"`rm x`\"",
	    "git,push / rm,x / echo,$(git push),`rm x`");
	expect_split("a=\"$(b \"$(c)\")\"", "c / b,$(c)");
	expect_split("echo ${x:-$(rm -rf /)}",
	    "rm,-rf,/ / echo,${x:-$(rm -rf /)}");
	expect_split("echo `echo \\`git push\\``",
	    "git,push / echo,`git push` / echo,`echo \\`git push\\``");
	expect_split("diff <(git show a) >(cat)",
	    "git,show,a / cat / diff,<(git show a),>(cat)");
	expect_split("echo $((1 + 2))", "1,+,2 / echo,$((1 + 2))");
	expect_split("echo \"$(case x in a) rm -rf /;; esac)\"",
	    "case,x,in,a / rm,-rf,/ / echo,$(case x in a) rm -rf /;; esac)");
	expect_split("echo $(echo ')')", "echo,) / echo,$(echo ')')");
	assert_true(matches("git push --force*", "echo $(git push --force)"));
	assert_true(matches("rm *", "x=`rm -rf /`"));
}

static void
test_assignments(void **state)
{
	expect_split("FOO=1 BAR=2 git push", "git,push");
	expect_split("A[0]=x B+=y git push", "git,push");
	expect_split("FOO=1", "");
	expect_split("git push FOO=1", "git,push,FOO=1");
	expect_split("1FOO=1 git", "1FOO=1,git");
}

static void
test_wrappers(void **state)
{
	expect_split("sudo -u root git push --force",
	    "git,push,--force / sudo,-u,root,git,push,--force");
	expect_split("sudo -E -u root -- git push",
	    "git,push / sudo,-E,-u,root,--,git,push");
	expect_split("sudo --user=root FOO=1 git push",
	    "git,push / sudo,--user=root,FOO=1,git,push");
	expect_split("env FOO=1 git push -f",
	    "git,push,-f / env,FOO=1,git,push,-f");
	expect_split("env -i -u HOME - PATH=/bin git push",
	    "git,push / env,-i,-u,HOME,-,PATH=/bin,git,push");
	expect_split("env -S 'git push --force'",
	    "git,push,--force / env,-S,git push --force");
	expect_split("timeout 10 git push --force",
	    "git,push,--force / timeout,10,git,push,--force");
	expect_split("timeout -s KILL --kill-after=5 10s git push",
	    "git,push / timeout,-s,KILL,--kill-after=5,10s,git,push");
	expect_split("nice -n 5 nohup git push",
	    "git,push / nice,-n,5,nohup,git,push / nohup,git,push");
	expect_split("nice -10 git push", "git,push / nice,-10,git,push");
	expect_split("time -p git push", "git,push / time,-p,git,push");
	expect_split("command git push", "git,push / command,git,push");
	expect_split("exec -a name git push",
	    "git,push / exec,-a,name,git,push");
	expect_split("xargs -0 -n 1 -I{} git push {}",
	    "git,push,{} / xargs,-0,-n,1,-I{},git,push,{}");
	expect_split("stdbuf -oL ionice -c 3 git push",
	    "git,push / stdbuf,-oL,ionice,-c,3,git,push / "
	    "ionice,-c,3,git,push");
	expect_split("doas -u root git push",
	    "git,push / doas,-u,root,git,push");
	/* A wrapper with nothing to run is a command of its own. */
	expect_split("sudo -l", "sudo,-l");
	expect_split("timeout 10", "timeout,10");
	/* Wrapper programs by path. */
	expect_split("/usr/bin/sudo /usr/bin/git push",
	    "git,push / sudo,/usr/bin/git,push");
	/* A gate on the wrapper itself still sees it. */
	assert_true(matches("sudo *", "sudo -u root git push"));
	assert_true(matches("nohup *", "nice nohup make"));
}

static void
test_commands_run_by_commands(void **state)
{
	expect_split("bash -c 'git push --force origin'",
	    "bash,-c,git push --force origin / git,push,--force,origin");
	expect_split("sh -lc 'cd x && git merge y'",
	    "sh,-lc,cd x && git merge y / cd,x / git,merge,y");
	expect_split("bash -o pipefail -ec 'git push -f' name arg",
	    "bash,-o,pipefail,-ec,git push -f,name,arg / git,push,-f");
	expect_split("sudo bash -c \"sh -c 'git push'\"",
	    "bash,-c,sh -c 'git push' / sudo,bash,-c,sh -c 'git push' / "
	    "sh,-c,git push / git,push");
	expect_split("/bin/zsh -c 'rm -rf /'", "zsh,-c,rm -rf / / rm,-rf,/");
	expect_split("bash script.sh", "bash,script.sh");
	expect_split("eval git push --force",
	    "eval,git,push,--force / git,push,--force");
	expect_split("su root -c 'rm -rf /'", "su,root,-c,rm -rf / / rm,-rf,/");
	expect_split("ssh -p 22 host 'git push --force'",
	    "ssh,-p,22,host,git push --force / git,push,--force");
	expect_split("find . -name '*.o' -exec rm -f {} \\; -print",
	    "find,.,-name,*.o,-exec,rm,-f,{},;,-print / rm,-f,{}");
	/* A malformed string fails closed. */
	expect_unterminated("bash -c 'echo \"'");
}

static void
test_program_basename(void **state)
{
	expect_split("/usr/bin/git push", "git,push");
	expect_split("./git push", "git,push");
	expect_split("git /usr/bin/push", "git,/usr/bin/push");
	expect_split("dir/ x", "dir/,x");
	assert_true(matches("git push", "/usr/local/bin/git push"));
	assert_true(matches("/usr/bin/git push", "git push"));
}

static void
test_unterminated(void **state)
{
	expect_unterminated("git push 'x");
	expect_unterminated("git push \"x");
	expect_unterminated("git push \"x'");
	expect_unterminated("echo $(git push");
	expect_unterminated("echo \"$(git push\"");
	expect_unterminated("echo `git push");
	expect_unterminated("echo ${x");
	expect_unterminated("echo $'x");
	expect_unterminated("echo $(echo 'x)");
	expect_unterminated("echo \"${x:-'}\"'");
}

static void
test_nesting_limit(void **state)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct cmdline line = CMDLINE_INIT;
	int i;

	for (i = 0; i < 10000; i++)
		buf_adds(&text, "$(");
	buf_adds(&text, "x");
	for (i = 0; i < 10000; i++)
		buf_addch(&text, ')');
	assert_int_equal(cmdline_parse(text.buf, &line, &why), -1);
	assert_true(line.incomplete);
	cmdline_release(&line);
	buf_reset(&text);
	for (i = 0; i < 10000; i++)
		buf_adds(&text, "nohup ");
	buf_adds(&text, "git push");
	assert_int_equal(cmdline_parse(text.buf, &line, &why), -1);
	cmdline_release(&line);
	/* Moderate nesting is fine. */
	buf_reset(&text);
	for (i = 0; i < 20; i++)
		buf_adds(&text, "$(");
	buf_adds(&text, "git push");
	for (i = 0; i < 20; i++)
		buf_addch(&text, ')');
	buf_reset(&why);
	assert_int_equal(cmdline_parse(text.buf, &line, &why), 0);
	assert_false(line.incomplete);
	cmdline_release(&line);
	buf_release(&text);
	buf_release(&why);
}

static void
test_match_basic(void **state)
{
	assert_true(matches("git push --force*", "git push --force"));
	assert_true(matches("git push --force*",
	    "git push --force-with-lease"));
	assert_true(matches("git push --force*", "'git' \"push\" --for\\ce"));
	assert_true(matches("git push --force*",
	    "make test && git push --force"));
	assert_true(matches("git push --force*", "a | git push --force"));
	assert_true(matches("git push --force*", "ls;git push --force"));
	assert_true(matches("git push --force*", "ls\ngit push --force"));
	assert_true(matches("git push --force*",
	    "git push --force > log 2>&1"));
	assert_true(matches("git push --force*", "FOO=1 git push --force"));
	assert_true(matches("git push --force*",
	    "sudo -u root git push --force"));
	assert_true(matches("git push -f", "env FOO=1 git push -f"));
	assert_true(matches("git push --force*",
	    "timeout 10 git push --force"));
	assert_true(matches("git push --force*",
	    "bash -c 'git push --force origin'"));
	assert_true(matches("git push --force*", "/usr/bin/git push --force"));
	assert_true(matches("psql *prod*", "psql -h db.prod.internal"));
	assert_true(matches("psql *prod*", "psql postgres://x/prod_db"));
	assert_false(matches("psql *prod*", "psql -h staging"));
}

static void
test_match_subsequence(void **state)
{
	assert_true(matches("git push --force*",
	    "git push origin main --force"));
	assert_true(matches("git push --force*",
	    "git -C repo push --force-with-lease"));
	assert_true(matches("git push --force*",
	    "git -c user.name=x push -v --force origin"));
	/* In order, and distinct words. */
	assert_false(matches("git push --force*", "git --force push"));
	assert_false(matches("git push push", "git push"));
	assert_true(matches("git push push", "git push x push"));
	/* A whole word, not a substring. */
	assert_false(matches("git push", "git pushy"));
	assert_false(matches("git push --force*",
	    "git commit -m 'push --force later'"));
	/* A lone * in the middle is one word. */
	assert_true(matches("git * --force", "git push --force"));
	assert_false(matches("git * --force", "git --force"));
}

static void
test_match_trailing_star(void **state)
{
	assert_true(matches("git merge *", "git merge"));
	assert_true(matches("git merge *", "git merge feature"));
	assert_true(matches("git merge *", "git merge --no-ff a b"));
	assert_false(matches("git merge *", "git rebase"));
	assert_true(matches("git *", "git"));
	assert_true(matches("*", "anything at all"));
	assert_true(matches("* --force", "whatever --force"));
	assert_false(matches("* --force", "whatever -f"));
	/* Globs span '/': no FNM_PATHNAME. */
	assert_true(matches("rm -rf *", "rm -rf /"));
	assert_true(matches("cat *secret*", "cat /etc/secrets/key"));
}

static void
test_match_option_value(void **state)
{
	assert_true(matches("git push --force-with-lease",
	    "git push --force-with-lease=main:abc"));
	assert_true(matches("git push --force*",
	    "git push --force-with-lease=main"));
	assert_true(matches("curl --data", "curl --data=x http://h"));
	assert_true(matches("git push --repo=*", "git push --repo=x"));
	assert_false(matches("git push --repo", "git push --repository=x"));
	/* Only option words are split at '='. */
	assert_false(matches("make FOO", "make FOO=1"));
}

static void
test_match_non_matches(void **state)
{
	assert_false(matches("git push *", "git pull"));
	assert_false(matches("git push --force*", "git push origin main"));
	/* echo is the program: its arguments are not a command. */
	assert_false(matches("git push --force*", "echo git push --force"));
	assert_false(matches("git push --force*",
	    "echo 'git push --force' | cat"));
	/* Combined short flags are not expanded (documented). */
	assert_false(matches("git push --force*", "git push -f"));
	assert_false(matches("git push -f", "git push -fu origin"));
	/* Comments and here-document bodies do not run. */
	assert_false(matches("git push --force*", "git push # --force"));
	/* Case matters. */
	assert_false(matches("git push", "GIT push"));
}

static void
test_patterns(void **state)
{
	struct strlist words = STRLIST_INIT;
	struct buf why = BUF_INIT;

	assert_int_equal(cmdline_pattern_check("  git  'commit' -m \"fix *\"",
	    &words, &why), 0);
	assert_int_equal(why.len, 0);
	assert_int_equal(words.count, 4);
	assert_string_equal(words.items[0], "git");
	assert_string_equal(words.items[1], "commit");
	assert_string_equal(words.items[3], "fix *");
	strlist_release(&words);
	assert_int_equal(cmdline_pattern_check("/usr/bin/git push", &words,
	    &why), 0);
	assert_string_equal(words.items[0], "git");
	strlist_release(&words);
	/* Quoted glob characters stay glob characters. */
	assert_true(matches("psql '*prod*'", "psql -h prod1"));
	assert_true(matches("git commit -m \"fix *\"",
	    "git commit -m 'fix the bug'"));
	assert_false(matches("git commit -m \"fix *\"", "git commit -m fix"));
	/* [*] is a literal star. */
	assert_true(matches("rm [*]", "rm '*'"));
	assert_false(matches("rm [*]", "rm x"));
	/* Reserved words and wrappers in a pattern are words like any. */
	assert_true(matches("time *", "time make"));
	assert_true(matches("env *", "env FOO=1 make"));
	buf_release(&why);
}

static void
expect_pattern_refused(const char *pattern)
{
	struct strlist words = STRLIST_INIT;
	struct buf why = BUF_INIT;

	strlist_add(&words, "kept");
	buf_adds(&why, "prefix: ");
	if (cmdline_pattern_check(pattern, &words, &why) != -1)
		fail_msg("cmdline_pattern_check(\"%s\") accepted", pattern);
	assert_true(why.len > strlen("prefix: "));
	assert_memory_equal(why.buf, "prefix: ", strlen("prefix: "));
	assert_null(memchr(why.buf, '\n', why.len));
	/* words is left alone. */
	assert_int_equal(words.count, 1);
	assert_string_equal(words.items[0], "kept");
	strlist_release(&words);
	buf_release(&why);
}

static void
test_pattern_refusals(void **state)
{
	expect_pattern_refused("");
	expect_pattern_refused("   \t ");
	expect_pattern_refused("git push 'x");
	expect_pattern_refused("git push \"x");
	expect_pattern_refused("git push; rm x");
	expect_pattern_refused("git push && x");
	expect_pattern_refused("git push | tee");
	expect_pattern_refused("git push &");
	expect_pattern_refused("git push\nrm");
	expect_pattern_refused("(git push)");
	expect_pattern_refused("git push > log");
	expect_pattern_refused("git push 2>&1");
	expect_pattern_refused("cat <<EOF");
	expect_pattern_refused("echo $(git push)");
	expect_pattern_refused("echo `git push`");
	expect_pattern_refused("diff <(a) b");
	expect_pattern_refused("git push # comment");
	/* Quoted, these are ordinary characters. */
	assert_true(matches("echo ';' '>' '#x'", "echo ';' '>' '#x'"));
}

static void
test_fingerprint(void **state)
{
	char *f;

	/* However quoted or spaced. */
	assert_true(same_fingerprint("git push --force",
	    "  'git'  \"push\"\t--f\\orce  "));
	assert_true(same_fingerprint("git commit -m 'a b'",
	    "git commit -m \"a b\""));
	assert_true(same_fingerprint("git commit -m 'a b'",
	    "git commit -m a\\ b"));
	assert_true(same_fingerprint("a && b", "a&&b"));
	assert_true(same_fingerprint("a\nb", "a; b"));
	assert_true(same_fingerprint("a\n\n b\n", "a;b;"));
	assert_true(same_fingerprint("git push # why", "git push"));
	assert_true(same_fingerprint("ls >out 2>&1", "ls > out 2>& 1"));
	assert_true(same_fingerprint("echo \"$HOME\"x", "echo \"$HOME\"'x'"));
	/* Different words, operators, quoting meaning or directory. */
	assert_false(same_fingerprint("git push --force", "git push -f"));
	assert_false(same_fingerprint("git push", "git push origin"));
	assert_false(same_fingerprint("a b", "'a b'"));
	assert_false(same_fingerprint("a && b", "a || b"));
	assert_false(same_fingerprint("rm *", "rm '*'"));
	assert_false(same_fingerprint("rm $x", "rm \"$x\""));
	assert_false(same_fingerprint("rm $x", "rm '$x'"));
	assert_false(same_fingerprint("echo $ab", "echo $a'b'"));
	assert_false(same_fingerprint("git push", "sudo git push"));
	assert_false(same_fingerprint("git push", "GIT_SSH=x git push"));
	assert_false(same_fingerprint("psql < a.sql", "psql < b.sql"));
	assert_false(same_fingerprint("psql <<'EOF'\nselect 1\nEOF",
	    "psql <<'EOF'\ndrop table x\nEOF"));
	assert_false(same_fingerprint("cat <<EOF\n$x\nEOF",
	    "cat <<'EOF'\n$x\nEOF"));
	assert_false(same_fingerprint("echo 'a\nb'", "echo a; b"));
	f = fingerprint("git push", "/a");
	assert_string_equal(f, "[\"git\",\"push\"]\n/a");
	free(f);
	f = fingerprint("git commit -m \"it's \\\"x\\\"\"", "/a");
	assert_string_equal(f,
	    "[\"git\",\"commit\",\"-m\",\"'it'\\\\''s \\\"x\\\"'\"]\n/a");
	free(f);
	{
		char *a = fingerprint("git push", "/a");
		char *b = fingerprint("git push", "/b");

		assert_string_not_equal(a, b);
		free(a);
		free(b);
	}
	/* Unsplittable lines differ from each other too. */
	{
		struct cmdline x = CMDLINE_INIT, y = CMDLINE_INIT;
		struct buf fx = BUF_INIT, fy = BUF_INIT;

		assert_int_equal(cmdline_parse("rm 'a", &x, NULL), -1);
		assert_int_equal(cmdline_parse("rm 'b", &y, NULL), -1);
		cmdline_fingerprint(&x, "/", &fx);
		cmdline_fingerprint(&y, "/", &fy);
		assert_string_not_equal(fx.buf, fy.buf);
		cmdline_release(&x);
		cmdline_release(&y);
		buf_release(&fx);
		buf_release(&fy);
	}
}

static void
test_from_argv(void **state)
{
	const char *argv1[] = { "/usr/bin/sudo", "git", "push", "--force" };
	const char *argv2[] = { "bash", "-c", "git push --force origin" };
	const char *argv3[] = { "git", "commit", "-m", "a b" };
	const char *argv4[] = { "sh", "-c", "echo 'x" };
	struct cmdline line = CMDLINE_INIT, parsed = CMDLINE_INIT;
	struct strlist pattern = STRLIST_INIT;
	struct buf a = BUF_INIT, b = BUF_INIT, why = BUF_INIT;
	char *text;

	assert_int_equal(cmdline_pattern_check("git push --force*", &pattern,
	    &why), 0);
	cmdline_from_argv(argv1, 4, &line);
	text = commands_text(&line);
	assert_string_equal(text, "git,push,--force / sudo,git,push,--force");
	free(text);
	assert_true(cmdline_matches(&pattern, &line));
	cmdline_release(&line);

	cmdline_from_argv(argv2, 3, &line);
	text = commands_text(&line);
	assert_string_equal(text,
	    "bash,-c,git push --force origin / git,push,--force,origin");
	free(text);
	assert_true(cmdline_matches(&pattern, &line));
	cmdline_release(&line);

	/* An argv fingerprints like the same words typed with quotes. */
	cmdline_from_argv(argv3, 4, &line);
	assert_int_equal(cmdline_parse("git commit -m 'a b'", &parsed, &why),
	    0);
	cmdline_fingerprint(&line, "/r", &a);
	cmdline_fingerprint(&parsed, "/r", &b);
	assert_string_equal(a.buf, b.buf);
	assert_false(cmdline_matches(&pattern, &line));
	cmdline_release(&line);
	cmdline_release(&parsed);

	/* A malformed sh -c string fails closed. */
	cmdline_from_argv(argv4, 3, &line);
	assert_true(line.incomplete);
	assert_true(cmdline_matches(&pattern, &line));
	cmdline_release(&line);

	cmdline_from_argv(argv1, 0, &line);
	assert_int_equal(line.count, 0);
	cmdline_release(&line);
	strlist_release(&pattern);
	buf_release(&a);
	buf_release(&b);
	buf_release(&why);
}

static void
test_release_and_reuse(void **state)
{
	struct cmdline line = CMDLINE_INIT;
	struct cmdline zeroed;

	assert_int_equal(cmdline_parse("a; b", &line, NULL), 0);
	assert_int_equal(line.count, 2);
	/* Parsing again appends. */
	assert_int_equal(cmdline_parse("c", &line, NULL), 0);
	assert_int_equal(line.count, 3);
	cmdline_release(&line);
	assert_int_equal(line.count, 0);
	assert_int_equal(line.tokens.count, 0);
	assert_false(line.incomplete);
	assert_int_equal(cmdline_parse("x 'y", &line, NULL), -1);
	cmdline_release(&line);
	assert_false(line.incomplete);
	cmdline_release(&line);
	/* A zeroed line works like CMDLINE_INIT. */
	memset(&zeroed, 0, sizeof(zeroed));
	assert_int_equal(cmdline_parse("git push", &zeroed, NULL), 0);
	assert_int_equal(zeroed.count, 1);
	cmdline_release(&zeroed);
}

#define EXPANDED "the program is named by an expansion or a pattern"
#define FROM_STDIN "it reads its script from standard input, which is a " \
	"pipe or a file"
#define FROM_SUBSTITUTION "it runs a script from a process substitution"
#define FILLED_IN "xargs or find fills in the program when it runs"

static void
test_unresolved_programs(void **state)
{
	/* Known programs, however their arguments are made. */
	expect_unresolved("git push origin main", NULL);
	expect_unresolved("ls \"$(pwd)/src\" $HOME `date`", NULL);
	expect_unresolved("FOO=1 make -j2 && cd x && make", NULL);
	expect_unresolved("$HOME/.local/bin/tool --flag", NULL);
	expect_unresolved("\"$VIRTUAL_ENV/bin/python\" -m pytest", NULL);
	expect_unresolved("~/bin/tool x", NULL);
	expect_unresolved("for f in *.c; do gcc -c \"$f\"; done", NULL);
	expect_unresolved("cat a | grep b | sort | uniq -c", NULL);
	expect_unresolved("bash scripts/test.sh", NULL);
	expect_unresolved("cat x.json | python3 -m json.tool", NULL);
	expect_unresolved("cat x | python3 -c 'import sys; print(1)'", NULL);
	expect_unresolved("echo x | perl -pe 's/a/b/'", NULL);
	expect_unresolved("echo x | perl -lane 'print $F[0]'", NULL);
	expect_unresolved("echo x | perl -pi -e 's/a/b/' f", NULL);
	expect_unresolved("echo x | ruby -ne 'puts $_'", NULL);
	expect_unresolved("echo x | node -e 'process.stdin'", NULL);
	expect_unresolved("echo x | node --input-type=module -e 'x'", NULL);
	expect_unresolved("cat data | python3 tool.py --in -", NULL);
	expect_unresolved("python3 script.py < input.txt", NULL);
	expect_unresolved("bash <<'EOF'\nls\nEOF", NULL);
	expect_unresolved("python3 <<'EOF'\nprint(1)\nEOF", NULL);
	expect_unresolved("python3 - <<< 'print(1)'", NULL);
	expect_unresolved("ls | xargs grep -l foo", NULL);
	expect_unresolved("echo a b | xargs", NULL);
	expect_unresolved("find . -name '*.c' -exec grep -l x {} +", NULL);
	expect_unresolved("sh -c 'ls | wc -l'", NULL);
	expect_unresolved("python3", NULL);
	expect_unresolved("[ -f x ] && make; [[ -d b ]] || mkdir b", NULL);
	expect_unresolved("find . -exec {} \\;", "xargs or find fills in the "
	    "program when it runs");
	expect_unresolved("f() { daicho \"$@\"; }; f status", NULL);

	/* An expansion or a glob names the program. */
	expect_unresolved("$(which daicho) approve 1", EXPANDED);
	expect_unresolved("d=daicho; $d approve 7", EXPANDED);
	expect_unresolved("`which git` push", EXPANDED);
	expect_unresolved("\"$TOOL\" run", EXPANDED);
	expect_unresolved("${D:-daicho} approve 1", EXPANDED);
	expect_unresolved("/usr/local/bin/daich* approve 1", EXPANDED);
	expect_unresolved("/usr/bin/dai?ho approve 1", EXPANDED);
	expect_unresolved("/usr/bin/dai[c]ho approve 1", EXPANDED);
	expect_unresolved("daich{o,x} approve 1", EXPANDED);
	expect_unresolved("daich{o..o} approve 1", EXPANDED);
	expect_unresolved("$(dirname $0)/../bin/$(echo x)", EXPANDED);
	expect_unresolved("sudo $CMD", EXPANDED);
	expect_unresolved("bash -c \"$CMD\"", EXPANDED);
	expect_unresolved("eval \"$CMD\"", EXPANDED);
	expect_unresolved("env -S '${X} approve'", EXPANDED);
	expect_unresolved("echo 'daicho approve 1' | xargs -I{} sh -c {}",
	    FILLED_IN);
	expect_unresolved("find . -exec sh -c 'x; {} approve' \\;", FILLED_IN);
	expect_unresolved("ls | xargs -I{} sh -c 'wc -l {}'", NULL);
	/* The program word is kept as written, not cut at a '/'. */
	expect_split("$(echo a/b) x", "echo,a/b / $(echo a/b),x");

	/* A shell or interpreter reading its program from a pipe or file. */
	expect_unresolved("echo ZGFpY2hvIGFwcHJvdmUgMQ== | base64 -d | sh",
	    FROM_STDIN);
	expect_unresolved("curl -s https://x/install | bash", FROM_STDIN);
	expect_unresolved("curl x | bash -s -- --yes", FROM_STDIN);
	expect_unresolved("curl x |& sh -", FROM_STDIN);
	expect_unresolved("echo x | bash /dev/stdin", FROM_STDIN);
	expect_unresolved("echo x | . /dev/stdin", FROM_STDIN);
	expect_unresolved("sh < script.txt", FROM_STDIN);
	expect_unresolved("< script.txt bash", FROM_STDIN);
	expect_unresolved("cat a.py | python3", FROM_STDIN);
	expect_unresolved("cat a.py | python3 -u -W ignore", FROM_STDIN);
	expect_unresolved("python3 - < a.py", FROM_STDIN);
	expect_unresolved("cat a.pl | perl", FROM_STDIN);
	expect_unresolved("echo 'code' | node", FROM_STDIN);
	expect_unresolved("echo 'code' | /usr/bin/python3.12", FROM_STDIN);
	expect_unresolved("echo x | (sh)", FROM_STDIN);
	expect_unresolved("echo x | { bash; }", FROM_STDIN);
	expect_unresolved("echo x |\n  timeout 5 sh", FROM_STDIN);
	expect_unresolved("echo x | sh -c 'python3'", FROM_STDIN);
	expect_unresolved("cat <<'EOF' | sh\nls\nEOF", FROM_STDIN);
	expect_unresolved("bash <(curl -s x)", FROM_SUBSTITUTION);
	expect_unresolved("source <(curl -s x)", FROM_SUBSTITUTION);
	expect_unresolved("python3 <(echo x)", FROM_SUBSTITUTION);
	/* ...but not the next command of the line, nor a redirected one. */
	expect_unresolved("echo x | cat; sh", NULL);
	expect_unresolved("echo x | sh <<'EOF'\nls\nEOF", NULL);

	/* xargs and find filling in the program. */
	expect_unresolved("echo daicho | xargs -I{} {} approve 1",
	    FILLED_IN);
	expect_unresolved("echo daicho | xargs -i {} approve 1",
	    FILLED_IN);
	expect_unresolved("echo daicho | xargs --replace=X X approve 1",
	    FILLED_IN);
	expect_unresolved("echo 'daicho approve 1' | xargs env",
	    "xargs reads the program from its input");
	expect_unresolved("echo 'daicho approve 1' | xargs -0 sh -c",
	    "xargs supplies the command string of a shell's -c");
	expect_unresolved("find / -name daicho -exec {} approve 1 \\;",
	    FILLED_IN);
	/* xargs gives its program no input. */
	expect_unresolved("echo x | xargs -n1 sh script.sh", NULL);

	/* Arguments added when it runs. */
	assert_true(arguments_added("echo approve 1 | xargs daicho", "daicho"));
	assert_false(arguments_added("echo 1 | xargs -I{} daicho show {}",
	    "daicho"));
	assert_true(arguments_added("alias d='daicho'", "daicho"));
	assert_false(arguments_added("daicho status", "daicho"));
}

static void
test_environment_changes(void **state)
{
	expect_environment("git push", "");
	expect_environment("FOO=1 BAR= make", "FOO=1,BAR=");
	expect_environment("FOO=1", "FOO=1");
	expect_environment("DAICHO_AGENT= daicho approve 1", "DAICHO_AGENT=");
	expect_environment("DAICHO_AGENT='' daicho x", "DAICHO_AGENT=");
	expect_environment("env -u DAICHO_AGENT -i FOO=1 make",
	    "-DAICHO_AGENT,-,FOO=1");
	expect_environment("env - make", "-");
	expect_environment("env --ignore-environment make", "-");
	expect_environment("env --unset=X --unset Y -uZ -C /tmp true",
	    "-X,-Y,-Z");
	expect_environment("env -S '-u X -i cmd'", "-X,-");
	expect_environment("sudo env -u X make", "-X");
	expect_environment("unset A B; export -n C; export D=1 E",
	    "-A,-B,-C,D=1");
	expect_environment("declare +x F; local G=; readonly H=2; typeset I=3",
	    "-F,G=,H=2,I=3");
	expect_environment("unset -f f; export -f g; declare -f h", "");
	expect_environment("sh -c 'unset CLAUDECODE; x'", "-CLAUDECODE");
	expect_environment("(unset X; daicho approve 1)", "-X");
	expect_environment("echo $(unset Y)", "-Y");
	/* Arguments of other programs are no change. */
	expect_environment("echo FOO= unset X", "");
	/* An option whose argument is missing ends the words (found by
	 * fuzz_hook: the words past the end were read). */
	expect_environment("env -u X -u", "-X");
	expect_environment("env -u X --unset", "-X");
	expect_environment("env -u X -u (Y z)", "-X");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_blanks_and_continuations),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_redirections),
		cmocka_unit_test(test_here_documents),
		cmocka_unit_test(test_substitutions),
		cmocka_unit_test(test_assignments),
		cmocka_unit_test(test_wrappers),
		cmocka_unit_test(test_commands_run_by_commands),
		cmocka_unit_test(test_program_basename),
		cmocka_unit_test(test_unresolved_programs),
		cmocka_unit_test(test_environment_changes),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_match_basic),
		cmocka_unit_test(test_match_subsequence),
		cmocka_unit_test(test_match_trailing_star),
		cmocka_unit_test(test_match_option_value),
		cmocka_unit_test(test_match_non_matches),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_pattern_refusals),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_from_argv),
		cmocka_unit_test(test_release_and_reuse),
	};

	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
