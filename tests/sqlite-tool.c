/*
 * tests/sqlite-tool: what the fault and concurrency tests need of an SQLite
 * file, without the sqlite3 shell (not a dependency):
 *
 *   sqlite-tool DB check           PRAGMA integrity_check ("ok"), exit 1 if not
 *   sqlite-tool DB query SQL       the rows of a read-only query, tab-separated
 *   sqlite-tool DB exec SQL [TEXT...]
 *                                  run one statement with the TEXTs bound to
 *                                  ?1, ?2, ... (a test that edits a stage's
 *                                  stored state, or corrupts it)
 *   sqlite-tool DB hold MODE SECONDS READYFILE
 *                                  take a lock and keep it SECONDS, then let it
 *                                  go; READYFILE is created once it is held.
 *                                  MODE write: a write transaction (others can
 *                                  read, writers wait); exclusive: the
 *                                  database to itself (readers wait too).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
fail(sqlite3 *db, const char *what)
{
	fprintf(stderr, "sqlite-tool: %s: %s\n", what, db ? sqlite3_errmsg(db) : "cannot open");
	sqlite3_close(db);
	return 2;
}

static int
query(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, sql);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *v = sqlite3_column_text(st, i);

			printf("%s%s", i ? "\t" : "", v ? (const char *)v : "NULL");
		}
		putchar('\n');
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, sql);
	return 0;
}

static int
hold(sqlite3 *db, const char *mode, double seconds, const char *ready)
{
	struct timespec ts = { (time_t)seconds,
		(long)((seconds - (double)(time_t)seconds) * 1e9) };
	FILE *f;

	if (strcmp(mode, "exclusive") == 0 &&
	    (sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK))
		return fail(db, "BEGIN EXCLUSIVE");
	if (strcmp(mode, "write") == 0 &&
	    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, "BEGIN IMMEDIATE");
	/* in WAL mode the exclusive lock is taken by the first write */
	if (strcmp(mode, "exclusive") == 0)
		sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS sqlite_tool_lock(x);"
		    "INSERT INTO sqlite_tool_lock VALUES(1)", NULL, NULL, NULL);
	if (!(f = fopen(ready, "w")))
		return fail(NULL, ready);
	fclose(f);
	nanosleep(&ts, NULL);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return 0;
}

int
main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	int rc;

	if (argc < 3) {
		fputs("usage: sqlite-tool DB check | query SQL | exec SQL [TEXT...] | "
		    "hold write|exclusive SECONDS READYFILE\n", stderr);
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return fail(db, argv[1]);
	sqlite3_busy_timeout(db, 10000);
	if (strcmp(argv[2], "check") == 0) {
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
			return fail(db, "integrity_check");
		rc = sqlite3_step(st) == SQLITE_ROW &&
		    strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0 ? 0 : 1;
		if (sqlite3_column_text(st, 0))
			printf("%s\n", sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	} else if (strcmp(argv[2], "query") == 0 && argc == 4) {
		rc = query(db, argv[3]);
	} else if (strcmp(argv[2], "exec") == 0 && argc >= 4) {
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(db, argv[3], -1, &st, NULL) != SQLITE_OK)
			return fail(db, argv[3]);
		for (int i = 4; i < argc; i++)
			sqlite3_bind_text(st, i - 3, argv[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : 2;
		if (rc)
			fprintf(stderr, "sqlite-tool: exec: %s\n", sqlite3_errmsg(db));
		sqlite3_finalize(st);
	} else if (strcmp(argv[2], "hold") == 0 && argc == 6) {
		return hold(db, argv[3], atof(argv[4]), argv[5]);
	} else {
		fputs("sqlite-tool: unknown command\n", stderr);
		rc = 2;
	}
	sqlite3_close(db);
	return rc;
}
