/*
 * cc-run: the domain's stages over NDJSON records in one program
 * (cc_run.h), what `concierge run` runs when the library has every stage.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_domain.h"
#include "cc_run.h"

static const char usage_text[] =
	"usage: cc-run [-uP] [-j N] [--domain NAME|DIR] < queries.ndjson > records.ndjson\n"
	"       cc-run --check [--domain NAME|DIR]\n"
	"Runs the domain's pipeline over NDJSON records with its stages in this\n"
	"program, as `concierge run` does with the stage programs.\n"
	"  -u, --unbuffered  hand every record on at once\n"
	"  -j, --workers N   worker processes (default: one a core, at most 16)\n"
	"  -c, --check       exit 0 if the stages can run here, 1 if they\n"
	"                    must run as processes\n"
	"  -P, --in-process  accepted for older scripts: records in sessions\n"
	"                    always run in the workers now\n"
	"  -D, --domain D    the domain (default $CC_DOMAIN)\n"
	"      --store S     the session store (default $CC_STORE)\n"
	"  -h, --help        show this help\n"
	"  -V, --version     show the version\n";

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"workers", required_argument, NULL, 'j'},
		{"check", no_argument, NULL, 'c'},
		{"in-process", no_argument, NULL, 'P'},
		{NULL, 0, NULL, 0},
	};
	struct cc_run_options o = {0};
	struct cc_config cfg;
	struct cc_domain *d;
	char *names[CC_DOMAIN_MAX_STAGES], *end;
	size_t n;
	int c, check = 0, status;
	long w;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "j:cP", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &o.unbuffered))
			continue;
		switch (c) {
		case 'j':
			w = strtol(optarg, &end, 10);
			if (*end || end == optarg || w < 1 || w > CC_RUN_MAX_WORKERS)
				cc_die(CC_EXIT_USAGE, "invalid number of workers '%s': "
				    "expected 1 to %d", optarg, CC_RUN_MAX_WORKERS);
			o.workers = (unsigned)w;
			break;
		case 'c':
			check = 1;
			break;
		case 'P':
			break;	/* what it asked for is what runs */
		default:
			cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
		}
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&cfg);
	n = cc_run_stages(&cfg, &d, names);
	if (check) {
		status = n && cc_run_opens(names, n) ? CC_EXIT_OK : CC_EXIT_NEGATIVE;
		cc_domain_free(d);
		cc_config_release(&cfg);
		return status;
	}
	if (n == 0)
		cc_die(CC_EXIT_USAGE, "the domain's stages cannot run in one program "
		    "(CC_STAGES or an LLM is set, or a stage is not the library's): "
		    "use concierge run");
	status = cc_run(names, n, &o, 0, 1);
	cc_domain_free(d);
	cc_config_release(&cfg);
	return status;
}
