/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/dep: finding a cycle in a dependency graph.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/dep.h"

/* A graph built from an edge list "from depends on to". */
struct graph {
	struct dep_graph g;
	size_t *path;
};

static void
graph_init(struct graph *gr, size_t nodes)
{
	gr->g.nodes = nodes;
	gr->g.edges = calloc(nodes ? nodes : 1, sizeof(size_t *));
	gr->g.counts = calloc(nodes ? nodes : 1, sizeof(size_t));
	/* One spare slot beyond nodes + 1 to detect writes past the end. */
	gr->path = malloc((nodes + 2) * sizeof(size_t));
	assert_non_null(gr->g.edges);
	assert_non_null(gr->g.counts);
	assert_non_null(gr->path);
	for (size_t i = 0; i < nodes + 2; i++)
		gr->path[i] = (size_t)-7;
}

static void
graph_edge(struct graph *gr, size_t from, size_t to)
{
	size_t n = gr->g.counts[from];

	gr->g.edges[from] = realloc(gr->g.edges[from], (n + 1) * sizeof(size_t));
	assert_non_null(gr->g.edges[from]);
	gr->g.edges[from][n] = to;
	gr->g.counts[from] = n + 1;
}

static void
graph_release(struct graph *gr)
{
	for (size_t i = 0; i < gr->g.nodes; i++)
		free(gr->g.edges[i]);
	free(gr->g.edges);
	free(gr->g.counts);
	free(gr->path);
}

static bool
has_edge(const struct graph *gr, size_t from, size_t to)
{
	for (size_t e = 0; e < gr->g.counts[from]; e++)
		if (gr->g.edges[from][e] == to)
			return true;
	return false;
}

/*
 * Check that path[0..k] is a cycle of the graph: path[k] == path[0], each
 * step follows an edge (all forward, or all backward: either reading is a
 * cycle), nodes path[0..k-1] are distinct, and nothing is written after
 * path[k].
 */
static void
assert_valid_cycle(const struct graph *gr, size_t k)
{
	bool forward = true, backward = true;
	bool *seen = calloc(gr->g.nodes + 1, sizeof(bool));

	assert_non_null(seen);
	assert_true(k > 0);
	assert_true(k <= gr->g.nodes);
	assert_int_equal(gr->path[k], gr->path[0]);
	for (size_t i = 0; i < k; i++) {
		assert_true(gr->path[i] < gr->g.nodes);
		if (!has_edge(gr, gr->path[i], gr->path[i + 1]))
			forward = false;
		if (!has_edge(gr, gr->path[i + 1], gr->path[i]))
			backward = false;
		if (seen[gr->path[i]])
			fail_msg("node %zu repeats in the cycle", gr->path[i]);
		seen[gr->path[i]] = true;
	}
	free(seen);
	if (!forward && !backward)
		fail_msg("path of length %zu does not follow edges", k);
	/* path must hold nodes + 1 entries; nothing beyond path[k] is needed. */
	assert_int_equal(gr->path[gr->g.nodes + 1], (size_t)-7);
}

static void
test_empty_graph(void **state)
{
	struct graph gr;

	graph_init(&gr, 0);
	assert_int_equal(dep_find_cycle(&gr.g, gr.path), 0);
	graph_release(&gr);
}

static void
test_no_edges(void **state)
{
	struct graph gr;

	graph_init(&gr, 5);
	assert_int_equal(dep_find_cycle(&gr.g, gr.path), 0);
	graph_release(&gr);
}

static void
test_acyclic_dag(void **state)
{
	struct graph gr;

	/* Diamonds and shared descendants, visited from several roots. */
	graph_init(&gr, 7);
	graph_edge(&gr, 0, 1);
	graph_edge(&gr, 0, 2);
	graph_edge(&gr, 1, 3);
	graph_edge(&gr, 2, 3);
	graph_edge(&gr, 3, 4);
	graph_edge(&gr, 5, 3);
	graph_edge(&gr, 5, 4);
	graph_edge(&gr, 6, 0);
	graph_edge(&gr, 6, 5);
	graph_edge(&gr, 6, 4);
	graph_edge(&gr, 0, 4);
	graph_edge(&gr, 0, 1); /* duplicate edge */
	assert_int_equal(dep_find_cycle(&gr.g, gr.path), 0);
	graph_release(&gr);
}

static void
test_acyclic_reverse_order(void **state)
{
	struct graph gr;

	/* Edges from low to high ids and high to low: still no cycle. */
	graph_init(&gr, 4);
	graph_edge(&gr, 3, 0);
	graph_edge(&gr, 0, 2);
	graph_edge(&gr, 2, 1);
	graph_edge(&gr, 3, 1);
	assert_int_equal(dep_find_cycle(&gr.g, gr.path), 0);
	graph_release(&gr);
}

static void
test_self_loop(void **state)
{
	struct graph gr;
	size_t k;

	graph_init(&gr, 3);
	graph_edge(&gr, 0, 1);
	graph_edge(&gr, 2, 2);
	k = dep_find_cycle(&gr.g, gr.path);
	assert_int_equal(k, 1);
	assert_int_equal(gr.path[0], 2);
	assert_int_equal(gr.path[1], 2);
	assert_valid_cycle(&gr, k);
	graph_release(&gr);
}

