/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/dep.h"

#include <stdlib.h>

#include "util/alloc.h"

enum { WHITE, GREY, BLACK };

/*
 * Iterative depth-first search with colours; a grey node reached again
 * closes a cycle, which is read back from the explicit stack.
 */
size_t
dep_find_cycle(const struct dep_graph *graph, size_t *path)
{
	size_t n = graph->nodes;
	unsigned char *colour = xcalloc(n ? n : 1, 1);
	size_t *stack = xmalloc((n ? n : 1) * sizeof(size_t));
	size_t *next_edge = xcalloc(n ? n : 1, sizeof(size_t));
	size_t found = 0;

	for (size_t root = 0; root < n && !found; root++) {
		size_t top = 0;

		if (colour[root] != WHITE)
			continue;
		stack[top++] = root;
		colour[root] = GREY;
		while (top > 0 && !found) {
			size_t v = stack[top - 1];

			if (next_edge[v] < graph->counts[v]) {
				size_t w = graph->edges[v][next_edge[v]++];

				if (colour[w] == WHITE) {
					colour[w] = GREY;
					stack[top++] = w;
				} else if (colour[w] == GREY) {
					size_t start = top - 1;

					while (stack[start] != w)
						start--;
					found = top - start;
					for (size_t k = 0; k < found; k++)
						path[k] = stack[start + k];
					path[found] = w;
				}
			} else {
				colour[v] = BLACK;
				top--;
			}
		}
	}
	free(colour);
	free(stack);
	free(next_edge);
	return found;
}
