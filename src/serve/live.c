/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Live updates: one watcher thread reads the newest event id every 200 ms
 * and wakes every open Server-Sent Events stream when it moved; each
 * stream then sends one "change" event with the new id, and the page
 * fetches itself again. A stream sends a comment every 2 s when nothing
 * happens, so that a client that went away is noticed and its connection
 * freed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "core/event.h"
#include "serve/serve.h"
#include "util/alloc.h"

#define WATCH_INTERVAL_MS 200
#define KEEPALIVE_MS 2000

/* One open stream. */
struct stream {
	struct serve *server;
	int64_t sent_id;  /* the last event id this stream announced */
	bool started;
	bool session;     /* counted in live.session_streams */
};

/* Sleep ms milliseconds. */
static void
sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/* The newest event id, read under the server's lock; -1 on error. */
static int64_t
read_last_id(struct serve *server)
{
	struct err err = ERR_INIT;
	int64_t id = -1;

	pthread_mutex_lock(&server->lock);
	if (event_last_id(server->ledger, &id, &err) < 0)
		id = -1;
	pthread_mutex_unlock(&server->lock);
	err_release(&err);
	return id;
}

static void *
watch(void *arg)
{
	struct serve *server = arg;
	struct serve_live *live = &server->live;

	for (;;) {
		int64_t id;

		pthread_mutex_lock(&live->lock);
		if (live->stopping) {
			pthread_mutex_unlock(&live->lock);
			return NULL;
		}
		pthread_mutex_unlock(&live->lock);
		id = read_last_id(server);
		pthread_mutex_lock(&live->lock);
		if (id >= 0 && id != live->last_event_id) {
			live->last_event_id = id;
			pthread_cond_broadcast(&live->changed);
		}
		pthread_mutex_unlock(&live->lock);
		sleep_ms(WATCH_INTERVAL_MS);
	}
}

int
serve_live_start(struct serve *server, struct err *err)
{
	struct serve_live *live = &server->live;

	pthread_mutex_init(&live->lock, NULL);
	pthread_cond_init(&live->changed, NULL);
	live->last_event_id = read_last_id(server);
	live->stopping = false;
	if (pthread_create(&live->watcher, NULL, watch, server) != 0)
		return err_set(err, ERR_FAILED, "cannot start a thread (%s)",
		    strerror(errno));
	return 0;
}

void
serve_live_stop(struct serve *server)
{
	struct serve_live *live = &server->live;

	pthread_mutex_lock(&live->lock);
	live->stopping = true;
	pthread_cond_broadcast(&live->changed);
	pthread_mutex_unlock(&live->lock);
	pthread_join(live->watcher, NULL);
}

/* libmicrohttpd asks for the stream's next bytes: wait for a change. */
static ssize_t
stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *s = cls;
	struct serve_live *live = &s->server->live;
	struct timespec until;
	int64_t id;
	bool stopping;
	int n;

	if (!s->started) {
		s->started = true;
		n = snprintf(out, max, "retry: 1000\n: daicho live\n\n");
		return n > 0 && (size_t)n < max ? n : 0;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += KEEPALIVE_MS / 1000;
	pthread_mutex_lock(&live->lock);
	while (!live->stopping && live->last_event_id == s->sent_id)
		if (pthread_cond_timedwait(&live->changed, &live->lock,
			&until) == ETIMEDOUT)
			break;
	id = live->last_event_id;
	stopping = live->stopping;
	pthread_mutex_unlock(&live->lock);
	if (stopping)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (id == s->sent_id)
		n = snprintf(out, max, ": keep-alive\n\n");
	else
		n = snprintf(out, max, "id: %lld\nevent: change\ndata: "
		    "{\"last_event\":%lld}\n\n", (long long)id, (long long)id);
	s->sent_id = id;
	return n > 0 && (size_t)n < max ? n : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void
stream_free(void *cls)
{
	struct stream *s = cls;

	pthread_mutex_lock(&s->server->live.lock);
	if (s->session)
		s->server->live.session_streams--;
	else
		s->server->live.streams--;
	pthread_mutex_unlock(&s->server->live.lock);
	free(s);
}

void
serve_live_stream(struct serve_request *req, struct serve_response *res,
    void **mhd_response)
{
	struct serve_live *live = &req->server->live;
	struct stream *s;
	struct MHD_Response *response;
	const char *last = serve_header(req, "Last-Event-ID");
	char *end = NULL;
	long long seen = last ? strtoll(last, &end, 10) : -1;
	bool session = req->session != NULL;
	int *count = session ? &live->session_streams : &live->streams;

	/*
	 * Each stream holds a connection (and its thread) for as long as the
	 * client likes: past the cap, a 503 that closes its connection.
	 */
	pthread_mutex_lock(&live->lock);
	if (*count >= (session ? SERVE_SESSION_STREAMS_MAX : SERVE_STREAMS_MAX)) {
		pthread_mutex_unlock(&live->lock);
		serve_error(req, res, 503, "too many live streams open (%d%s); "
		    "retry later", session ? SERVE_SESSION_STREAMS_MAX
		    : SERVE_STREAMS_MAX, session ? " for logged-in browsers" : "");
		res->retry_after = SERVE_STREAM_RETRY_S;
		res->close = true;
		return;
	}
	(*count)++;
	s = xcalloc(1, sizeof(*s));
	s->server = req->server;
	s->session = session;
	s->sent_id = live->last_event_id;
	/* A browser coming back after a gap: announce what it missed at once. */
	if (last != NULL && *end == '\0' && seen >= 0 && seen < s->sent_id)
		s->sent_id = seen;
	pthread_mutex_unlock(&live->lock);
	response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024,
	    stream_read, s, stream_free);
	if (response == NULL) {
		stream_free(s);
		serve_error(req, res, 500, "cannot open a stream");
		return;
	}
	MHD_add_response_header(response, "Content-Type", "text/event-stream");
	*mhd_response = response;
}
