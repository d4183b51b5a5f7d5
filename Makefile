# daicho — see README.md. `make demo` and `make check` install missing Debian
# packages themselves (scripts/deps.sh).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BUILD ?= build

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := sqlite3 jansson nettle
CFLAGS ?= -O2 -g
# tmux's warning set (with what -Wextra already has); 'make check' adds
# -Werror (WERROR), so that a warning fails the tests' build.
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wmissing-declarations -Wwrite-strings -Wpointer-arith -Wundef \
	-Wbad-function-cast -Wcast-align -Wno-unused-parameter -Wformat=2 \
	-Wno-format-nonliteral $(WERROR)
DEPS_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# How daicho is linked. Most daicho processes live for one command (a claim,
# a hook answer), so starting one must be cheap: resolving shared libraries
# at every start costs about a fifth of a claim (bench/RESULTS.md).
#   STATIC=full  everything, the C library too, at a fixed address: the
#                default when the C library's archive (libc6-dev's libc.a)
#                is there. Not a PIE: relocating one at every start (3,800
#                relocations, a dozen pages written) cost 0.16 ms of the
#                2 ms a process takes here; stack, heap and mappings are
#                still randomised, the binary's own code and data are not
#   STATIC=pie   the same as a static PIE, randomised as a whole
#   STATIC=deps  SQLite and jansson; the C library shared (make asan: the
#                sanitizers cannot link statically)
#   STATIC=no    everything shared
ifeq ($(wildcard $(shell $(CC) -print-file-name=libc.a)),)
STATIC ?= deps
else
STATIC ?= full
endif
PARTLY_STATIC_LIBS = -Wl,-Bstatic $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) \
	-Wl,-Bdynamic -lm
ifeq ($(STATIC),full)
DEPS_LIBS = -static -no-pie $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm
else ifeq ($(STATIC),pie)
DEPS_LIBS = -static-pie $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm
else ifeq ($(STATIC),deps)
DEPS_LIBS = $(PARTLY_STATIC_LIBS)
else ifeq ($(STATIC),no)
DEPS_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
else
$(error STATIC=$(STATIC): use full, pie, deps or no)
endif
# Unit tests link cmocka, which Debian ships shared only.
TEST_LIBS = $(if $(filter no,$(STATIC)),$(DEPS_LIBS),$(PARTLY_STATIC_LIBS))
# ./daicho is one file whichever way it was built (make asan builds one with
# sanitizers): this records how, so that a different way relinks it.
LINK_MODE = build/link-mode
LINK_SIGNATURE = $(BUILD) $(CC) $(STATIC) $(DEPS_LIBS) $(CFLAGS) $(LDFLAGS)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Isrc -I$(BUILD) $(WARNINGS) $(DEPS_CFLAGS) $(CFLAGS) -MMD -MP

