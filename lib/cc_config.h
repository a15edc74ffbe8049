/*
 * cc_config.h: the environment every program shares (data and state
 * directories, domain, frozen clock, time zone).
 *
 * Owns: struct cc_config and the strings it allocates.  Borrows: the
 * process environment, which it only reads.
 */
#ifndef CC_CONFIG_H
#define CC_CONFIG_H

#include <time.h>

/*
 * The environment every program shares.  Strings point into the
 * environment or into storage owned by the struct; cc_config_release()
 * frees what the struct owns.
 *
 *   CC_DATADIR    package data (default: the compiled-in pkgdatadir)
 *   CC_DOMAIN     the domain: a folder name under the data dir (default
 *                 set by configure --with-default-domain), or a path to
 *                 a folder of its own (with a '/'); --domain sets it
 *   CC_STATE_DIR  session store (default $XDG_STATE_HOME/concierge,
 *                 else ~/.local/state/concierge)
 *   CC_NOW        frozen "now", ISO 8601 with offset or Z
 *   CC_TZ         time zone for dates shown to people (default Asia/Tokyo)
 *   CC_LOCK_TIMEOUT  seconds to wait for the session store while another
 *                 process holds its lock, or for its lost server to come
 *                 back (default 10)
 *   CC_STORE      the session store: unset or a directory for SQLite
 *                 (default the state directory), a postgresql:// URI or
 *                 a conninfo ("service=NAME") for PostgreSQL; --store
 *                 sets it
 */
struct cc_config {
	const char *datadir;
	const char *domain;	/* its name: the folder's last component */
	char *domain_dir;	/* its folder */
	char *state_dir;
	const char *store;	/* CC_STORE: NULL, a directory or a conninfo */
	const char *tz;
	time_t now;		/* CC_NOW if set, else the clock (cc_config_tick) */
	int now_frozen;		/* 1 when now came from CC_NOW */
	long lock_timeout_ms;	/* CC_LOCK_TIMEOUT */
};

/* Read the environment; dies with CC_EXIT_USAGE on a malformed value. */
void cc_config_load(struct cc_config *cfg);
/*
 * The clock read again, unless CC_NOW froze it: a stage calls it for each
 * record, since a stage may run for hours (cc-chat keeps its pipeline
 * between questions) and session memory expires by this time.
 */
void cc_config_tick(struct cc_config *cfg);
void cc_config_release(struct cc_config *cfg);
/*
 * $<xdg_var>/concierge when that variable holds an absolute path, else
 * $HOME/<home_dir>/concierge (fresh string): the XDG base directories.
 */
char *cc_xdg_dir(const char *xdg_var, const char *home_dir);
/*
 * The cache directory (compiled rules, router models, fetched pages):
 * CC_CACHE_DIR, else $XDG_CACHE_HOME/concierge, else ~/.cache/concierge
 * (fresh string).
 */
char *cc_config_cache_dir(void);
/* A freshly allocated path: <domain folder>/<name>. */
char *cc_config_domain_path(const struct cc_config *cfg, const char *name);
/*
 * Parse an ISO 8601 date-time ("2025-01-15T10:00:00+09:00", "...Z",
 * seconds optional).  Returns 0 and sets *t on success, -1 otherwise.
 */
int cc_time_parse_iso8601(const char *s, time_t *t);

#endif
