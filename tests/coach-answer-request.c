/*
 * coach-answer-request [CUES]: a test driver for cc_answer_request_detect.
 * Reads NDJSON records ({"query"} or {"utterance"}, or a bare string) and
 * writes one line for each: {"id"?, "answer_request": {request_type,
 * confidence, detected_phrases}}.  CUES defaults to
 * $CC_DATADIR/homework-coach/answer_request.cues.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "coach/cc_answer_request.h"

int
main(int argc, char **argv)
{
	const char *dir = getenv("CC_DATADIR");
	char path[4096], err[768], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct cc_lexicon *lex;
	struct cc_buf out = {0};
	int status = 0;

	cc_set_progname(argv[0]);
	if (argc > 1)
		snprintf(path, sizeof path, "%s", argv[1]);
	else
		snprintf(path, sizeof path, "%s/homework-coach/answer_request.cues",
		    dir ? dir : ".");
	if (!(lex = cc_answer_request_load(path, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		jv rec = cc_json_parse(line, (size_t)n), text = jv_invalid(), o;

		if (jv_get_kind(rec) == JV_KIND_STRING) {
			text = jv_copy(rec);
		} else if (jv_get_kind(rec) == JV_KIND_OBJECT) {
			text = jv_object_get(jv_copy(rec), jv_string("query"));
			if (jv_get_kind(text) != JV_KIND_STRING) {
				jv_free(text);
				text = jv_object_get(jv_copy(rec), jv_string("utterance"));
			}
		}
		if (jv_get_kind(text) != JV_KIND_STRING) {
			cc_warn("not a record with a query: %.*s", (int)(n - 1), line);
			status = CC_EXIT_DATA;
			jv_free(text);
			jv_free(rec);
			continue;
		}
		o = jv_object();
		if (jv_get_kind(rec) == JV_KIND_OBJECT &&
		    jv_object_has(jv_copy(rec), jv_string("id")))
			o = jv_object_set(o, jv_string("id"),
			    jv_object_get(jv_copy(rec), jv_string("id")));
		o = jv_object_set(o, jv_string("answer_request"), cc_answer_request_detect(lex,
		    jv_string_value(text), (size_t)jv_string_length_bytes(jv_copy(text))));
		out.len = 0;
		cc_json_put(&out, o);
		puts(out.data);
		jv_free(o);
		jv_free(text);
		jv_free(rec);
	}
	free(line);
	cc_buf_release(&out);
	cc_lexicon_free(lex);
	return status;
}
