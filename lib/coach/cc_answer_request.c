/* Does the child ask for the answer?  (cc_answer_request.h) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "coach/cc_lexicon.h"
#include "coach/cc_answer_request.h"

struct cc_lexicon *
cc_answer_request_load(const char *path, char *err, size_t errlen)
{
	struct cc_lexicon *x = cc_lexicon_load(path, NULL, err, errlen);

	if (x && (cc_lexicon_class(x, "explicit") < 0 || cc_lexicon_class(x, "implicit") < 0)) {
		snprintf(err, errlen, "%s: the classes 'explicit' and 'implicit' "
		    "must both be declared", path);
		cc_lexicon_free(x);
		return NULL;
	}
	return x;
}

/* Hits of class cls with a weight, in text order (insertion sort: few). */
static size_t
phrases(struct cc_lexicon *lex, size_t n, int cls, const struct cc_lexicon_hit **out,
    double *best)
{
	size_t k = 0;

	*best = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cc_lexicon_hit *h = cc_lexicon_hit(lex, i);
		size_t j;

		if (h->cls != cls || h->weight <= 0)
			continue;
		if (h->weight > *best)
			*best = h->weight;
		for (j = k; j > 0 && out[j - 1]->start > h->start; j--)
			out[j] = out[j - 1];
		out[j] = h;
		k++;
	}
	return k;
}

void
cc_answer_request_scan(struct cc_lexicon *lex, const char *text, size_t len,
    struct cc_answer_request *r)
{
	static const char *const order[] = { "explicit", "implicit" };
	size_t n = cc_lexicon_scan(lex, text ? text : "", text ? len : 0), tlen;
	const struct cc_lexicon_hit **found = cc_xmalloc((n + 1) * sizeof *found);
	const char *folded = cc_lexicon_text(lex, &tlen);

	r->type = "none";
	r->confidence = 1.0;
	r->n = 0;
	for (int o = 0; o < 2; o++) {
		double best;
		size_t k = phrases(lex, n, cc_lexicon_class(lex, order[o]), found, &best);

		if (!k)
			continue;
		r->type = order[o];
		r->confidence = best;
		if (k > r->cap) {
			r->cap = k;
			r->phrase = cc_xrealloc(r->phrase, k * sizeof *r->phrase);
		}
		for (size_t i = 0; i < k; i++) {
			size_t os, oe;

			/* what the child wrote, where it can be told */
			if (text && cc_lexicon_source(lex, text, len, found[i]->start,
			    found[i]->end, &os, &oe) == 0) {
				r->phrase[i].s = text + os;
				r->phrase[i].len = oe - os;
			} else {
				r->phrase[i].s = folded + found[i]->start;
				r->phrase[i].len = found[i]->end - found[i]->start;
			}
		}
		r->n = k;
		break;
	}
	free(found);
}

void
cc_answer_request_release(struct cc_answer_request *r)
{
	free(r->phrase);
	memset(r, 0, sizeof *r);
}

/* A phrase as a jv string: libjq's (invalid UTF-8 replaced), borrowed bytes. */
static jv
phrase_jv(const struct cc_answer_request *r, size_t i)
{
	return jv_string_sized(r->phrase[i].s, (int)r->phrase[i].len);
}

void
cc_answer_request_write(const struct cc_answer_request *r, struct cc_jw *w)
{
	cc_jw_object(w);
	cc_jw_key(w, "request_type");
	cc_jw_cstr(w, r->type);
	cc_jw_key(w, "confidence");
	cc_jw_num(w, r->confidence);
	cc_jw_key(w, "detected_phrases");
	cc_jw_array(w);
	for (size_t i = 0; i < r->n; i++) {
		/* as the jv would have them: libjq mends invalid UTF-8 */
		if (cc_utf8_valid(r->phrase[i].s, r->phrase[i].len)) {
			cc_jw_str(w, r->phrase[i].s, r->phrase[i].len);
		} else {
			jv p = phrase_jv(r, i);

			cc_jw_jv(w, p);
			jv_free(p);
		}
	}
	cc_jw_end(w);
	cc_jw_end(w);
}

jv
cc_answer_request_detect(struct cc_lexicon *lex, const char *text, size_t len)
{
	struct cc_answer_request r = {0};
	jv result = jv_object(), list = jv_array();

	cc_answer_request_scan(lex, text, len, &r);
	for (size_t i = 0; i < r.n; i++)
		list = jv_array_append(list, phrase_jv(&r, i));
	result = jv_object_set(result, cc_jv_name("request_type"), cc_jv_name(r.type));
	result = jv_object_set(result, cc_jv_name("confidence"), jv_number(r.confidence));
	cc_answer_request_release(&r);
	return jv_object_set(result, cc_jv_name("detected_phrases"), list);
}
