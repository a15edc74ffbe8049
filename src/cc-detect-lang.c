/* cc-detect-lang: add language_detection to each record from its query. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_record.h"
#include "cc_stages.h"

static const char usage_text[] =
	"usage: cc-detect-lang [--unbuffered] [--domain NAME|DIR] < records.ndjson\n"
	"Adds language_detection {detected_language, confidence, is_mixed, ...}\n"
	"to each NDJSON record from its \"query\".\n"
	"  -u, --unbuffered  flush after every record\n"
	"  -D, --domain D    the domain (default $CC_DOMAIN); records pass on\n"
	"                    untouched when its pipeline does not run this stage\n"
	"  -h, --help        show this help\n"
	"  -V, --version     show the version\n";

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cc_stage stage = {0};
	char err[512];
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
	if ((status = cc_detect_open(&stage, err, sizeof err)) != 0)
		cc_die(status, "%s", err);
	status = cc_record_run(&stage, stdin, stdout);
	return cc_detect_close(&stage, status);
}
