/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* A live view of the ledger: redrawn when the ledger changes (see watch.h). */
#include "cmd/watch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/filewatch.h"
#include "util/term.h"

/* Without inotify, the ledger is looked at this often instead. */
#define WATCH_POLL_MS 1000

/* The terminal's size when it reports none. */
#define WATCH_DEFAULT_ROWS 24
#define WATCH_DEFAULT_COLUMNS 80

/* The files of a SQLite ledger a write changes. */
static const char *const ledger_files[] = { "", "-wal", NULL };

enum watch_form {
	FORM_SCREEN, /* the alternate screen of a terminal, redrawn in place */
	FORM_PLAIN,  /* whole frames of plain text, one after another */
	FORM_JSON,   /* one JSON document a line */
};

struct watcher {
	struct cmd_ctx *ctx;
	const struct watch_source *source;
	enum watch_form form;
	bool colour;              /* colour the frame (FORM_SCREEN only) */
	struct filewatch files;   /* the ledger's files; fd -1 without inotify;
				     for a shared ledger, its connection's */
	bool shared;              /* a PostgreSQL ledger: woken by NOTIFY */
	int signals;              /* a signalfd for the signals caught, or -1 */
	struct term_keys keys;    /* stdin's mode, while keys are read */
	bool on_screen;           /* the alternate screen is up */
	json_t *last;             /* what the last plain or JSON frame showed
				     (the document without now_ms), or NULL */
	int64_t next_change_ms;   /* as watch_source.read gives it */
};

/* Write all of text to stdout. Returns 0, or -1 with errno set. */
static int
write_all(const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Whether stdout is a terminal that can be drawn on (TERM set, not dumb). */
static bool
screen_capable(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && term != NULL && *term != '\0' &&
	       strcmp(term, "dumb") != 0;
}

/*
 * Take the terminal: keys read one by one without echo, the alternate
 * screen (the shell's screen comes back as it was on exit), no cursor.
 */
static int
screen_enter(struct watcher *w)
{
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";

	term_keys_begin(&w->keys, STDIN_FILENO);
	w->on_screen = true;
	return write_all(enter, sizeof(enter) - 1);
}

/* Give the terminal back as it was: cursor, screen and mode. */
static void
screen_leave(struct watcher *w)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	if (w->on_screen)
		write_all(leave, sizeof(leave) - 1);
	w->on_screen = false;
	term_keys_end(&w->keys);
}

/* Add the last line of the live screen: when it was drawn, how to quit. */
static void
add_footer(struct frame *frame, bool colour)
{
	struct frame_section *s = frame_section_add(frame, 0, false, false);
	struct buf text = BUF_INIT;

	buf_adds(&text, "updated ");
	clock_add_timestamp(&text, clock_now_ms());
	buf_adds(&text, " · q or Ctrl-C quits");
	buf_addch(&s->heading, '\n');
	cmd_add_toned(&s->heading, colour, TONE_FADED, text.buf, 0);
	buf_addch(&s->heading, '\n');
	buf_release(&text);
}

/*
 * Whether doc shows what the last plain or JSON frame showed: nothing in
 * the ledger changed that it shows, only the time (a write that changed
 * nothing shown, such as another process opening the ledger). Remembers
 * doc for the next call.
 */
static bool
same_as_last(struct watcher *w, const json_t *doc)
{
	json_t *shown = json_deep_copy(doc);
	bool same;

	json_object_del(shown, "now_ms");
	same = w->last != NULL && json_equal(w->last, shown);
	json_decref(w->last);
	w->last = shown;
	return same;
}

/*
 * Read the source afresh and show it in w's form. A plain or JSON frame
 * that would show what the last one did is not written again.
 */
