/* cc-respond: the answer, for every agent, in the visitor's language. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_record.h"
#include "cc_stages.h"

static const char usage_text[] =
	"usage: cc-respond [-u] [--text [--no-emotion]] [--camel] [--no-memory]\n"
	"Adds response {text, emotion, agent_name, language, metadata} to each\n"
	"routed NDJSON record, composed from its retrieval and events.\n"
	"  -t, --text         write only the answer text of each record\n"
	"  -E, --no-emotion   with --text, leave out the emotion tag\n"
	"  -c, --camel        the specs' TypeScript field names (agentName, ...)\n"
	"  -n, --no-memory    do not read or update the session store\n"
	"  -D, --domain D     the domain (default $CC_DOMAIN): its manifest says\n"
	"                     how each agent is answered, its responses the words\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"text", no_argument, NULL, 't'},
		{"no-emotion", no_argument, NULL, 'E'},
		{"camel", no_argument, NULL, 'c'},
		{"no-memory", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	struct cc_respond_options o = {0};
	struct cc_stage stage = {0};
	char err[768];
	int c, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "tEcn", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		if (c == 't')
			o.text = 1;
		else if (c == 'E')
			o.no_emotion = 1;
		else if (c == 'c')
			o.camel = 1;
		else if (c == 'n')
			o.no_memory = 1;
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	if ((status = cc_respond_open(&stage, &o, err, sizeof err)) != 0)
		cc_die(status, "%s", err);
	status = cc_record_run(&stage, stdin, stdout);
	return cc_respond_close(&stage, status);
}
