/* cc-detect-lang: add language_detection to each record from its query. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_lang.h"
#include "cc_domain.h"

static const char usage_text[] =
	"usage: cc-detect-lang [--unbuffered] [--domain NAME|DIR] < records.ndjson\n"
	"Adds language_detection {detected_language, confidence, is_mixed, ...}\n"
	"to each NDJSON record from its \"query\".\n"
	"  -u, --unbuffered  flush after every record\n"
	"  -D, --domain D    the domain (default $CC_DOMAIN); records pass on\n"
	"                    untouched when its pipeline does not run this stage\n"
	"  -h, --help        show this help\n"
	"  -V, --version     show the version\n";

static enum cc_outcome
detect(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct cc_lang_result r;
	size_t len;
	const char *q = cc_record_query(rec, &len);

	if (!q)
		return cc_record_fail(rec, "no_query",
		    "the record has no string \"query\"");
	cc_lang_detect(q, len, &r);
	cc_lang_write(&r, out);
	return CC_RECORD_SET;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cc_stage stage = {
		.name = "cc-detect-lang", .key = "language_detection", .process = detect,
	};
	struct cc_config cfg;
	struct cc_domain *dom;
	int c, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS, opts, NULL)) != -1)
		if (!cc_option_common(c, argv, usage_text, &stage.unbuffered))
			cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&cfg);
	dom = cc_domain_for_stage(&cfg, &stage);
	status = cc_record_run(&stage, stdin, stdout);
	cc_domain_free(dom);
	cc_config_release(&cfg);
	return status;
}
