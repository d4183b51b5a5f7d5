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

/* Cost and tokens per day, as bars. */
static void
render_days(struct buf *out, const json_t *days)
{
	size_t n = json_array_size(days) > 0 ? json_array_size(days) - 1 : 0;
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
	buf_addf(out, "<h2>Cost by day</h2><svg class=\"days\" width=\"%zu\" "
	    "height=\"140\" role=\"img\" aria-label=\"cost by day\">",
	    n * 24 + 20);
	for (i = 0; i < n; i++) {
		double cost;
		int height;

		row = json_array_get(days, i);
		cost = json_real_value(json_object_get(row, "cost"));
		height = most > 0 ? (int)(cost / most * 110) : 0;
		buf_addf(out, "<rect class=\"bar\" x=\"%zu\" y=\"%d\" width=\"18\" "
		    "height=\"%d\"><title>", 10 + i * 24, 120 - height, height);
		html_escape(out, json_string_value(json_object_get(row, "key")));
		buf_addf(out, ": %.4f, %lld tokens</title></rect>", cost,
		    (long long)(json_integer_value(json_object_get(row, "tokens_in")) +
		    json_integer_value(json_object_get(row, "tokens_out"))));
	}
	buf_adds(out, "</svg>");
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
	render_days(out, rows[3]);
	for (size_t i = 0; i < 4; i++)
		render_table(out, groupings[i], rows[i]);
	html_end(req, out);
done:
	for (size_t i = 0; i < 4; i++)
		json_decref(rows[i]);
	err_release(&err);
}
