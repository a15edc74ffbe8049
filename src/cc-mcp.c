/* cc-mcp: the toolkit as an MCP server over stdio: the gate, the exploration tools, ask. */
#include "config.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_ask.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_mcp.h"
#include "cc_session.h"
#include "cc_spawn.h"
#include "codeintel/cc_gate.h"
#include "codeintel/cc_xtools.h"

static const char usage_text[] =
	"usage: cc-mcp [options]\n"
	"An MCP server on standard input and output (JSON-RPC 2.0, a line each):\n"
	"a phase gate's tools, the exploration tools it counts\n"
	"(find_definitions, find_references, search_text, get_symbols,\n"
	"analyze_structure) over a repository, and ask (a domain's answer).\n"
	"  -G, --gate NAME|DIR    the domain whose gate is served (default: $CC_DOMAIN\n"
	"                         if it has a gate.conf, else the first installed one)\n"
	"  -r, --repo DIR         the repository explored (default: .)\n"
	"  -s, --session ID       the gate session to go on with\n"
	"  -l, --log-dir DIR      the gate's logs (default $CC_STATE_DIR/gate)\n"
	"  -n, --no-log           write no gate log\n"
	"  -c, --conf FILE        the gate's data (default: the gate domain's gate.conf)\n"
	"  -f, --frame DIR        the QueryFrame's data: synonyms, guidance,\n"
	"                         requirements (default: the gate's domain folder)\n"
	"  -t, --timeout MS       each ctags or rg run's time limit (default 10000)\n"
	"  -m, --max-results N    the longest list an answer holds (default 100)\n"
	"  -L, --max-line BYTES   the longest request line (default 4194304)\n"
	"  -P, --page-size N      tools a tools/list page holds (default 50)\n"
	"  -A, --ask-timeout MS   ask's time limit (default 60000)\n"
	"  -C, --concierge PATH   the driver ask runs (default: beside cc-mcp, else PATH)\n"
	"  -D, --domain NAME|DIR  ask's default domain (default $CC_DOMAIN)\n"
	"  -h, --help             show this help\n"
	"  -V, --version          show the version\n";

struct server {
	struct cc_config cfg;
	struct cc_gate *gate;
	struct cc_session *store;
	struct cc_xtools x;
	char *sid;		/* the session the gate tools act on */
	const char *concierge;
	long ask_timeout_ms;
};

static time_t
now(struct server *s)
{
	return s->cfg.now_frozen ? s->cfg.now : time(NULL);
}

static enum cc_mcp_call
call(void *ctx, const char *name, jv args, jv *answer)
{
	struct server *s = ctx;
	char *used = NULL;
	int status;

	if (strcmp(name, "ask") == 0) {
		*answer = cc_ask(s->concierge, s->ask_timeout_ms, args);
		return cc_gate_is_error(*answer) ? CC_MCP_TOOL_ERROR : CC_MCP_OK;
	}
	if (cc_gate_tool(name)) {
		*answer = cc_gate_call(s->gate, s->store, name, args, jv_null(), s->sid,
		    now(s), &used, &status);
		if (used && cc_gate_tool(name)->flags & CC_GATE_NEW_SESSION && status == 0) {
			free(s->sid);
			s->sid = used;
		} else {
			free(used);
		}
		return status ? CC_MCP_TOOL_ERROR : CC_MCP_OK;
	}
	if (cc_xtool_def(name)) {
		jv block = cc_gate_check(s->gate, s->store, name, s->sid), rec;

		if (jv_get_kind(block) != JV_KIND_NULL) {
			*answer = block;
			return CC_MCP_TOOL_ERROR;
		}
		jv_free(block);
		*answer = cc_xtools_call(&s->x, name, args);
		if (s->sid) {	/* the gate counts the call, failed or not, as the original did */
			rec = cc_gate_call(s->gate, s->store, name, args, *answer, s->sid,
			    now(s), NULL, &status);
			if (status == CC_EXIT_INTERNAL)
				cc_warn("%s: the gate could not record the call", name);
			jv_free(rec);
		}
		return cc_gate_is_error(*answer) ? CC_MCP_TOOL_ERROR : CC_MCP_OK;
	}
	return CC_MCP_NO_TOOL;
}

