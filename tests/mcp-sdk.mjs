// tests/mcp-sdk.mjs: the official MCP client (@modelcontextprotocol/sdk)
// drives cc-mcp.  Run by tests/mcp-sdk.test with NODE_PATH-like resolution
// through the module directory given as argv[2]; prints "ok - NAME" or
// "not ok - NAME # detail" lines that the shell test turns into TAP.
// argv: MODULES-DIR REPO
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, repo] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);
const { Client } = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
const { LATEST_PROTOCOL_VERSION } = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
const require = createRequire(path.join(modules, 'x.js'));
const Ajv = require('ajv');

function check(name, cond, detail) {
	console.log(cond ? `ok - ${name}` : `not ok - ${name} # ${JSON.stringify(detail ?? null).slice(0, 600)}`);
}

const transport = new StdioClientTransport({
	command: 'cc-mcp',
	args: ['--repo', repo],
	env: process.env,
	stderr: 'inherit',
});
// the version the server answered, as the SDK hands it to its transport
let agreed = null;
transport.setProtocolVersion = (v) => { agreed = v; };
const client = new Client({ name: 'mcp-sdk.test', version: '1.0.0' });
await client.connect(transport);

check('initialize: the SDK agreed on a protocol version', client.getServerVersion()?.name === 'cc-mcp',
	client.getServerVersion());
check(`the server speaks the SDK's newest version (${LATEST_PROTOCOL_VERSION})`,
	agreed === LATEST_PROTOCOL_VERSION, agreed);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
check('tools/list: 15 tools', tools.length === 15, names);
for (const want of ['start_session', 'set_query_frame', 'submit_understanding', 'check_write_target',
	'find_definitions', 'find_references', 'search_text', 'get_symbols', 'analyze_structure', 'ask'])
	check(`tools/list has ${want}`, names.includes(want), names);
const ajv = new Ajv({ strict: false });
let bad = [];
for (const t of tools) {
	try {
		ajv.compile(t.inputSchema);
		if (t.inputSchema.type !== 'object') bad.push(t.name);
	} catch (e) {
		bad.push(`${t.name}: ${e.message}`);
	}
}
check('every input schema compiles (ajv) and is an object schema', bad.length === 0, bad);

const validate = Object.fromEntries(tools.map((t) => [t.name, ajv.compile(t.inputSchema)]));
async function call(name, args) {
	if (!validate[name](args))
		throw new Error(`${name}: arguments rejected by the schema: ${ajv.errorsText(validate[name].errors)}`);
	const r = await client.callTool({ name, arguments: args });
	const text = r.content?.[0]?.text ?? '';
	let answer;
	try { answer = JSON.parse(text); } catch { answer = text; }
	return { isError: r.isError === true, answer };
}

const q = 'ログイン機能でパスワードが空のときにエラーメッセージが表示されない問題を直して';
let r = await call('start_session', { intent: 'MODIFY', query: q });
check('start_session: EXPLORATION', !r.isError && r.answer.current_phase === 'EXPLORATION', r);
r = await call('set_query_frame', {
	target_feature: { value: 'ログイン機能', quote: 'ログイン機能' },
	trigger_condition: { value: 'パスワードが空のとき', quote: 'パスワードが空のとき' },
	observed_issue: { value: 'エラーメッセージが表示されない', quote: 'エラーメッセージが表示されない' },
	desired_action: { value: '直して', quote: '直して' },
});
check('set_query_frame: risk LOW', !r.isError && r.answer.risk_level === 'LOW', r);
r = await call('find_definitions', { symbol: 'LoginService', exact_match: true });
check('find_definitions: LoginService in auth/login_service.py',
	!r.isError && r.answer.definitions?.[0]?.file === 'auth/login_service.py' &&
	r.answer.definitions[0].line === 1, r);
r = await call('find_references', { symbol: 'LoginService' });
check('find_references: used in auth/controller.py, the definition left out',
	!r.isError && r.answer.references.length === 2 &&
	r.answer.references.every((x) => x.file === 'auth/controller.py'), r);
r = await call('search_text', { pattern: 'if not password', file_type: 'py' });
check('search_text: the empty-password check', !r.isError &&
	r.answer.matches?.[0]?.file === 'auth/login_service.py' && r.answer.matches[0].line_number === 3 &&
	r.answer.matches[0].submatches?.[0]?.match === 'if not password', r);
r = await call('get_session_status', {});
check('the gate counted the exploration tools',
	['find_definitions', 'find_references'].every((t) => JSON.stringify(r.answer).includes(t)), r);
r = await call('submit_understanding', {
	symbols_identified: ['LoginService', 'AuthController', 'authenticate'],
	entry_points: ['AuthController.login()'],
	existing_patterns: ['Service + Controller'],
	files_analyzed: ['auth/login_service.py', 'auth/controller.py'],
});
check('submit_understanding: READY', !r.isError && r.answer.next_phase === 'READY', r);
r = await call('check_write_target', { file_path: 'auth/login_service.py' });
check('check_write_target: an explored file may be written', !r.isError && r.answer.allowed === true, r);
r = await call('check_write_target', { file_path: 'web/routes.py' });
check('check_write_target: an unexplored one may not', r.answer.allowed === false, r);

r = await call('get_symbols', { path: '../..' });
check('a path outside the repository: a tool error (isError)', r.isError && r.answer.error === 'invalid_path', r);

r = await call('ask', { question: 'What are the opening hours?', domain: 'engineer-cafe' });
check('ask: Engineer Cafe answers its opening hours',
	!r.isError && /9:00/.test(r.answer.answer) && /22:00/.test(r.answer.answer) &&
	r.answer.record?.route?.agent === 'BusinessInfoAgent', r);
r = await call('ask', { question: 'エンジニアカフェの営業時間は？', domain: 'engineer-cafe', session: 'sdk-1' });
check('ask: and in Japanese, in a session', !r.isError && /9:00|9時/.test(r.answer.answer) &&
	r.answer.session === 'sdk-1', r);

let threw = null;
try {
	await client.callTool({ name: 'no_such_tool', arguments: {} });
} catch (e) {
	threw = e;
}
check('an unknown tool: a JSON-RPC error the SDK raises', threw !== null &&
	(threw.code === -32602 || /Unknown tool/.test(String(threw.message))), String(threw));
await client.close();