LIB_SRC := $(wildcard src/util/*.c src/shell/*.c src/store/store.c \
	src/store/sqlite/*.c src/core/*.c src/run/*.c src/integ/*.c src/cmd/*.c)
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/main.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# daicho-serve, the web dashboard behind 'daicho serve' (src/serve): its
# own program, linked dynamically, because Graphviz's libgvc loads its
# layout and render plugins with dlopen and Debian ships no static
# archives of them (nor of gnutls, which libmicrohttpd.a needs); daicho
# stays static, so that every short-lived command starts fast. It is the
# same dispatcher (main.o) and library with the server linked in: 'daicho
# serve' execs it from daicho's own directory.
SERVE_PKGS := libmicrohttpd libgvc
SERVE_OK := $(shell $(PKG_CONFIG) --exists $(SERVE_PKGS) 2>/dev/null && echo yes)
SERVE_SRC := $(wildcard src/serve/*.c)
SERVE_OBJ := $(SERVE_SRC:src/%.c=$(BUILD)/%.o)
$(SERVE_OBJ): ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags $(SERVE_PKGS) 2>/dev/null)

# The store's PostgreSQL driver (src/store/driver.h) is chosen when a
# program is linked: store/pg/driver.c over the pg_* calls of libpq's
# (store/pg/libpq.c) or the pool's client's (store/pool/client.c); a
# program with neither links store/none.c.
PG_DRIVER_OBJ := $(BUILD)/store/pg/driver.o
NO_PG_OBJ := $(BUILD)/store/none.o

# daicho-pg, the same dispatcher and library with libpq's PostgreSQL
# calls (src/store/pg) linked in: libpq exists only as a shared library (its archive
# needs libpgcommon and libpgport, which Debian does not ship), so a
# PostgreSQL ledger is served by this dynamically linked program, and
# daicho hands every command on such a ledger over to it (src/main.c).
# daicho-serve links the driver too, so the dashboard serves both.
PG_PKGS := libpq
PG_OK := $(shell $(PKG_CONFIG) --exists $(PG_PKGS) 2>/dev/null && echo yes)
PG_SRC := src/store/pg/libpq.c src/store/pg/schema.c
PG_LIBPQ_OBJ := $(PG_SRC:src/%.c=$(BUILD)/%.o)
$(PG_LIBPQ_OBJ): ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags $(PG_PKGS) 2>/dev/null)
PG_OBJ := $(PG_LIBPQ_OBJ) $(PG_DRIVER_OBJ)
PG_LIBS := $(if $(PG_OK),$(shell $(PKG_CONFIG) --libs $(PG_PKGS)))
# The pool (src/store/pool): the static daicho's PostgreSQL calls are its
# client's, which sends statements to a resident daicho-pg (the server)
# that keeps warm connections; both share where the socket is (proto).
POOL_CLIENT_OBJ := $(BUILD)/store/pool/client.o $(BUILD)/store/pool/proto.o \
	$(PG_DRIVER_OBJ)
POOL_SERVER_OBJ := $(BUILD)/store/pool/server.o $(BUILD)/store/pool/proto.o

all: daicho $(if $(SERVE_OK),daicho-serve) $(if $(PG_OK),daicho-pg)
	@[ -n "$(SERVE_OK)" ] || echo "daicho: daicho-serve (the dashboard) not built: libmicrohttpd-dev and libgraphviz-dev are missing (scripts/deps.sh build installs them)" >&2
	@[ -n "$(PG_OK)" ] || echo "daicho: daicho-pg (PostgreSQL ledgers) not built: libpq-dev is missing (scripts/deps.sh build installs it)" >&2

SERVE_PG_OBJ := $(if $(PG_OK),$(PG_OBJ),$(NO_PG_OBJ))
daicho-serve: $(MAIN_OBJ) $(SERVE_OBJ) $(SERVE_PG_OBJ) $(BUILD)/libdaicho.a
	$(CC) $(ALL_CFLAGS) -o $@ $(MAIN_OBJ) $(SERVE_OBJ) $(SERVE_PG_OBJ) \
		$(BUILD)/libdaicho.a \
		$(shell $(PKG_CONFIG) --libs $(PKGS) $(SERVE_PKGS)) $(PG_LIBS) -lpthread -lm $(LDFLAGS)

daicho-pg: $(MAIN_OBJ) $(PG_OBJ) $(POOL_SERVER_OBJ) $(BUILD)/libdaicho.a
	$(CC) $(ALL_CFLAGS) -o $@ $(MAIN_OBJ) $(PG_OBJ) $(POOL_SERVER_OBJ) \
		$(BUILD)/libdaicho.a \
		$(shell $(PKG_CONFIG) --libs $(PKGS)) $(PG_LIBS) -lpthread -lm $(LDFLAGS)

# SQLite's extension loader refers to dlopen(), so a static link warns that
# dlopen would need glibc's shared libraries at run time. daicho never loads
# an extension (SQLite keeps that off unless asked), so that one warning is
# dropped; anything else the linker says is shown.
daicho: $(MAIN_OBJ) $(POOL_CLIENT_OBJ) $(BUILD)/libdaicho.a $(LINK_MODE)
	$(CC) $(ALL_CFLAGS) -o $@ $(MAIN_OBJ) $(POOL_CLIENT_OBJ) $(BUILD)/libdaicho.a $(DEPS_LIBS) \
		$(LDFLAGS) 2>$(BUILD)/link.err || \
		{ cat $(BUILD)/link.err >&2; exit 1; }
	@grep -v -e 'unixDlOpen' -e "Using 'dlopen' in statically linked" \
		$(BUILD)/link.err >&2 || true

# The commit built from, for --version ("+changes" when the tree differs
# from it; "unknown" outside a git repository of this tree's own, such as
# a release archive unpacked in another repository; DAICHO_COMMIT=... sets
# it): rewritten only when it changes, so that nothing relinks for it.
OWN_GIT := $(filter $(CURDIR),$(shell git rev-parse --show-toplevel 2>/dev/null))
DAICHO_COMMIT ?= $(if $(OWN_GIT),$(shell git rev-parse --short=12 HEAD)$(shell git diff --quiet HEAD -- 2>/dev/null || echo +changes),unknown)
$(BUILD)/build-info.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define DAICHO_COMMIT "$(DAICHO_COMMIT)"' | cmp -s - $@ || \
		echo '#define DAICHO_COMMIT "$(DAICHO_COMMIT)"' >$@
$(BUILD)/cmd/cmd_help.o: $(BUILD)/build-info.h

# The daicho skill, which 'init' writes for the clients, as a C string
# (backslashes, quotes and question marks escaped: no trigraph in C11).
$(BUILD)/skill.h: skills/daicho/SKILL.md
	@mkdir -p $(dir $@)
	@{ echo '/* Generated from skills/daicho/SKILL.md by the Makefile. */'; \
		echo 'static const char daicho_skill[] ='; \
		sed -e 's/[\\"?]/\\&/g' -e 's/^/	"/' -e 's/$$/\\n"/' $<; \
		echo ';'; } >$@.tmp && mv $@.tmp $@
$(BUILD)/integ/install.o: $(BUILD)/skill.h

$(LINK_MODE): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LINK_SIGNATURE)' | cmp -s - $@ || echo '$(LINK_SIGNATURE)' >$@

FORCE:

$(BUILD)/libdaicho.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# How objects were compiled (compiler, warnings, -Werror or not, CFLAGS):
# compiled another way, they are compiled again, so that 'make check' after
# 'make' still fails on a warning.
COMPILE_MODE = $(BUILD)/compile-mode
$(COMPILE_MODE): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(WARNINGS) $(CFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(WARNINGS) $(CFLAGS)' >$@

$(BUILD)/%.o: src/%.c $(COMPILE_MODE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libdaicho.a $(NO_PG_OBJ) $(COMPILE_MODE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libdaicho.a $(NO_PG_OBJ) $(TEST_LIBS) \
		$(shell $(PKG_CONFIG) --libs cmocka) $(LDFLAGS)

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(SERVE_OBJ:.o=.d) $(PG_OBJ:.o=.d) \
	$(POOL_CLIENT_OBJ:.o=.d) $(POOL_SERVER_OBJ:.o=.d) $(NO_PG_OBJ:.o=.d) \
	$(UNIT_BIN:=.d)

deps:
	@scripts/deps.sh build

# The suites that run again against PostgreSQL (tests/backend.bash), in a
# throw-away cluster that tests/pg/cluster.sh starts (as an unprivileged
# user when run as root, on a Unix socket only) and stops at the end, also
# when tests fail or the run is interrupted. The command-line suite
# connects with libpq directly, as every command does without a pool; the
# stress suite runs through a pool (DAICHO_TEST_POOL=1: each test's ledger
# gets 'daicho pool start', so short commands use the pool's client,
# src/store/pool, and commands that stay connect directly), as many agents on
# one machine should: 64 commands at once, each starting libpq and a
# server process of its own, fill two cores (docs/design-notes.md).
PG_SUITES = DAICHO_TEST_BACKEND=postgresql,$(CLI_JOBS):tests/cli \
	DAICHO_TEST_BACKEND=postgresql,DAICHO_TEST_POOL=1:tests/stress
# The command-line suites run three files at once (each test has its own
# directory and ledger; their tests wait on processes and sleeps as much as
# they compute: on 2 cores the SQLite suite took 287 s with three, 360 s
# with two, in one session); the stress suites, which measure waits under
# load, one at a time.
CLI_JOBS = DAICHO_BATS_JOBS=3

# Every test: unit (cmocka), command line (bats) and stress (many
# processes) on SQLite, then command line and stress again on PostgreSQL,
# the dashboard in Chromium and over HTTP (tests/serve: playwright-core
# from npm), end to end with the real agent clients (installed from npm;
# DAICHO_E2E=skip skips them, loudly), ending with one line that counts
# them all: "N passed, N failed". First, tests/lint-tests refuses test
# lines that cannot fail, and tests/lint-layers an include of a higher
# layer or a circle of includes in src/ (docs/design-notes.md).
check:
	@scripts/deps.sh check
	@tests/lint-tests
	@tests/lint-layers
	@$(MAKE) --no-print-directory WERROR=-Werror daicho daicho-serve daicho-pg unit-tests
	@tests/serve/setup.sh
	@# The tests that run make in the tree (install, dist, deb) inherit
	@# WERROR, so that they find everything built and rebuild nothing.
	@export WERROR=-Werror; \
	if [ "$${DAICHO_E2E:-}" = skip ]; then \
		echo '*** make check: end-to-end tests SKIPPED (DAICHO_E2E=skip): daicho was NOT tested with the real agent clients ***' >&2; \
		tests/pg/cluster.sh run tests/run-all $(UNIT_BIN) -- $(CLI_JOBS):tests/cli tests/mcp tests/stress $(PG_SUITES) tests/serve; \
	else \
		tests/e2e/setup.sh && tests/pg/cluster.sh run tests/run-all $(UNIT_BIN) -- $(CLI_JOBS):tests/cli tests/mcp tests/stress $(PG_SUITES) tests/serve tests/e2e; \
	fi

# The command-line and stress suites against PostgreSQL alone.
check-pg:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory daicho daicho-pg
	@tests/pg/cluster.sh run tests/run-all -- $(PG_SUITES)

# The dashboard's tests alone (tests/serve): Chromium, HTTP, load.
check-serve:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory daicho daicho-serve
	@tests/serve/setup.sh
	@tests/run-all -- tests/serve

unit-tests: $(UNIT_BIN)

# The unit and command-line suites under AddressSanitizer and
# UndefinedBehaviorSanitizer (./daicho is the sanitized build meanwhile,
# and is relinked by the next make). The unit tests check leaks too. Every
# report of the command-line suite's daicho processes goes to a file in
# build-asan/reports, not to the stderr a test reads: the target fails
# when there is one, naming them, whatever the tests said.
check-asan:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory BUILD=build-asan STATIC=deps \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" daicho unit-tests
	@ASAN_OPTIONS=detect_leaks=1 tests/run-unit $(UNIT_BIN:$(BUILD)/%=build-asan/%)
	@rm -rf build-asan/reports && mkdir -p build-asan/reports
	@status=0; DAICHO_SANITIZED=1 \
	ASAN_OPTIONS=detect_leaks=0:log_path=$(CURDIR)/build-asan/reports/asan \
	UBSAN_OPTIONS=print_stacktrace=1:log_path=$(CURDIR)/build-asan/reports/ubsan \
		tests/run-all -- $(CLI_JOBS):tests/cli || status=1; \
	if [ -n "$$(ls build-asan/reports)" ]; then \
		echo "make check-asan: the sanitizers reported (build-asan/reports):" >&2; \
		head -n 20 build-asan/reports/* >&2; status=1; \
	fi; \
	exit $$status
asan: check-asan

# libFuzzer targets (tests/fuzz), each run FUZZ_SECONDS under ASan and
# UBSan, from the inputs it found before and the seeds in tests/fuzz/seeds.
# Needs clang; not part of 'make check'. The library is rebuilt with clang's
# fuzzing instrumentation; each target links what it uses of it.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -Isrc -I$(BUILD) $(DEPS_CFLAGS) -g -O1 \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/fuzz/obj/%.o) $(BUILD)/fuzz/obj/store/none.o
$(BUILD)/fuzz/obj/cmd/cmd_help.o: $(BUILD)/build-info.h
$(BUILD)/fuzz/obj/integ/install.o: $(BUILD)/skill.h
$(BUILD)/fuzz/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	@clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
-include $(FUZZ_OBJ:.o=.d)
$(BUILD)/fuzz/libdaicho.a: $(FUZZ_OBJ)
	@rm -f $@
	@$(AR) rcs $@ $^
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang (apt-get install clang)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(BUILD)/fuzz/libdaicho.a
	@for t in tests/fuzz/fuzz_*.c; do \
		n=$$(basename $$t .c); \
		clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $(BUILD)/fuzz/$$n $$t \
			$(BUILD)/fuzz/libdaicho.a \
			$$($(PKG_CONFIG) --libs $(PKGS)) -lm || exit 1; \
		mkdir -p $(BUILD)/fuzz/$$n.corpus; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$(BUILD)/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			$(BUILD)/fuzz/$$n.corpus $$(ls -d tests/fuzz/seeds/$$n 2>/dev/null) \
			>$(BUILD)/fuzz/$$n.log 2>&1 || \
			{ tail -n 40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
		grep 'number_of_executed_units' $(BUILD)/fuzz/$$n.log; \
	done

# The end-to-end tests (tests/e2e): the real Claude Code, Codex and Gemini
# CLI, pinned in tests/e2e/package-lock.json and installed there from the npm
# registry with the machine's Node.js (>= 20) and npm, each against a
# scripted stand-in of its model API on 127.0.0.1. DAICHO_E2E=skip skips
# them, loudly.
e2e:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory daicho
	@if [ "$${DAICHO_E2E:-}" = skip ]; then \
		echo '*** make e2e: SKIPPED (DAICHO_E2E=skip): daicho was NOT tested with the real agent clients ***' >&2; \
	else tests/e2e/setup.sh && tests/run-all -- tests/e2e; fi

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory daicho
	@examples/demo.sh

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory daicho
	@bench/run.sh
	@bench/messages.sh
	@bench/mcp.sh
	@bench/dispatch.sh
	@bench/land.sh
	@bench/judge.sh

# The dashboard at 10,000 tasks and 1,000 agents (bench/serve.sh).
bench-serve:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory daicho daicho-serve
	@bench/serve.sh

# The man page is generated from the command table, like --help.
$(BUILD)/daicho.1: daicho
	./daicho help --man > $@

man: $(BUILD)/daicho.1

# Shell completions, generated from the command table like the man page.
COMPLETIONS = $(BUILD)/daicho.bash $(BUILD)/_daicho $(BUILD)/daicho.fish
$(BUILD)/daicho.bash: daicho
	./daicho help --completion bash > $@
$(BUILD)/_daicho: daicho
	./daicho help --completion zsh > $@
$(BUILD)/daicho.fish: daicho
	./daicho help --completion fish > $@

# make install: daicho in BINDIR, the helpers that could be built
# (daicho-pg, daicho-serve: each needs its libraries) in LIBEXECDIR/daicho,
# where daicho finds them (util/path.h), the man page and the completions.
# A helper whose libraries are missing is left out, saying so; 'make
# install-pg' or 'install-serve' asks for one and fails without them.
# 'make uninstall' removes exactly these files, with the same DESTDIR and
# PREFIX.
# daicho finds its helpers at BINDIR/../libexec/daicho (util/path.c).
HELPERDIR = $(DESTDIR)$(dir $(BINDIR))libexec/daicho
INSTALLED = $(DESTDIR)$(BINDIR)/daicho $(HELPERDIR)/daicho-pg \
	$(HELPERDIR)/daicho-serve $(DESTDIR)$(MANDIR)/man1/daicho.1 \
	$(DESTDIR)$(PREFIX)/share/bash-completion/completions/daicho \
	$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_daicho \
	$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/daicho.fish

# make's words split at spaces: a path with one would install elsewhere.
space := $(subst ,, )
NO_SPACES = $(if $(findstring $(space),$(CURDIR)$(DESTDIR)$(PREFIX)$(BINDIR)),$(error daicho: make install and dist and deb need paths without spaces: the tree and DESTDIR and PREFIX))

install: all $(BUILD)/daicho.1 $(COMPLETIONS)
	$(NO_SPACES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 daicho $(DESTDIR)$(BINDIR)/daicho
	@# Where an earlier daicho installed its helpers.
	rm -f $(DESTDIR)$(BINDIR)/daicho-pg $(DESTDIR)$(BINDIR)/daicho-serve
	$(if $(PG_OK),@$(MAKE) --no-print-directory install-pg)
	$(if $(SERVE_OK),@$(MAKE) --no-print-directory install-serve)
	install -m 644 $(BUILD)/daicho.1 $(DESTDIR)$(MANDIR)/man1/daicho.1
	install -m 644 $(BUILD)/daicho.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/daicho
	install -m 644 $(BUILD)/_daicho $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_daicho
	install -m 644 $(BUILD)/daicho.fish \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/daicho.fish

install-pg:
	@[ -n "$(PG_OK)" ] || { echo "daicho: cannot install daicho-pg (PostgreSQL ledgers): libpq-dev is missing (scripts/deps.sh build installs it)" >&2; exit 1; }
	@$(MAKE) --no-print-directory daicho-pg
	install -d $(HELPERDIR)
	install -m 755 daicho-pg $(HELPERDIR)/daicho-pg

install-serve:
	@[ -n "$(SERVE_OK)" ] || { echo "daicho: cannot install daicho-serve (the dashboard): libmicrohttpd-dev and libgraphviz-dev are missing (scripts/deps.sh build installs them)" >&2; exit 1; }
	@$(MAKE) --no-print-directory daicho-serve
	install -d $(HELPERDIR)
	install -m 755 daicho-serve $(HELPERDIR)/daicho-serve

# make dist: a release archive, daicho-VERSION-linux-ARCH.tar.gz, of what
# 'make install' installs (under daicho-VERSION/: bin, libexec, share) with
# LICENSE, README.md and CHANGELOG.md, and SHA256SUMS beside it, in
# $(BUILD)/dist. scripts/install.sh checks the sum and installs it.
DIST_VERSION = $(shell sed -n 's/^\#define DAICHO_VERSION "\(.*\)"/\1/p' src/core/version.h)
DIST_NAME = daicho-$(DIST_VERSION)-linux-$(shell uname -m)
dist: all $(BUILD)/daicho.1 $(COMPLETIONS)
	$(NO_SPACES)
	@rm -rf $(BUILD)/dist
	@$(MAKE) --no-print-directory install DESTDIR=$(abspath $(BUILD)/dist/stage) \
		PREFIX=/daicho-$(DIST_VERSION) >/dev/null
	install -m 644 LICENSE README.md CHANGELOG.md $(BUILD)/dist/stage/daicho-$(DIST_VERSION)/
	tar -C $(BUILD)/dist/stage --owner=0 --group=0 --numeric-owner --sort=name \
		-czf $(BUILD)/dist/$(DIST_NAME).tar.gz daicho-$(DIST_VERSION)
	cd $(BUILD)/dist && sha256sum $(DIST_NAME).tar.gz >SHA256SUMS
	@rm -rf $(BUILD)/dist/stage
	@echo "daicho: $(BUILD)/dist/$(DIST_NAME).tar.gz and $(BUILD)/dist/SHA256SUMS"

# make deb: daicho_VERSION_ARCH.deb in $(BUILD), built with dpkg-deb from
# a staged 'make install' (scripts/make-deb.sh); lintian reports no error
# on it (tests/cli/deb.bats installs it with apt-get and removes it).
deb: all $(BUILD)/daicho.1 $(COMPLETIONS)
	$(NO_SPACES)
	@command -v dpkg-shlibdeps >/dev/null || { echo "daicho: make deb needs dpkg-dev (apt-get install dpkg-dev)" >&2; exit 1; }
	@scripts/make-deb.sh $(BUILD)

uninstall:
	$(NO_SPACES)
	rm -f $(INSTALLED)
	-rmdir $(HELPERDIR) 2>/dev/null

format:
	clang-format -i $(wildcard src/*.c src/*/*.c src/*/*.h tests/unit/*.c)

clean:
	rm -rf $(BUILD) build-asan daicho daicho-serve daicho-pg

.PHONY: deb dist install-pg install-serve uninstall fuzz all deps check check-pg check-serve bench-serve e2e unit-tests asan check-asan demo bench man install format clean