static jv
tool_entry(const char *name, const char *description, const char *schema)
{
	jv o = jv_object_set(jv_object(), jv_string("name"), jv_string(name));

	o = jv_object_set(o, jv_string("description"), jv_string(description));
	return jv_object_set(o, jv_string("inputSchema"), cc_json_parse(schema, strlen(schema)));
}

static jv
all_tools(void)
{
	jv list = jv_object_get(cc_gate_tools_list(), jv_string("tools"));

	for (size_t i = 0; i < cc_xtool_ndefs; i++)
		list = jv_array_append(list, tool_entry(cc_xtool_defs[i].name,
		    cc_xtool_defs[i].description, cc_xtool_defs[i].input_schema));
	return jv_array_append(list, tool_entry("ask", cc_ask_description, cc_ask_schema));
}

/*
 * The folder of the domain whose gate is served: --gate (a name under the
 * data directory, or a folder); else $CC_DOMAIN's when it has gate.conf;
 * else the first installed domain, by name, that has one.  NULL: none.
 */
static int
has_gate(const char *dir)
{
	char path[PATH_MAX];

	return snprintf(path, sizeof path, "%s/gate.conf", dir) < (int)sizeof path &&
	    access(path, R_OK) == 0;
}

static char *
gate_domain(const struct cc_config *cfg, const char *want)
{
	struct dirent **names;
	char path[PATH_MAX], *found = NULL;
	int n;

	if (want) {
		snprintf(path, sizeof path, strchr(want, '/') ? "%s" : "%s/%s",
		    strchr(want, '/') ? want : cfg->datadir, want);
		return cc_xstrdup(path);
	}
	if (getenv("CC_DOMAIN") && cfg->domain_dir && has_gate(cfg->domain_dir))
		return cc_xstrdup(cfg->domain_dir);
	if ((n = scandir(cfg->datadir, &names, NULL, alphasort)) < 0)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!found && names[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof path, "%s/%s", cfg->datadir, names[i]->d_name) <
		    (int)sizeof path && has_gate(path))
			found = cc_xstrdup(path);
		free(names[i]);
	}
	free(names);
	return found;
}

static long
number(const char *opt, const char *s, long lo, long hi)
{
	char *e;
	long v = strtol(s, &e, 10);

	if (!*s || *e || v < lo || v > hi)
		cc_die(CC_EXIT_USAGE, "%s: expected a number from %ld to %ld", opt, lo, hi);
	return v;
}

