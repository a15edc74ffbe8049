/* Does the child ask for the answer?  (cc_answer_request.h) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
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

jv
cc_answer_request_detect(struct cc_lexicon *lex, const char *text, size_t len)
{
	static const char *const order[] = { "explicit", "implicit" };
	size_t n = cc_lexicon_scan(lex, text ? text : "", text ? len : 0), tlen;
	const struct cc_lexicon_hit **found = cc_xmalloc((n + 1) * sizeof *found);
	const char *folded = cc_lexicon_text(lex, &tlen);
	jv result = jv_object(), list = jv_array();
	const char *type = "none";
	double conf = 1.0;

	for (int o = 0; o < 2; o++) {
		double best;
		size_t k = phrases(lex, n, cc_lexicon_class(lex, order[o]), found, &best);

		if (!k)
			continue;
		type = order[o];
		conf = best;
		for (size_t i = 0; i < k; i++) {
			size_t os, oe;

			/* what the child wrote, where it can be told */
			if (text && cc_lexicon_source(lex, text, len, found[i]->start,
			    found[i]->end, &os, &oe) == 0)
				list = jv_array_append(list, jv_string_sized(text + os,
				    (int)(oe - os)));
			else
				list = jv_array_append(list, jv_string_sized(folded +
				    found[i]->start, (int)(found[i]->end - found[i]->start)));
		}
		break;
	}
	free(found);
	result = jv_object_set(result, cc_jv_name("request_type"), cc_jv_name(type));
	result = jv_object_set(result, cc_jv_name("confidence"), jv_number(conf));
	return jv_object_set(result, cc_jv_name("detected_phrases"), list);
}
