/*
 * cc-store: the operator's commands for the session store that CC_STORE
 * (or --store) names: set up or migrate its schema, check it, prune old
 * conversations (cc-store(1), which describes the schema too).  `concierge
 * store` is this program.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_session.h"

static const char usage_text[] =
	"usage: cc-store [--store S] migrate\n"
	"       cc-store [--store S] check\n"
	"       cc-store [--store S] prune [-k SECONDS]\n"
	"The session store: SQLite files in the state directory, or the\n"
	"PostgreSQL database of a postgresql:// URI or conninfo (cc-store(1)).\n"
	"  migrate  create the schema, or bring it up to this program's version\n"
	"  check    the schema version, integrity and counts; exit 1 if the\n"
	"           store is not usable as it is\n"
	"  prune    remove turns, answers and states older than the retention\n"
	"  -k, --keep SECONDS  the retention for prune (default 604800, 7 days)\n"
	"      --store S       the store (default $CC_STORE, else the state\n"
	"                      directory); no password: PGPASSWORD or ~/.pgpass\n"
	"  -h, --help          show this help\n"
	"  -V, --version       show the version\n";

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"keep", required_argument, NULL, 'k'},
		{NULL, 0, NULL, 0},
	};
	static const char *const cmds[] = { "migrate", "check", "prune" };
	struct cc_config cfg;
	char out[4096], *end;
	long keep = 7 * 86400;
	int c, what = -1, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "k:", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, NULL))
			continue;
		if (c == 'k') {
			keep = strtol(optarg, &end, 10);
			if (*end || end == optarg || keep < 0)
				cc_die(CC_EXIT_USAGE, "invalid --keep '%s': expected seconds", optarg);
		}
	}
	for (int i = 0; optind + 1 == argc && i < 3; i++)
		if (strcmp(argv[optind], cmds[i]) == 0)
			what = i;
	if (what < 0) {
		if (optind < argc)
			cc_warn("unknown command '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&cfg);
	status = cc_session_admin(&cfg, (enum cc_store_admin)what, keep, out, sizeof out);
	if (status == CC_EXIT_OK || status == CC_EXIT_NEGATIVE)
		fputs(out, stdout);
	else
		cc_warn("%s", cc_trim(out));
	cc_config_release(&cfg);
	if (fflush(stdout) != 0 || ferror(stdout))
		cc_die(CC_EXIT_INTERNAL, "cannot write output");
	return status;
}
