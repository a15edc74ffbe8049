/*
 * The registry: each gate tool's name, description and input schema as the
 * original server listed them (code_intel_server.py at v3.6), so that an
 * MCP server lists these and the original's agent prompt works unchanged.
 *
 * Changes to the schemas, all optional additions or fixes (cc-gate(1)):
 *   - submit_understanding: "slot_evidence", evidence for the QueryFrame's
 *     slots, which the original designed and never let an agent give;
 *   - submit_semantic: a hypothesis may name the "slot" it fills;
 *   - submit_verification: a verified item may name the "slot" it verifies;
 *   - record_outcome: failure_point's enum held the bare name null (a
 *     NameError when the list was built); it is JSON null, with the type
 *     ["string", "null"] that null needs.
 */
#include "config.h"

#include <string.h>

#include "cc_json.h"
#include "cc_gate.h"

#define SLOT_SCHEMA(desc) \
	"{\"type\":[\"object\",\"null\"],\"properties\":{\"value\":{\"type\":\"string\"}," \
	"\"quote\":{\"type\":\"string\"}},\"description\":\"" desc "\"}"

static const char start_session_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"intent\":{\"type\":\"string\",\"enum\":[\"IMPLEMENT\",\"MODIFY\",\"INVESTIGATE\","
	"\"QUESTION\"],\"description\":\"The intent type for this session\"},"
	"\"query\":{\"type\":\"string\",\"description\":\"The user's original request\"}},"
	"\"required\":[\"intent\",\"query\"]}";

static const char set_query_frame_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"target_feature\":" SLOT_SCHEMA("Target feature/module (e.g., 'login function')") ","
	"\"trigger_condition\":" SLOT_SCHEMA("Trigger condition (e.g., 'when XXX is input')") ","
	"\"observed_issue\":" SLOT_SCHEMA("Observed issue (e.g., 'error occurs')") ","
	"\"desired_action\":" SLOT_SCHEMA("Desired action (e.g., 'fix XXX')")
	"}}";

static const char empty_schema[] = "{\"type\":\"object\",\"properties\":{}}";

#define STRINGS(desc) \
	"{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"" desc "\"}"

static const char submit_understanding_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"symbols_identified\":" STRINGS("List of key symbols found (classes, functions, etc.)") ","
	"\"entry_points\":" STRINGS("List of entry points identified") ","
	"\"existing_patterns\":" STRINGS("List of existing patterns found (e.g., 'Service + Repository')") ","
	"\"files_analyzed\":" STRINGS("List of files that were analyzed") ","
	"\"notes\":{\"type\":\"string\",\"description\":\"Additional notes about the exploration\"},"
	"\"slot_evidence\":{\"type\":\"object\",\"description\":\"cc-gate: evidence for "
	"QueryFrame slots found during exploration, by slot name (target_feature, "
	"trigger_condition, observed_issue, desired_action). The tool must have been called "
	"in this session; 'value' fills a slot the query left empty.\","
	"\"additionalProperties\":{\"type\":\"object\",\"properties\":{"
	"\"value\":{\"type\":\"string\"},\"tool\":{\"type\":\"string\"},"
	"\"target\":{\"type\":\"string\"},\"result\":{\"type\":\"string\"},"
	"\"files\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
	"\"required\":[\"tool\",\"target\",\"result\"]}}},"
	"\"required\":[\"symbols_identified\",\"entry_points\",\"files_analyzed\"]}";

static const char submit_semantic_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"hypotheses\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	"\"text\":{\"type\":\"string\",\"description\":\"Hypothesis text\"},"
	"\"confidence\":{\"type\":\"string\",\"enum\":[\"high\",\"medium\",\"low\"],"
	"\"default\":\"medium\",\"description\":\"Confidence level of this hypothesis\"},"
	"\"slot\":{\"type\":\"string\",\"enum\":[\"target_feature\",\"trigger_condition\","
	"\"observed_issue\",\"desired_action\"],\"description\":\"cc-gate: the QueryFrame "
	"slot this hypothesis fills (it is a HYPOTHESIS until verified)\"}},"
	"\"required\":[\"text\"]},"
	"\"description\":\"List of hypotheses with confidence levels\"},"
	"\"devrag_reason\":{\"type\":\"string\",\"enum\":[\"no_definition_found\","
	"\"no_reference_found\",\"no_similar_implementation\",\"architecture_unknown\","
	"\"context_fragmented\"],\"description\":\"Why semantic search was needed\"},"
	"\"search_queries\":" STRINGS("Queries used for devrag search")
	"},\"required\":[\"hypotheses\",\"devrag_reason\"]}";

static const char submit_verification_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"verified\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	"\"hypothesis\":{\"type\":\"string\",\"description\":\"The hypothesis being verified\"},"
	"\"status\":{\"type\":\"string\",\"enum\":[\"confirmed\",\"rejected\"]},"
	"\"evidence\":{\"type\":\"object\",\"properties\":{"
	"\"tool\":{\"type\":\"string\",\"enum\":[\"find_definitions\",\"find_references\","
	"\"search_text\",\"analyze_structure\",\"query\"],"
	"\"description\":\"Tool used for verification\"},"
	"\"target\":{\"type\":\"string\",\"description\":\"Symbol/file/pattern verified\"},"
	"\"result\":{\"type\":\"string\",\"description\":\"Summary of tool result\"},"
	"\"files\":" STRINGS("Related file paths")
	"},\"required\":[\"tool\",\"target\",\"result\"]},"
	"\"slot\":{\"type\":\"string\",\"enum\":[\"target_feature\",\"trigger_condition\","
	"\"observed_issue\",\"desired_action\"],\"description\":\"cc-gate: the QueryFrame "
	"slot this verifies (HYPOTHESIS to FACT)\"}},"
	"\"required\":[\"hypothesis\",\"status\",\"evidence\"]},"
	"\"description\":\"List of verified hypotheses with structured evidence\"}},"
	"\"required\":[\"verified\"]}";