static int
draw(struct watcher *w)
{
	struct cmd_ctx *ctx = w->ctx;
	struct frame frame = FRAME_INIT;
	struct buf out = BUF_INIT;
	json_t *doc = NULL;
	int rc;

	rc = w->source->read(ctx, w->source->arg, w->colour,
	    w->form == FORM_JSON ? NULL : &frame, &doc, &w->next_change_ms);
	if (rc < 0 || (w->form != FORM_SCREEN && same_as_last(w, doc)))
		goto done;
	if (w->form == FORM_JSON) {
		char *text = json_dumps(doc, JSON_COMPACT);

		if (text == NULL) {
			rc = err_set(ctx->err, ERR_FAILED, "cannot write JSON output");
			goto done;
		}
		buf_adds(&out, text);
		buf_addch(&out, '\n');
		free(text);
	} else if (w->form == FORM_PLAIN) {
		buf_adds(&out, "--- ");
		clock_add_timestamp(&out, clock_now_ms());
		buf_addch(&out, '\n');
		frame_render(&frame, &out, 0, 0, false);
	} else {
		int rows = WATCH_DEFAULT_ROWS, columns = WATCH_DEFAULT_COLUMNS;

		term_size(STDOUT_FILENO, &rows, &columns);
		add_footer(&frame, w->colour);
		frame_fit(&frame, (size_t)rows);
		buf_adds(&out, "\033[H");
		frame_render(&frame, &out, (size_t)rows, (size_t)columns, true);
	}
	if (write_all(out.buf, out.len) < 0)
		rc = err_set(ctx->err, ERR_FAILED, "cannot write output (%s)",
		    strerror(errno));
done:
	json_decref(doc);
	frame_release(&frame);
	buf_release(&out);
	return rc;
}

/*
 * Stop this process as Ctrl-Z asks, the terminal given back while it is
 * stopped and taken again when it goes on.
 */
static int
suspend(struct watcher *w)
{
	screen_leave(w);
	kill(getpid(), SIGSTOP);
	return screen_enter(w);
}

/*
 * Read the signals w->signals has queued: *stop for SIGINT, SIGTERM and
 * SIGHUP, *redraw for SIGWINCH. Returns 0, or -1 with errno set.
 */
static int
take_signals(struct watcher *w, bool *stop, bool *redraw)
{
	struct signalfd_siginfo info;
	ssize_t n;

	while ((n = read(w->signals, &info, sizeof(info))) == sizeof(info)) {
		if (info.ssi_signo == SIGWINCH) {
			*redraw = true;
		} else if (info.ssi_signo == SIGTSTP) {
			if (suspend(w) < 0)
				return -1;
			*redraw = true;
		} else {
			*stop = true;
		}
	}
	return 0;
}