/* The driver beside this program (a build tree, an install), else "concierge" in PATH. */
static char *
find_concierge(const char *argv0)
{
	char *self = realpath("/proc/self/exe", NULL), *slash, *p;

	(void)argv0;
	if (self && (slash = strrchr(self, '/'))) {
		*slash = '\0';
		p = cc_xmalloc(strlen(self) + 12);
		sprintf(p, "%s/concierge", self);
		free(self);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
		return cc_xstrdup("concierge");
	}
	free(self);
	return cc_xstrdup("concierge");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"repo", required_argument, NULL, 'r'},
		{"session", required_argument, NULL, 's'},
		{"log-dir", required_argument, NULL, 'l'},
		{"no-log", no_argument, NULL, 'n'},
		{"conf", required_argument, NULL, 'c'},
		{"frame", required_argument, NULL, 'f'},
		{"timeout", required_argument, NULL, 't'},
		{"max-results", required_argument, NULL, 'm'},
		{"max-line", required_argument, NULL, 'L'},
		{"page-size", required_argument, NULL, 'P'},
		{"ask-timeout", required_argument, NULL, 'A'},
		{"concierge", required_argument, NULL, 'C'},
		{"gate", required_argument, NULL, 'G'},
		{NULL, 0, NULL, 0},
	};
	struct server s = { .ask_timeout_ms = 60000 };
	struct cc_mcp m;
	const char *repo = ".", *log_dir = NULL, *conf = NULL, *frame = NULL, *gate_name = NULL;
	char *conf_path = NULL, *frame_path = NULL, *log_path = NULL, *driver = NULL, *gdir;
	char err[768];
	long timeout = 10000, max_results = 100, max_line = 4 << 20, page = 50;
	int c, unbuffered = 0, no_log = 0, rc;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "r:s:l:nc:f:t:m:L:P:A:C:G:",
	    opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &unbuffered))
			continue;
		switch (c) {
		case 'r': repo = optarg; break;
		case 's': s.sid = optarg; break;
		case 'l': log_dir = optarg; break;
		case 'n': no_log = 1; break;
		case 'c': conf = optarg; break;
		case 'f': frame = optarg; break;
		case 't': timeout = number("--timeout", optarg, 1, 3600000); break;
		case 'm': max_results = number("--max-results", optarg, 1, 10000); break;
		case 'L': max_line = number("--max-line", optarg, 1024, 1L << 30); break;
		case 'P': page = number("--page-size", optarg, 0, 100000); break;
		case 'A': s.ask_timeout_ms = number("--ask-timeout", optarg, 1, 3600000); break;
		case 'C': s.concierge = optarg; break;
		case 'G': gate_name = optarg; break;
		}
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	if (s.sid && (!*s.sid || strlen(s.sid) > CC_GATE_MAX_SESSION_ID))
		cc_die(CC_EXIT_USAGE, "invalid session id: 1 to %d bytes", CC_GATE_MAX_SESSION_ID);
	s.sid = s.sid ? cc_xstrdup(s.sid) : NULL;
	signal(SIGPIPE, SIG_IGN);	/* a client gone shows as a failed write */
	cc_config_load(&s.cfg);
	if (!conf || !frame) {
		if (!(gdir = gate_domain(&s.cfg, gate_name)))
			cc_die(CC_EXIT_USAGE, "no installed domain has a gate (gate.conf): "
			    "name one with --gate, or give --conf and --frame");
		conf_path = cc_xmalloc(strlen(gdir) + 12);
		sprintf(conf_path, "%s/gate.conf", gdir);
		frame_path = gdir;	/* cc-frame's data, beside gate.conf */
		conf = conf ? conf : conf_path;
		frame = frame ? frame : frame_path;
	}
	if (!(s.gate = cc_gate_load(conf, frame, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	if (cc_gate_set_repo(s.gate, repo, err, sizeof err) < 0 ||
	    cc_xtools_init(&s.x, repo, err, sizeof err) < 0)
		cc_die(CC_EXIT_USAGE, "%s", err);
	s.x.timeout_ms = timeout;
	s.x.max_results = (size_t)max_results;
	if (!no_log && !log_dir && cc_session_keeps_logs(&s.cfg)) {
		/* a store that spans machines keeps the logs too */
		cc_gate_set_log_store(s.gate);
	} else if (!no_log) {
		if (!log_dir) {
			size_t n = strlen(s.cfg.state_dir) + 6;

			log_path = cc_xmalloc(n);
			snprintf(log_path, n, "%s/gate", s.cfg.state_dir);
			log_dir = log_path;
		}
		cc_gate_set_log_dir(s.gate, log_dir);
	}
	if (!(s.store = cc_session_open(&s.cfg, 0, err, sizeof err)))
		cc_die(CC_EXIT_INTERNAL, "session store: %s", err);
	if (!s.concierge)
		s.concierge = driver = find_concierge(argv[0]);
	cc_mcp_init(&m, all_tools());
	m.max_line = (size_t)max_line;
	m.page_size = (size_t)page;
	m.call = call;
	m.ctx = &s;
	m.instructions = "Phase gate: start_session, set_query_frame, explore "
	    "with find_definitions and find_references (and search_text, get_symbols, "
	    "analyze_structure), submit_understanding, then check_write_target before "
	    "writing. ask answers a question through a concierge domain.";
	rc = cc_mcp_serve(&m, 0, 1);
	if (rc < 0)
		cc_warn("cannot write a reply: the client went away");
	cc_mcp_release(&m);
	cc_session_close(s.store);
	cc_gate_free(s.gate);
	cc_xtools_release(&s.x);
	cc_config_release(&s.cfg);
	free(s.sid);
	free(conf_path);
	free(frame_path);
	free(log_path);
	free(driver);
	return rc < 0 ? CC_EXIT_INTERNAL : CC_EXIT_OK;
}
