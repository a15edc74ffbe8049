/*
 * cc_mcp.h: the Model Context Protocol over stdio, server side: JSON-RPC
 * 2.0, one compact JSON object a line; protocol version negotiation,
 * initialize, notifications/initialized, ping, tools/list (paginated),
 * tools/call.  The tools themselves are the caller's: a list and a call
 * function.
 *
 * Request ids are kept as the JSON text the client sent and echoed byte
 * for byte (a number is never turned into a double).  Nothing is written
 * but protocol: one reply line per request, none for a notification.
 *
 * jv ownership: "borrows" leaves the caller's value alone; "consumes"
 * takes it; every jv returned is owned by the caller.
 *
 * Owns: the tool list it is given, the negotiated version.  Borrows: the
 * caller's context and the streams it serves.
 */
#ifndef CC_MCP_H
#define CC_MCP_H

#include <jv.h>
#include <stddef.h>

#include "cc_json.h"

/* The protocol versions spoken, oldest first; the last is the newest. */
extern const char *const cc_mcp_versions[];
extern const size_t cc_mcp_nversions;

/* JSON-RPC error codes. */
#define CC_MCP_PARSE_ERROR (-32700)
#define CC_MCP_INVALID_REQUEST (-32600)
#define CC_MCP_METHOD_NOT_FOUND (-32601)
#define CC_MCP_INVALID_PARAMS (-32602)
#define CC_MCP_INTERNAL (-32603)

/* What a tool call came to. */
enum cc_mcp_call {
	CC_MCP_OK,		/* the answer is the tool's result */
	CC_MCP_TOOL_ERROR,	/* the answer explains the failure: isError */
	CC_MCP_NO_TOOL,		/* no tool of that name: a JSON-RPC error */
};

struct cc_mcp {
	const char *name, *version;	/* serverInfo */
	const char *instructions;	/* NULL: none */
	jv tools;		/* [{name, description, inputSchema}]: set with
				   cc_mcp_init (consumed), freed by cc_mcp_release */
	size_t page_size;	/* tools a tools/list page holds (0: all) */
	size_t max_line;	/* longest request line accepted, in bytes */
	/*
	 * Run tool `name` with `args` (an object, borrowed); *answer gets
	 * the answer (any JSON value; shown to the agent as its text).
	 */
	enum cc_mcp_call (*call)(void *ctx, const char *name, jv args, jv *answer);
	void *ctx;
	/* state */
	int initialized;
	char protocol[32];	/* the version agreed on */
	struct cc_json_doc doc;
};

/* Defaults (page 50 tools, lines up to 4 MiB); consumes tools. */
void cc_mcp_init(struct cc_mcp *m, jv tools);
void cc_mcp_release(struct cc_mcp *m);

/*
 * Handle one request line line[0..len) (no newline): the reply, if any,
 * is appended to reply with its newline.  Never fails: bad input gets a
 * JSON-RPC error.
 */
void cc_mcp_handle(struct cc_mcp *m, const char *line, size_t len, struct cc_buf *reply);

/*
 * Serve requests from fd `in` and write replies to fd `out` until end of
 * input.  Lines longer than max_line are skipped (not held in memory) and
 * answered with an invalid request error.  0 at end of input, -1 when a
 * reply could not be written (the client went away).
 */
int cc_mcp_serve(struct cc_mcp *m, int in, int out);

#endif
