/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Dependency graphs: finding a cycle among new edges before they are
 * written, so that the error can name it.
 */
#ifndef DAICHO_DEP_H
#define DAICHO_DEP_H

#include <stddef.h>

/* Node i depends on nodes edges[i][0..counts[i]-1]. */
struct dep_graph {
	size_t nodes;
	size_t **edges;
	size_t *counts;
};

/*
 * Find a cycle. Returns its length k (> 0) and fills path[0..k] with the
 * nodes along it, path[k] == path[0]; returns 0 when the graph is acyclic.
 * path must hold nodes + 1 entries.
 */
size_t dep_find_cycle(const struct dep_graph *graph, size_t *path);

#endif
