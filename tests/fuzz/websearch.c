/*
 * Fuzz target "websearch": the reader of a web-search (SearXNG JSON)
 * answer, cc_websearch_parse(), on any body.
 *
 * Checked: at most the limit of hits, each with its three strings.
 */
#include "config.h"

#include <stdint.h>

#include "cc_kbnet.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_web_hit *hits;
	size_t n;
	const char *code = NULL;
	char err[256];

	if (cc_websearch_parse((const char *)data, size, 5, &hits, &n, &code,
	    err, sizeof err) < 0) {
		fuzz_assert(code && !hits && n == 0);
		return 0;
	}
	fuzz_assert(n <= 5);
	for (size_t i = 0; i < n; i++)
		fuzz_assert(hits[i].title && hits[i].url && hits[i].content &&
		    (*hits[i].title || *hits[i].content));
	cc_web_hits_release(hits, n);
	return 0;
}
