/*
 * Fuzz target "sse": the reader of a streamed chat answer (server-sent
 * events), cc_llm_stream_feed(), fed the body whole and again in pieces
 * of varying sizes, as libcurl may hand it over.
 *
 * Checked: the pieces make no difference (the same text, the same [DONE]
 * and bad-event flags), and delta() is handed exactly the text appended.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "cc_json.h"
#include "cc_llm.h"
#include "fuzz.h"

static void
delta(const char *s, size_t n, void *arg)
{
	fuzz_assert(n > 0);
	cc_buf_add(arg, s, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t pieces[] = { 1, 3, 17, 2, 64, 5 };
	struct cc_buf whole = {0}, cut = {0}, deltas = {0};
	struct cc_llm_stream a = { .out = &whole };
	struct cc_llm_stream b = { .out = &cut, .delta = delta, .arg = &deltas };
	const char *p = (const char *)data;
	size_t at = 0;

	cc_llm_stream_feed(p, size, &a);
	for (size_t k = 0; at < size; k++) {
		size_t n = pieces[k % (sizeof pieces / sizeof *pieces)];

		if (n > size - at)
			n = size - at;
		cc_llm_stream_feed(p + at, n, &b);
		at += n;
	}
	fuzz_assert(a.done == b.done && a.bad == b.bad);
	fuzz_assert(whole.len == cut.len);
	fuzz_assert(!whole.len || memcmp(whole.data, cut.data, whole.len) == 0);
	fuzz_assert(deltas.len == cut.len);
	fuzz_assert(!cut.len || memcmp(deltas.data, cut.data, cut.len) == 0);
	cc_buf_release(&a.line);
	cc_buf_release(&b.line);
	cc_buf_release(&whole);
	cc_buf_release(&cut);
	cc_buf_release(&deltas);
	return 0;
}
