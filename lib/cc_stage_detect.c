/* The cc-detect-lang stage: add language_detection to each record from its query. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_lang.h"
#include "cc_memo.h"
#include "cc_domain.h"
#include "cc_stages.h"

struct detector {
	struct cc_config cfg;
	struct cc_domain *dom;
	/* language_detection is the query's alone: written once a question */
	struct cc_memo memo;
	struct cc_buf text;
};

static enum cc_outcome
detect(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct detector *d = ctx;
	struct cc_lang_result r;
	struct cc_memo_entry *e;
	size_t len;
	const char *q = cc_record_query(rec, &len);

	if (!q)
		return cc_record_fail(rec, "no_query",
		    "the record has no string \"query\"");
	if ((e = cc_memo_find(&d->memo, q, len)) && !e->value) {
		struct cc_jw w;

		d->text.len = 0;
		cc_jw_init(&w, &d->text);
		cc_lang_detect(q, len, &r);
		cc_lang_write(&r, &w);
		cc_memo_set(e, q, len, d->text.data, d->text.len, 1);
	}
	if (e) {
		cc_jw_raw_indexed(out, e->value, e->vlen, e->indexed ? &e->index : NULL);
		return CC_RECORD_SET;
	}
	cc_lang_detect(q, len, &r);
	cc_lang_write(&r, out);
	return CC_RECORD_SET;
}

int
cc_detect_open(struct cc_stage *stage, char *err, size_t errlen)
{
	struct detector *d = cc_xmalloc(sizeof *d);

	memset(d, 0, sizeof *d);
	(void)err;
	(void)errlen;
	stage->name = "cc-detect-lang";
	stage->key = "language_detection";
	stage->process = detect;
	stage->ctx = d;
	cc_config_load(&d->cfg);
	d->dom = cc_domain_for_stage(&d->cfg, stage);
	return 0;
}

int
cc_detect_close(struct cc_stage *stage, int status)
{
	struct detector *d = stage->ctx;

	if (stage->leave)
		return status;
	cc_memo_release(&d->memo);
	cc_buf_release(&d->text);
	cc_domain_free(d->dom);
	cc_config_release(&d->cfg);
	free(d);
	return status;
}
