/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Usage: tokens and cost by model, agent and label, and by day as a bar
 * chart drawn here in SVG (core/usage.h).
 */
#include <string.h>

#include "core/usage.h"
#include "serve/serve.h"

/* Collect usage rows of one grouping into a JSON array. */
static int
collect(const struct usage_row *row, void *arg)
{
	json_array_append_new(arg, json_pack("{s:s?, s:I, s:I, s:I, s:I, s:f}",
	    "key", row->key, "tasks", (json_int_t)row->tasks, "saves",
	    (json_int_t)row->saves, "tokens_in", (json_int_t)row->tokens_in,
	    "tokens_out", (json_int_t)row->tokens_out, "cost", row->cost));
	return 0;
}

/* One grouping's table. */
static void
render_table(struct buf *out, const char *by, const json_t *rows)
{
	const json_t *row;
	size_t i;

	buf_addf(out, "<h2>By %s</h2><table class=\"usage\" data-by=\"%s\">"
	    "<thead><tr><th>%s</th><th>tasks</th><th>saves</th><th>tokens in</th>"
	    "<th>tokens out</th><th>cost</th></tr></thead><tbody>", by, by, by);
	json_array_foreach(rows, i, row) {
		const char *key = json_string_value(json_object_get(row, "key"));

		buf_adds(out, key ? "<tr><td>" : "<tr class=\"total\"><td><b>");
		html_escape(out, key ? key : "total");
		buf_addf(out, "%s</td><td>%lld</td><td>%lld</td><td>%lld</td>"
		    "<td>%lld</td><td>%.4f</td></tr>", key ? "" : "</b>",
		    (long long)json_integer_value(json_object_get(row, "tasks")),
		    (long long)json_integer_value(json_object_get(row, "saves")),
		    (long long)json_integer_value(json_object_get(row, "tokens_in")),
		    (long long)json_integer_value(json_object_get(row, "tokens_out")),
		    json_real_value(json_object_get(row, "cost")));
	}
	buf_adds(out, "</tbody></table>");
}

/* The chart's geometry, in SVG units: the plot and its margins. */
#define CHART_LEFT 64      /* the y axis's labels */
#define CHART_TOP 18       /* the tallest bar's value */
#define CHART_HEIGHT 150   /* the plot */
#define CHART_BOTTOM 34    /* the x axis's labels */
#define CHART_BAR 28       /* a bar and its gap */

/*
 * Cost per day as bars on axes: the y axis in cost with 0, half and the
 * most, gridlines across, each bar's value above it, and its day (MM-DD)
 * below; every bar's title has the day's cost and tokens. The last row
 * of days is the total, not drawn.
 */
