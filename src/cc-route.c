/* cc-route: decide which agent answers each query, and why (seed 000). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_record.h"
#include "cc_stages.h"

static const char usage_text[] =
	"usage: cc-route [-u] [--rules FILE] [--memory-window SECONDS] [--no-memory]\n"
	"                [--no-classifier] | --learn\n"
	"Adds route {agent, category, request_type, language, confidence,\n"
	"debug_info} to each NDJSON record from its \"query\" and the session's\n"
	"earlier turns (\"session_id\").\n"
	"  -r, --rules FILE          routing rules (default: the domain's routing.rules)\n"
	"  -D, --domain NAME|DIR     the domain (default $CC_DOMAIN)\n"
	"  -w, --memory-window SECS  how long a session remembers (default 180)\n"
	"  -n, --no-memory           route every record on its own\n"
	"  -C, --no-classifier       leave what no rule routes to the fallback agent\n"
	"  -L, --learn               learn the router model from the domain's\n"
	"                            examples now, say how, and exit\n"
	"  -u, --unbuffered          flush after every record\n"
	"  -h, --help                show this help\n"
	"  -V, --version             show the version\n";

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"rules", required_argument, NULL, 'r'},
		{"memory-window", required_argument, NULL, 'w'},
		{"no-memory", no_argument, NULL, 'n'},
		{"no-classifier", no_argument, NULL, 'C'},
		{"learn", no_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	struct cc_route_options o = {0};
	struct cc_stage stage = {0};
	char err[768];
	int c, status, learn = 0;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "r:w:nCL", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		if (c == 'r')
			o.rules_path = optarg;
		else if (c == 'w')
			o.window = optarg;
		else if (c == 'n')
			o.no_memory = 1;
		else if (c == 'C')
			o.no_classifier = 1;
		else if (c == 'L')
			learn = 1;
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	if (learn) {
		if ((status = cc_route_learn(&o, err, sizeof err)) < 0)
			cc_die(-status, "%s", err);
		return status;
	}
	if ((status = cc_route_open(&stage, &o, err, sizeof err)) != 0)
		cc_die(status, "%s", err);
	status = cc_record_run(&stage, stdin, stdout);
	return cc_route_close(&stage, status);
}
