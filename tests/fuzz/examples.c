/*
 * Fuzz target "examples": a domain's examples file (cc-domain(5),
 * examples) through cc_examples_read(), which reads a path, so the input
 * is written to a private temporary file first; what it reads is learnt
 * (cc_classify_train) and a few questions are classified.  The domain is
 * built here: two agents, the three route labels, an alias.
 *
 * Checked: every example has a label the reader made, each label string
 * has one value per route member and names a known agent; the model
 * learnt has those labels and gives verdicts among them.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_domain.h"
#include "cc_examples.h"
#include "fuzz.h"

static void
ignore(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cc_domain_agent agents[] = {
		{ .name = "shop_info" }, { .name = "small_talk" },
	};
	static struct cc_domain_alias aliases[] = {
		{ .label = "category", .from = "\"bakery\"", .to = "\"bread\"" },
	};
	struct cc_domain d = {
		.path = "fuzz/domain", .agents = agents, .nagents = 2,
		.fallback = &agents[1], .eval_query = "query",
		.labels = {
			{ .name = "agent", .path = "route.agent" },
			{ .name = "category", .path = "route.category" },
			{ .name = "request_type", .path = "route.request_type" },
		},
		.nlabels = 3, .aliases = aliases, .naliases = 1,
	};
	struct cc_problems p = { ignore, NULL, 0 };
	struct cc_examples ex;
	const char *path;

	cc_progname = "fuzz-examples";
	path = fuzz_temp_file("examples", data, size);

	fuzz_assert(cc_examples_read(NULL, &d, path, &ex, &p) == 0);
	for (size_t i = 0; i < ex.n; i++)
		fuzz_assert(ex.label[i] < ex.nlabels && ex.texts[i]);
	for (size_t l = 0; l < ex.nlabels; l++) {
		char *copy = cc_xstrdup(ex.labels[l]), *v[CC_EXAMPLES_NSLOTS];

		cc_examples_split(copy, v);
		for (size_t k = 0; k < CC_EXAMPLES_NSLOTS; k++)
			fuzz_assert(v[k]);
		fuzz_assert(cc_domain_find_agent(&d, v[0]));
		free(copy);
	}
	if (ex.n > 0) {
		struct cc_classify *m = cc_classify_train((const char *const *)ex.texts,
		    ex.label, ex.n, (const char *const *)ex.labels, ex.nlabels);
		struct cc_classify_result r;

		fuzz_assert(cc_classify_nlabels(m) == ex.nlabels);
		cc_classify_predict(m, ex.texts[0], strlen(ex.texts[0]), -1, &r);
		fuzz_assert(r.label < (int)ex.nlabels);
		cc_classify_predict(m, "パン", strlen("パン"), 0, &r);
		fuzz_assert(r.label < (int)ex.nlabels);
		cc_classify_free(m);
	}
	cc_examples_release(&ex);
	return 0;
}