static const char check_write_target_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"file_path\":{\"type\":\"string\",\"description\":\"Path to the file to write\"},"
	"\"allow_new_files\":{\"type\":\"boolean\",\"default\":true,"
	"\"description\":\"Allow creating new files in explored directories\"}},"
	"\"required\":[\"file_path\"]}";

static const char record_outcome_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"session_id\":{\"type\":\"string\",\"description\":\"Session ID to record outcome for\"},"
	"\"outcome\":{\"type\":\"string\",\"enum\":[\"success\",\"failure\",\"partial\"],"
	"\"description\":\"Outcome type\"},"
	"\"analysis\":{\"type\":\"object\",\"properties\":{"
	"\"root_cause\":{\"type\":\"string\",\"description\":\"What went wrong / what succeeded\"},"
	"\"failure_point\":{\"type\":[\"string\",\"null\"],\"enum\":[\"EXPLORATION\",\"SEMANTIC\","
	"\"VERIFICATION\",\"READY\",null],\"description\":\"Phase where failure occurred\"},"
	"\"related_symbols\":" STRINGS("Symbols related to outcome") ","
	"\"related_files\":" STRINGS("Files related to outcome") ","
	"\"user_feedback_summary\":{\"type\":\"string\",\"description\":\"Summary of user's feedback\"}},"
	"\"required\":[\"root_cause\"]},"
	"\"trigger_message\":{\"type\":\"string\",\"description\":\"The user message that "
	"triggered /outcome\"}},"
	"\"required\":[\"session_id\",\"outcome\",\"analysis\"]}";

const struct cc_gate_tool cc_gate_tools[] = {
	{ "start_session",
	  "Start a new code implementation session with phase-gated execution. "
	  "v3.6: Returns extraction prompt for QueryFrame. "
	  "After calling this, extract QueryFrame using the prompt, then call set_query_frame.",
	  start_session_schema, cc_gate_start_session, CC_GATE_NEW_SESSION },
	{ "set_query_frame",
	  "v3.6: Set the QueryFrame for the current session. "
	  "LLM extracts slots using the prompt from start_session, "
	  "server validates and creates QueryFrame. "
	  "Each slot must have 'value' and 'quote' (original text from query).",
	  set_query_frame_schema, cc_gate_set_query_frame, 0 },
	{ "get_session_status",
	  "Get the current session status including phase and allowed tools.",
	  empty_schema, cc_gate_get_session_status, 0 },
	{ "submit_understanding",
	  "Submit exploration results to complete Phase 1 (EXPLORATION). "
	  "v3.3: Confidence is calculated by SERVER, not from LLM input. "
	  "Server evaluates results (symbols, entry_points, tools_used) "
	  "and determines if SEMANTIC (devrag) is needed or can proceed to READY.",
	  submit_understanding_schema, cc_gate_submit_understanding, 0 },
	{ "submit_semantic",
	  "Submit devrag results to complete Phase 2 (SEMANTIC). "
	  "Required after using devrag. Must include hypotheses and reason. "
	  "v3.5: hypotheses now include confidence for improvement analysis.",
	  submit_semantic_schema, cc_gate_submit_semantic, 0 },
	{ "submit_verification",
	  "Submit verification results to complete Phase 3 (VERIFICATION). "
	  "v3.3: Evidence must be STRUCTURED with tool, target, and result. "
	  "This prevents 'fake' verification claims.",
	  submit_verification_schema, cc_gate_submit_verification, 0 },
	{ "check_write_target",
	  "v3.4: Check if a file can be written to in READY phase. "
	  "Files must have been explored (in files_analyzed or verification evidence). "
	  "Prevents writing to unexplored code.",
	  check_write_target_schema, cc_gate_check_write_target, 0 },
	{ "record_outcome",
	  "v3.5: Record session outcome (success/failure/partial) for improvement analysis. "
	  "Called by /outcome skill when human recognizes success or failure. "
	  "Observer only: records, does not intervene or change behavior.",
	  record_outcome_schema, cc_gate_record_outcome, CC_GATE_SESSION_ARG },
	{ "get_outcome_stats",
	  "v3.5: Get statistics about session outcomes for improvement analysis. "
	  "Shows breakdown by intent, phase, devrag usage, and confidence.",
	  empty_schema, cc_gate_get_outcome_stats, CC_GATE_STATS },
};

const size_t cc_gate_ntools = sizeof cc_gate_tools / sizeof cc_gate_tools[0];

const struct cc_gate_tool *
cc_gate_tool(const char *name)
{
	for (size_t i = 0; name && i < cc_gate_ntools; i++)
		if (strcmp(cc_gate_tools[i].name, name) == 0)
			return &cc_gate_tools[i];
	return NULL;
}

jv
cc_gate_tools_list(void)
{
	jv tools = jv_array();

	for (size_t i = 0; i < cc_gate_ntools; i++) {
		const struct cc_gate_tool *t = &cc_gate_tools[i];
		jv o = jv_object_set(jv_object(), jv_string("name"), jv_string(t->name));

		o = jv_object_set(o, jv_string("description"), jv_string(t->description));
		o = jv_object_set(o, jv_string("inputSchema"),
		    cc_json_parse(t->input_schema, strlen(t->input_schema)));
		tools = jv_array_append(tools, o);
	}
	return jv_object_set(jv_object(), jv_string("tools"), tools);
}
