/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Graph: the dependency DAG as SVG, laid out and drawn on the server by
 * Graphviz's library (libgvc, the dot layout), each task coloured by its
 * state and linked to its page. To stay readable at hundreds of tasks,
 * done tasks (verified, or landed) joined by edges collapse into one node
 * per group and state ("12
 * verified"): what is done is one box, what is moving is drawn in full.
 * The collapsed graph is cached until the next event.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "core/task.h"
#include "serve/serve.h"
#include "util/alloc.h"

#define TITLE_SHOWN 32         /* characters of a title in a node */
#define NODES_MAX 1500         /* drawn at most; the rest are counted */

struct node {
	int64_t id;
	char *state;
	char *title;
	size_t group;            /* union-find parent (index) for verified */
};

struct edge {
	int64_t task, after;
};

struct graph_data {
	struct node *nodes;
	size_t count, alloc;
	struct edge *edges;
	size_t edge_count, edge_alloc;
};

static int
collect_task(const struct task *t, void *arg)
{
	struct graph_data *d = arg;
	struct node *n;

	xgrow((void **)&d->nodes, &d->alloc, d->count + 1, sizeof(*d->nodes));
	n = &d->nodes[d->count];
	n->id = t->id;
	n->state = xstrdup(t->state);
	n->title = xstrdup(t->title);
	n->group = d->count++;
	return 0;
}

static int
collect_edge(int64_t task, int64_t after, void *arg)
{
	struct graph_data *d = arg;

	xgrow((void **)&d->edges, &d->edge_alloc, d->edge_count + 1,
	    sizeof(*d->edges));
	d->edges[d->edge_count].task = task;
	d->edges[d->edge_count].after = after;
	d->edge_count++;
	return 0;
}

static void
graph_data_release(struct graph_data *d)
{
	for (size_t i = 0; i < d->count; i++) {
		free(d->nodes[i].state);
		free(d->nodes[i].title);
	}
	free(d->nodes);
	free(d->edges);
}

/* The node index of task id (nodes are in id order), or -1. */
static long
find_node(const struct graph_data *d, int64_t id)
{
	size_t lo = 0, hi = d->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->nodes[mid].id == id)
			return (long)mid;
		if (d->nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static size_t
group_of(struct graph_data *d, size_t i)
{
	while (d->nodes[i].group != i) {
		d->nodes[i].group = d->nodes[d->nodes[i].group].group;
		i = d->nodes[i].group;
	}
	return i;
}

/* Whether n is done (verified or landed): done tasks are drawn grouped. */
static bool
verified(const struct node *n)
{
	return strcmp(n->state, "verified") == 0 ||
	       strcmp(n->state, "landed") == 0;
}

/* The fill colour of a state. */
static const char *
colour_of(const char *state)
{
	static const struct {
		const char *state, *colour;
	} colours[] = {
		{ "open", "#e3ecfa" }, { "claimed", "#fff0c2" },
		{ "reported", "#f3e5f5" }, { "verified", "#dcefdc" },
		{ "landed", "#c8e6c9" },
		{ "blocked", "#ffd9b0" }, { "failed", "#f8d0cc" },
		{ "cancelled", "#e4e4e4" },
	};

	for (size_t i = 0; i < sizeof(colours) / sizeof(colours[0]); i++)
		if (strcmp(colours[i].state, state) == 0)
			return colours[i].colour;
	return "#ffffff";
}

/* Append text for a dot label: backslashes doubled, cut to max chars. */
static void
add_label_text(struct buf *out, const char *text, size_t max)
{
	size_t chars = 0;

	for (const char *p = text; *p && chars < max; p++) {
		if ((*p & 0xC0) != 0x80)
			chars++;
		if (*p == '\\')
			buf_addch(out, '\\');
		buf_addch(out, (unsigned char)*p < 0x20 ? ' ' : *p);
	}
	if (strlen(text) > max && chars >= max)
		buf_adds(out, "…");
}

/*
 * Graphviz 2.42 (Debian 12) declares agattr() and agsafeset() with char *
 * names and values, yet only reads them: it keeps copies of its own
 * (agstrdup()); later versions say const char *. These two take daicho's
 * const strings and cast for it, in this one place.
 */

/* The default of attribute name for the objects of kind in g. */
static void
set_default(Agraph_t *g, int kind, const char *name, const char *value)
{
	agattr(g, kind, (char *)name, (char *)value);
}

/* Set attribute name of node n (its default: empty). */
static void
set_attribute(Agnode_t *n, const char *name, const char *value)
{
	agsafeset(n, (char *)name, (char *)value, (char *)"");
}

/* Set a node's drawing attributes. */
static void
style_node(Agnode_t *n, const char *label, const char *state, const char *url,
    const char *tooltip)
{
	set_attribute(n, "label", label);
	set_attribute(n, "fillcolor", colour_of(state));
	set_attribute(n, "URL", url);
	set_attribute(n, "tooltip", tooltip);
	set_attribute(n, "class", state);
}

/*
 * Lay out and draw d as SVG into svg. Verified tasks joined by an edge
 * share a group drawn as one node, which links to the graph with it
 * drawn in full; but the group of task expand (0: none), which is drawn in
 * full. *drawn counts the nodes drawn. Caller holds server->graph_lock
 * (Graphviz is not thread-safe).
 */
static int
draw(GVC_t *gvc, struct graph_data *d, int64_t expand, struct buf *svg,
    size_t *drawn, size_t *hidden)
{
	char graph_name[] = "daicho"; /* agopen() takes char *; it copies it */
	Agraph_t *g = agopen(graph_name, Agstrictdirected, NULL);
	Agnode_t **made = xcalloc(d->count ? d->count : 1, sizeof(*made));
	size_t *members = xcalloc(d->count ? d->count : 1, sizeof(*members));
	struct buf name = BUF_INIT, label = BUF_INIT, url = BUF_INIT;
	char *data = NULL;
	unsigned int len = 0;
	int rc = 0;

	set_default(g, AGRAPH, "rankdir", "LR");
	set_default(g, AGRAPH, "nodesep", "0.15");
	set_default(g, AGRAPH, "ranksep", "0.4");
	set_default(g, AGRAPH, "fontname", "sans-serif");
	set_default(g, AGNODE, "shape", "box");
	set_default(g, AGNODE, "style", "rounded,filled");
	set_default(g, AGNODE, "fontname", "sans-serif");
	set_default(g, AGNODE, "fontsize", "10");
	set_default(g, AGNODE, "height", "0.3");
	set_default(g, AGEDGE, "arrowsize", "0.6");
	set_default(g, AGEDGE, "color", "#888888");
	/* Join verified tasks along their edges. */
	for (size_t e = 0; e < d->edge_count; e++) {
		long a = find_node(d, d->edges[e].task);
		long b = find_node(d, d->edges[e].after);

		if (a >= 0 && b >= 0 && verified(&d->nodes[a]) &&
		    strcmp(d->nodes[a].state, d->nodes[b].state) == 0)
			d->nodes[group_of(d, (size_t)a)].group = group_of(d, (size_t)b);
	}
	for (size_t i = 0; i < d->count; i++)
		if (verified(&d->nodes[i]))
			members[group_of(d, i)]++;
	/* The expanded group: its members are drawn one by one. */
	if (expand != 0) {
		long x = find_node(d, expand);
		size_t root = x >= 0 && verified(&d->nodes[x])
		    ? group_of(d, (size_t)x) : 0;

		bool *in = xcalloc(d->count ? d->count : 1, sizeof(*in));

		/* Find them all first: a member made its own root would cut
		 * the path of those after it. */
		for (size_t i = 0; x >= 0 && i < d->count; i++)
			in[i] = verified(&d->nodes[i]) && group_of(d, i) == root;
		for (size_t i = 0; i < d->count; i++)
			if (in[i]) {
				members[i] = 1;
				d->nodes[i].group = i;
			}
		free(in);
	}
	*drawn = *hidden = 0;
	for (size_t i = 0; i < d->count; i++) {
		struct node *n = &d->nodes[i];
		size_t root = verified(n) ? group_of(d, i) : i;

		if (made[root] != NULL) {
			made[i] = made[root];
			continue;
		}
		if (*drawn >= NODES_MAX) {
			(*hidden)++;
			continue;
		}
		buf_reset(&name);
		buf_reset(&label);
		buf_reset(&url);
		buf_addf(&name, "n%zu", root);
		made[root] = made[i] = agnode(g, name.buf, 1);
		if (verified(n) && members[root] > 1) {
			buf_addf(&label, "✓ %zu %s", members[root], n->state);
			buf_addf(&url, "/graph?expand=%lld",
			    (long long)d->nodes[root].id);
		} else {
			buf_addf(&label, "#%lld ", (long long)n->id);
			add_label_text(&label, n->title, TITLE_SHOWN);
			buf_addf(&url, "/tasks/%lld", (long long)n->id);
		}
		style_node(made[i], label.buf, n->state, url.buf,
		    verified(n) && members[root] > 1 ? label.buf : n->title);
		(*drawn)++;
	}
	for (size_t e = 0; e < d->edge_count; e++) {
		long a = find_node(d, d->edges[e].task);
		long b = find_node(d, d->edges[e].after);

		if (a < 0 || b < 0 || made[a] == NULL || made[b] == NULL ||
		    made[a] == made[b])
			continue;
		agedge(g, made[b], made[a], NULL, 1);
	}
	if (gvLayout(gvc, g, "dot") != 0 ||
	    gvRenderData(gvc, g, "svg", &data, &len) != 0) {
		rc = -1;
	} else {
		const char *start = strstr(data, "<svg");

		buf_reset(svg);
		if (start != NULL)
			buf_add(svg, start, len - (unsigned)(start - data));
	}
	if (data != NULL)
		gvFreeRenderData(data);
	gvFreeLayout(gvc, g);
	agclose(g);
	free(made);
	free(members);
	buf_release(&name);
	buf_release(&label);
	buf_release(&url);
	return rc;
}

/* The Graphviz context, made once (its plugins load then). */
static GVC_t *
graphviz(void)
{
	static GVC_t *gvc;

	if (gvc == NULL)
		gvc = gvContext();
	return gvc;
}

/*
 * The collapsed graph's SVG into svg, the group of task expand drawn in
 * full (0: none); from the cache when no event came since it was drawn
 * (the graph with nothing expanded only). Returns 0, or -1 with err set.
 */
static int
graph_svg(struct serve *server, int64_t expand, struct buf *svg,
    size_t *drawn, size_t *hidden, size_t *tasks, struct err *err)
{
	struct graph_data d = { 0 };
	int64_t event_id;
	int rc;

	pthread_mutex_lock(&server->live.lock);
	event_id = server->live.last_event_id;
	pthread_mutex_unlock(&server->live.lock);
	pthread_mutex_lock(&server->graph_lock);
	if (expand == 0 && server->graph_event_id == event_id &&
	    event_id >= 0) {
		buf_add(svg, server->graph_svg.buf, server->graph_svg.len);
		*drawn = server->graph_drawn;
		*hidden = server->graph_hidden;
		*tasks = server->graph_tasks;
		pthread_mutex_unlock(&server->graph_lock);
		return 0;
	}
	pthread_mutex_lock(&server->lock);
	rc = task_each(server->ledger, &(struct task_filter){ 0 }, collect_task,
	    &d, err);
	if (rc == 0)
		rc = task_each_edge(server->ledger, collect_edge, &d, err);
	pthread_mutex_unlock(&server->lock);
	if (rc == 0 && draw(graphviz(), &d, expand, svg, drawn, hidden) < 0)
		rc = err_set(err, ERR_FAILED, "Graphviz could not lay out the "
		    "graph (are its plugins installed? 'dot -c' registers them)");
	*tasks = d.count;
	if (rc == 0 && expand == 0) {
		buf_reset(&server->graph_svg);
		buf_add(&server->graph_svg, svg->buf, svg->len);
		server->graph_event_id = event_id;
		server->graph_drawn = *drawn;
		server->graph_hidden = *hidden;
		server->graph_tasks = *tasks;
	}
	pthread_mutex_unlock(&server->graph_lock);
	graph_data_release(&d);
	return rc;
}

void
page_graph(struct serve_request *req, struct serve_response *res)
{
	static const char *const states[] = { "open", "claimed", "reported",
		"blocked", "verified", "landed", "failed", "cancelled" };
	struct buf svg = BUF_INIT;
	struct err err = ERR_INIT;
	struct buf *out = &res->body;
	const char *expand_text = serve_query(req, "expand");
	size_t drawn, hidden, tasks;
	int64_t expand = 0;

	if (expand_text != NULL && task_parse_id(expand_text, &expand,
	    &err) < 0) {
		serve_error(req, res, 400, "expand: %s", err.message.buf);
		goto done;
	}
	if (graph_svg(req->server, expand, &svg, &drawn, &hidden, &tasks,
		&err) < 0) {
		serve_error(req, res, 500, "%s", err.message.buf);
		goto done;
	}
	res->content_type = "text/html; charset=utf-8";
	html_begin(req, out, "Graph", "Graph");
	buf_addf(out, "<h1>Graph <span class=\"mute\">(%zu tasks, %zu nodes "
	    "drawn", tasks, drawn);
	if (hidden)
		buf_addf(out, ", %zu more not drawn", hidden);
	buf_adds(out, ")</span></h1><p class=\"legend\">");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		html_state(out, states[i]);
		buf_adds(out, " ");
	}
	if (expand != 0)
		buf_addf(out, " · the done work around #%lld drawn in full: "
		    "<a href=\"/graph\">collapse it</a>", (long long)expand);
	else
		buf_adds(out, " · verified (or landed) tasks joined by edges "
		    "are one node: click it to see them");
	buf_adds(out, " · <a href=\"/graph.svg\">SVG alone</a></p><div "
	    "class=\"graph\" id=\"graph\">");
	buf_add(out, svg.buf, svg.len);
	buf_adds(out, "</div>");
	if (tasks == 0)
		html_empty(out, "Nothing to draw yet.", "Tasks appear here with "
		    "their order: <code>daicho add TITLE --after ID</code> draws "
		    "an edge from ID.");
	html_end(req, out);
done:
	buf_release(&svg);
	err_release(&err);
}

void
page_graph_svg(struct serve_request *req, struct serve_response *res)
{
	struct err err = ERR_INIT;
	size_t drawn, hidden, tasks;

	if (graph_svg(req->server, 0, &res->body, &drawn, &hidden, &tasks,
		&err) < 0)
		serve_error(req, res, 500, "%s", err.message.buf);
	else
		res->content_type = "image/svg+xml";
	err_release(&err);
}
