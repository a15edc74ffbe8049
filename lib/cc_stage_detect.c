/* The cc-detect-lang stage: add language_detection to each record from its query. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_lang.h"
#include "cc_domain.h"
#include "cc_stages.h"

struct detector {
	struct cc_config cfg;
	struct cc_domain *dom;
};

static enum cc_outcome
detect(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct cc_lang_result r;
	size_t len;
	const char *q = cc_record_query(rec, &len);

	(void)ctx;
	if (!q)
		return cc_record_fail(rec, "no_query",
		    "the record has no string \"query\"");
	cc_lang_detect(q, len, &r);
	cc_lang_write(&r, out);
	return CC_RECORD_SET;
}

int
cc_detect_open(struct cc_stage *stage, char *err, size_t errlen)
{
	struct detector *d = cc_xmalloc(sizeof *d);

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
	cc_domain_free(d->dom);
	cc_config_release(&d->cfg);
	free(d);
	return status;
}