static void
render_days(struct buf *out, const json_t *days)
{
	size_t n = json_array_size(days) > 0 ? json_array_size(days) - 1 : 0;
	size_t width, label_every;
	double most = 0;
	const json_t *row;
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		row = json_array_get(days, i);
		if (json_real_value(json_object_get(row, "cost")) > most)
			most = json_real_value(json_object_get(row, "cost"));
	}
	width = CHART_LEFT + n * CHART_BAR + 16;
	/* Day labels no closer than about 56 units. */
	label_every = (56 + CHART_BAR - 1) / CHART_BAR;
	buf_addf(out, "<h2>Cost by day</h2><svg class=\"days\" width=\"%zu\" "
	    "height=\"%d\" viewBox=\"0 0 %zu %d\" role=\"img\" "
	    "aria-label=\"cost by day\">", width, CHART_TOP + CHART_HEIGHT +
	    CHART_BOTTOM, width, CHART_TOP + CHART_HEIGHT + CHART_BOTTOM);
	/* The y axis: ticks at 0, half and the most, with gridlines. */
	for (int tick = 0; tick <= 2; tick++) {
		double value = most * tick / 2;
		int y = CHART_TOP + CHART_HEIGHT - CHART_HEIGHT * tick / 2;

		buf_addf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%d\" "
		    "x2=\"%zu\" y2=\"%d\"/><text class=\"axis\" x=\"%d\" "
		    "y=\"%d\" text-anchor=\"end\">%.2f</text>", CHART_LEFT, y,
		    width - 8, y, CHART_LEFT - 6, y + 4, value);
	}
	buf_addf(out, "<text class=\"axis\" x=\"4\" y=\"12\">cost</text>"
	    "<line class=\"axis-line\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
	    "y2=\"%d\"/>", CHART_LEFT, CHART_TOP, CHART_LEFT,
	    CHART_TOP + CHART_HEIGHT);
	for (i = 0; i < n; i++) {
		const char *day;
		double cost;
		int height;
		size_t x = CHART_LEFT + 6 + i * CHART_BAR;

		row = json_array_get(days, i);
		day = json_string_value(json_object_get(row, "key"));
		cost = json_real_value(json_object_get(row, "cost"));
		height = most > 0 ? (int)(cost / most * CHART_HEIGHT) : 0;
		buf_addf(out, "<rect class=\"bar\" x=\"%zu\" y=\"%d\" "
		    "width=\"%d\" height=\"%d\"><title>", x,
		    CHART_TOP + CHART_HEIGHT - height, CHART_BAR - 6, height);
		html_escape(out, day);
		buf_addf(out, ": %.4f, %lld tokens</title></rect>", cost,
		    (long long)(json_integer_value(json_object_get(row, "tokens_in")) +
		    json_integer_value(json_object_get(row, "tokens_out"))));
		buf_addf(out, "<text class=\"value\" x=\"%zu\" y=\"%d\" "
		    "text-anchor=\"middle\">%.2f</text>", x + (CHART_BAR - 6) / 2,
		    CHART_TOP + CHART_HEIGHT - height - 4, cost);
		/* The day, as MM-DD of YYYY-MM-DD, under every few bars. */
		if (i % label_every == 0 || i + 1 == n) {
			buf_addf(out, "<text class=\"axis\" x=\"%zu\" y=\"%d\" "
			    "text-anchor=\"middle\">", x + (CHART_BAR - 6) / 2,
			    CHART_TOP + CHART_HEIGHT + 16);
			html_escape(out, day && strlen(day) == 10 ? day + 5 : day);
			buf_adds(out, "</text>");
		}
	}
	buf_addf(out, "<line class=\"axis-line\" x1=\"%d\" y1=\"%d\" "
	    "x2=\"%zu\" y2=\"%d\"/><text class=\"axis\" x=\"%zu\" "
	    "y=\"%d\" text-anchor=\"end\">day</text></svg>", CHART_LEFT,
	    CHART_TOP + CHART_HEIGHT, width - 8, CHART_TOP + CHART_HEIGHT,
	    width - 8, CHART_TOP + CHART_HEIGHT + 30);
}

void
page_usage(struct serve_request *req, struct serve_response *res)
{
	static const char *const groupings[] = { "model", "agent", "label", "day" };
	struct serve *server = req->server;
	json_t *rows[4] = { NULL };
	struct err err = ERR_INIT;
	struct buf *out = &res->body;
	int rc = 0;

	pthread_mutex_lock(&server->lock);
	for (size_t i = 0; i < 4 && rc == 0; i++) {
		rows[i] = json_array();
		rc = usage_each(server->ledger, groupings[i], collect, rows[i], &err);
	}
	pthread_mutex_unlock(&server->lock);
	if (rc < 0) {
		serve_error(req, res, 500, "%s", err.message.buf);
		goto done;
	}
	res->content_type = "text/html; charset=utf-8";
	html_begin(req, out, "Usage", "Usage");
	buf_adds(out, "<h1>Usage</h1><p class=\"mute\">What saves recorded "
	    "(<code>daicho save --tokens-in N --tokens-out N --cost X --model "
	    "M</code>).</p>");
	/* Only the total row: nothing saved with usage yet. */
	if (json_array_size(rows[0]) <= 1 && json_integer_value(json_object_get(
	    json_array_get(rows[0], 0), "saves")) == 0) {
		html_empty(out, "No usage recorded yet.", "Workers record it with "
		    "each save: <code>daicho save ID -f FILE --tokens-in N "
		    "--tokens-out N --cost X --model M</code>.");
	} else {
		render_days(out, rows[3]);
		for (size_t i = 0; i < 4; i++)
			render_table(out, groupings[i], rows[i]);
	}
	html_end(req, out);
done:
	for (size_t i = 0; i < 4; i++)
		json_decref(rows[i]);
	err_release(&err);
}