static void
test_two_cycle(void **state)
{
	struct graph gr;
	size_t k;

	graph_init(&gr, 2);
	graph_edge(&gr, 0, 1);
	graph_edge(&gr, 1, 0);
	k = dep_find_cycle(&gr.g, gr.path);
	assert_int_equal(k, 2);
	assert_valid_cycle(&gr, k);
	assert_true((gr.path[0] == 0 && gr.path[1] == 1) ||
	    (gr.path[0] == 1 && gr.path[1] == 0));
	graph_release(&gr);
}

static void
test_three_cycle_from_outside(void **state)
{
	struct graph gr;
	size_t k, i;
	bool seen[5] = { false };

	/* 0 -> 1 -> 2 -> 3 -> 1, plus 4 hanging off 0. */
	graph_init(&gr, 5);
	graph_edge(&gr, 0, 4);
	graph_edge(&gr, 0, 1);
	graph_edge(&gr, 1, 2);
	graph_edge(&gr, 2, 3);
	graph_edge(&gr, 3, 1);
	k = dep_find_cycle(&gr.g, gr.path);
	assert_int_equal(k, 3);
	assert_valid_cycle(&gr, k);
	for (i = 0; i < k; i++)
		seen[gr.path[i]] = true;
	assert_false(seen[0]); /* the node leading into the cycle is not in it */
	assert_true(seen[1]);
	assert_true(seen[2]);
	assert_true(seen[3]);
	assert_false(seen[4]);
	graph_release(&gr);
}

static void
test_cycle_in_later_component(void **state)
{
	struct graph gr;
	size_t k;

	graph_init(&gr, 6);
	graph_edge(&gr, 0, 1);
	graph_edge(&gr, 1, 2);
	graph_edge(&gr, 3, 4);
	graph_edge(&gr, 4, 5);
	graph_edge(&gr, 5, 4);
	k = dep_find_cycle(&gr.g, gr.path);
	assert_int_equal(k, 2);
	assert_valid_cycle(&gr, k);
	assert_true(gr.path[0] == 4 || gr.path[0] == 5);
	graph_release(&gr);
}

static void
test_cycle_after_finished_subtree(void **state)
{
	struct graph gr;
	size_t k;

	/* 0 -> 1 -> 2 (done), then 0 -> 3 -> 2 and 3 -> 0: cycle 0 3 0. */
	graph_init(&gr, 4);
	graph_edge(&gr, 0, 1);
	graph_edge(&gr, 1, 2);
	graph_edge(&gr, 0, 3);
	graph_edge(&gr, 3, 2);
	graph_edge(&gr, 3, 0);
	k = dep_find_cycle(&gr.g, gr.path);
	assert_int_equal(k, 2);
	assert_valid_cycle(&gr, k);
	graph_release(&gr);
}

static void
test_long_chain_acyclic(void **state)
{
	struct graph gr;
	size_t n = 200000;

	/* Deep enough to overflow a recursive search. */
	graph_init(&gr, n);
	for (size_t i = 0; i + 1 < n; i++)
		graph_edge(&gr, i, i + 1);
	assert_int_equal(dep_find_cycle(&gr.g, gr.path), 0);
	graph_release(&gr);
}

static void
test_long_cycle(void **state)
{
	struct graph gr;
	size_t n = 100000, k;

	graph_init(&gr, n);
	for (size_t i = 0; i < n; i++)
		graph_edge(&gr, i, (i + 1) % n);
	k = dep_find_cycle(&gr.g, gr.path);
	assert_int_equal(k, n);
	assert_valid_cycle(&gr, k);
	graph_release(&gr);
}

static void
test_dense_acyclic(void **state)
{
	struct graph gr;
	size_t n = 300;

	/* Every node depends on every higher node: n^2/2 edges, no cycle. */
	graph_init(&gr, n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			graph_edge(&gr, i, j);
	assert_int_equal(dep_find_cycle(&gr.g, gr.path), 0);
	/* One back edge closes a cycle. */
	graph_edge(&gr, n - 1, n / 2);
	assert_true(dep_find_cycle(&gr.g, gr.path) > 0);
	assert_valid_cycle(&gr, dep_find_cycle(&gr.g, gr.path));
	graph_release(&gr);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_graph),
		cmocka_unit_test(test_no_edges),
		cmocka_unit_test(test_acyclic_dag),
		cmocka_unit_test(test_acyclic_reverse_order),
		cmocka_unit_test(test_self_loop),
		cmocka_unit_test(test_two_cycle),
		cmocka_unit_test(test_three_cycle_from_outside),
		cmocka_unit_test(test_cycle_in_later_component),
		cmocka_unit_test(test_cycle_after_finished_subtree),
		cmocka_unit_test(test_long_chain_acyclic),
		cmocka_unit_test(test_long_cycle),
		cmocka_unit_test(test_dense_acyclic),
	};

	return cmocka_run_group_tests_name("dep", tests, NULL, NULL);
}
