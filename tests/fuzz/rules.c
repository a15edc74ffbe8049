/*
 * Fuzz target "rules": a rules text (cc-rules(5)) through cc_rules_load(),
 * which takes a path, so the input is written to a private temporary file
 * first.  When it loads, a few questions are routed with it, each with the
 * slots of the one before as the session's context, and the trace is
 * written.  Lines "#? QUESTION" are comments to the loader and extra
 * questions to this target.
 *
 * Input slots (input SLOT PATH) are set to the question, or to a value
 * the rules name, in turn.
 *
 * Checked: the trace is one valid JSON object; a slot's value is the rules'
 * own interned copy, or the text of an input this turn.  The same text is
 * also read by cc_rules_check() (cc-domain check), which reads on past
 * each problem: it agrees with cc_rules_load() on whether the rules load,
 * and reports a problem exactly when they do not.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_rules.h"
#include "fuzz.h"

static const char *const questions[] = {
	"エンジニアカフェの営業時間を教えてください",
	"What are Engineer Cafe's opening hours?",
	"Wi-Fiのパスワードは？",
	"サイノの方",
	"opning hours of saino tomorow",
	"ＷｉＦｉ　ぱすわ〜ど",
	"",
};

static void
route(struct cc_rules *r, const char *q, size_t len, struct cc_rules_context *ctx)
{
	struct cc_buf b = {0};
	struct cc_json_doc doc = {0};
	struct cc_jw w;
	size_t n = cc_rules_nslots(r);
	char *copy = cc_xmalloc(len + 1);

	memcpy(copy, q, len);
	copy[len] = '\0';
	for (size_t i = 0; i < cc_rules_ninputs(r); i++) {
		int s = cc_rules_input_slot(r, i);

		ctx->input[s] = (len + i) % 2 ? copy : cc_rules_slot_name(r, 0);
	}
	cc_rules_eval(r, q, len, ctx);
	cc_jw_init(&w, &b);
	cc_jw_object(&w);
	cc_rules_write_trace(r, &w, NULL);
	cc_jw_end(&w);
	fuzz_assert(cc_json_scan(&doc, b.data, b.len) == 0);
	cc_json_doc_release(&doc);
	cc_buf_release(&b);
	cc_rules_get(r, "agent");
	cc_rules_skips_agent(r, cc_rules_get(r, "agent"));
	cc_rules_language_neutral(r, cc_rules_get(r, "language"));
	cc_rules_inherited(r);
	/* this turn becomes the context of the next */
	ctx->has_last = 1;
	for (size_t s = 0; s < n && s < CC_RULES_MAX_SLOTS; s++) {
		const char *v = cc_rules_value(r, (int)s);
		int from_input = 0;

		for (size_t k = 0; v && k < CC_RULES_MAX_SLOTS; k++)
			from_input |= ctx->input[k] && strcmp(v, ctx->input[k]) == 0;
		fuzz_assert(!v || cc_rules_intern(r, v) == v || from_input);
		cc_rules_slot(r, cc_rules_slot_name(r, s));
		ctx->prev[s] = ctx->last[s];
		ctx->last[s] = cc_rules_intern(r, v);	/* as a session gives them */
	}
	for (size_t i = 0; i < CC_RULES_MAX_SLOTS; i++)
		ctx->input[i] = NULL;
	free(copy);
}

static void
count_problem(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_rules_context ctx = {0};
	struct cc_rules *r;
	char err[512];
	const char *path;

	cc_progname = "fuzz-rules";
	path = fuzz_temp_file("rules", data, size);

	{
		struct cc_problems p = { count_problem, NULL, 0 };
		struct cc_rules *checked = cc_rules_check(path, &p);

		r = cc_rules_load(path, err, sizeof err);
		fuzz_assert(!checked == !r);
		fuzz_assert((p.n == 0) == (r != NULL));
		cc_rules_free(checked);
	}
	if (!r)
		return 0;
	for (size_t i = 0; i < sizeof questions / sizeof *questions; i++)
		route(r, questions[i], strlen(questions[i]), &ctx);
	route(r, "a\0b", 3, &ctx);	/* a question may hold \u0000 */
	/* the target's own questions: valid UTF-8 only, as records give */
	for (size_t i = 0; i + 3 <= size; i++) {
		const char *s = (const char *)data + i, *e;

		if ((i == 0 || data[i - 1] == '\n') && memcmp(s, "#? ", 3) == 0) {
			e = memchr(s, '\n', size - i);
			if (!e)
				e = (const char *)data + size;
			if (cc_utf8_valid(s + 3, (size_t)(e - s - 3)))
				route(r, s + 3, (size_t)(e - s - 3), &ctx);
		}
	}
	cc_rules_free(r);
	return 0;
}