/* Read the keys typed: q stops. */
static void
take_keys(struct watcher *w, bool *stop)
{
	char keys[64];
	ssize_t n = read(w->keys.fd, keys, sizeof(keys));

	if (n <= 0) {
		term_keys_end(&w->keys); /* stdin closed: no keys from now on */
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (keys[i] == 'q' || keys[i] == 'Q')
			*stop = true;
}

/* The larger of a and b. */
static int64_t
later(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/*
 * The monotonic time of the next redraw that time alone calls for: the
 * live screen's tick, and the source's next time-based change.
 */
static int64_t
next_due(const struct watcher *w, int64_t drawn_mono)
{
	int64_t due = -1;

	if (w->form == FORM_SCREEN)
		due = drawn_mono + WATCH_TICK_MS;
	if (w->next_change_ms > 0) {
		/* 1 ms past it: the change has happened when it is read. */
		int64_t change = drawn_mono + later(w->next_change_ms -
		    clock_now_ms() + 1, 0);

		if (due < 0 || change < due)
			due = change;
	}
	if (w->files.fd < 0 && (due < 0 || due > drawn_mono + WATCH_POLL_MS))
		due = drawn_mono + WATCH_POLL_MS;
	return due;
}

int
cmd_watch(struct cmd_ctx *ctx, const struct watch_source *source)
{
	struct watcher w = { .ctx = ctx, .source = source, .form = FORM_PLAIN,
		.files = FILEWATCH_INIT, .signals = -1, .keys = { .fd = -1 } };
	sigset_t caught, saved;
	bool stop = false, dirty = true;
	int64_t drawn = 0, due = -1;
	int rc = 0;

	if (ctx->json)
		w.form = FORM_JSON;
	else if (screen_capable())
		w.form = FORM_SCREEN;
	w.colour = w.form == FORM_SCREEN && cmd_colour();
	if (fflush(stdout) != 0)
		return err_set(ctx->err, ERR_FAILED, "cannot write output");
	/*
	 * A shared ledger says when it changed; a file is watched with inotify.
	 * Without either (a file system without inotify), look each second.
	 */
	if (ledger_is_shared(ctx->ledger)) {
		if ((rc = ledger_change_fd(ctx->ledger, &w.files.fd, ctx->err)) < 0)
			return rc;
		w.shared = true;
	} else {
		filewatch_open(&w.files, ctx->ledger_path.buf);
	}
	sigemptyset(&caught);
	sigaddset(&caught, SIGINT);
	sigaddset(&caught, SIGTERM);
	sigaddset(&caught, SIGHUP);
	if (w.form == FORM_SCREEN) {
		sigaddset(&caught, SIGWINCH);
		sigaddset(&caught, SIGTSTP);
	}
	sigprocmask(SIG_BLOCK, &caught, &saved);
	if ((w.signals = signalfd(-1, &caught, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		rc = err_set(ctx->err, ERR_FAILED, "cannot watch for signals (%s)",
		    strerror(errno));
		goto done;
	}
	if (w.form == FORM_SCREEN && screen_enter(&w) < 0) {
		rc = err_set(ctx->err, ERR_FAILED, "cannot write output (%s)",
		    strerror(errno));
		goto done;
	}
	while (!stop) {
		struct pollfd fds[3] = {
			{ w.signals, POLLIN, 0 },
			{ w.files.fd, POLLIN, 0 },
			{ w.keys.fd, POLLIN, 0 },
		};
		int64_t now = clock_mono_ms(), timeout = -1;

		if (dirty && now >= drawn + WATCH_MIN_REDRAW_MS) {
			if ((rc = draw(&w)) < 0)
				break;
			drawn = clock_mono_ms();
			due = next_due(&w, drawn);
			dirty = false;
			/* A change told while drawing is queued, not readable. */
			if (w.shared &&
			    (rc = ledger_wait_change(ctx->ledger, 0, ctx->err)) < 0)
				break;
			dirty = w.shared && rc == 1;
			rc = 0;
		}
		if (dirty)
			timeout = drawn + WATCH_MIN_REDRAW_MS - now;
		else if (due >= 0)
			timeout = later(due - now, 0);
		if (poll(fds, 3, timeout > 60000 ? 60000 : (int)timeout) < 0 &&
		    errno != EINTR) {
			rc = err_set(ctx->err, ERR_FAILED, "cannot wait for changes (%s)",
			    strerror(errno));
			break;
		}
		if ((fds[0].revents & POLLIN) && take_signals(&w, &stop, &dirty) < 0) {
			rc = err_set(ctx->err, ERR_FAILED, "cannot write output (%s)",
			    strerror(errno));
			break;
		}
		if ((fds[1].revents & POLLIN) && w.shared) {
			if ((rc = ledger_wait_change(ctx->ledger, 0, ctx->err)) < 0)
				break;
			dirty = dirty || rc == 1;
			rc = 0;
		} else if ((fds[1].revents & POLLIN) &&
		    filewatch_changed(&w.files, ledger_files)) {
			dirty = true;
		}
		if (fds[2].revents & (POLLIN | POLLHUP))
			take_keys(&w, &stop);
		if (due >= 0 && clock_mono_ms() >= due)
			dirty = true;
	}
done:
	screen_leave(&w);
	if (w.signals >= 0) {
		struct signalfd_siginfo info;

		/* A second Ctrl-C already queued must not kill us now. */
		while (read(w.signals, &info, sizeof(info)) == sizeof(info))
			continue;
		close(w.signals);
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (w.shared)
		w.files.fd = -1; /* the ledger's connection, not ours to close */
	filewatch_release(&w.files);
	json_decref(w.last);
	return rc;
}
