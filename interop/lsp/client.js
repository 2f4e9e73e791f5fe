#!/usr/bin/env node
// An LSP 3.17 client built on vscode-languageserver-protocol that drives a
// "notes" language server (README.md says what the server must do) over
// the stdio of a spawned command:
//
//   node client.js SERVER [ARG...]
//
// It prints a JSON transcript (its steps and every message each way, parsed
// from the raw Content-Length stream) on stdout, and exits 1 with a message
// naming the step on stderr at the first mismatch.
'use strict';

const { spawn } = require('node:child_process');
const { PassThrough } = require('node:stream');
const lsp = require('vscode-languageserver-protocol/node');
const { parseFrames } = require('./frames.js');
const doc = require('./notes-doc.js');

// wait bounds every wait for the server.
const wait = 10_000;

const transcript = { server: process.argv.slice(2), steps: [], sent: [], received: [], exit: null };
const inBytes = [];
const outBytes = [];
let child;
let finished = false;

function finish(code, message) {
	if (finished) {
		return;
	}
	finished = true;
	try {
		transcript.received = parseFrames(Buffer.concat(inBytes));
	} catch (err) {
		transcript.received = { error: `the server's output is not Content-Length framed JSON-RPC 2.0: ${err.message}` };
		if (code === 0) {
			code = 1;
			message = `framing: ${transcript.received.error}`;
		}
	}
	try {
		transcript.sent = parseFrames(Buffer.concat(outBytes));
	} catch (err) {
		transcript.sent = { error: err.message };
	}
	process.stdout.write(JSON.stringify(transcript, null, 1) + '\n', () => {
		if (message) {
			process.stderr.write(`notes client: ${message}\n`);
		}
		if (child && child.exitCode === null && child.signalCode === null) {
			child.kill('SIGKILL');
		}
		process.exit(code);
	});
}

// report ends the run at the first mismatch; fail does too, and stops the
// steps (report is for the library's callbacks, which must not throw).
function report(step, message) {
	if (!finished) {
		transcript.steps.push({ name: step, ok: false, error: message });
	}
	finish(1, `step ${step}: ${message}`);
}

function fail(step, message) {
	report(step, message);
	throw new Stop();
}

class Stop extends Error {}

function ok(step, got) {
	transcript.steps.push({ name: step, ok: true, got: got === undefined ? null : got });
}

// canonical is JSON with every object's members sorted, so that member
// order does not matter.
function canonical(v) {
	return JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x)
		? Object.fromEntries(Object.keys(x).sort().map(k => [k, x[k]])) : x));
}

// expect fails step unless got equals want (as JSON, member order aside).
function expect(step, what, got, want) {
	const g = canonical(got);
	const w = canonical(want);
	if (g !== w) {
		fail(step, `${what}: got ${g}, want ${w}`);
	}
}

// within rejects when p does not settle in time.
function within(step, p) {
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`no answer within ${wait} ms`)), wait);
	});
	return Promise.race([p, timeout]).finally(() => clearTimeout(timer)).catch(err => {
		if (err instanceof Stop) {
			throw err;
		}
		if (err instanceof lsp.ResponseError) {
			throw err;
		}
		fail(step, err.message);
	});
}

// deferred is a promise with its resolve function.
function deferred() {
	let resolve;
	const p = new Promise(r => { resolve = r; });
	p.resolve = resolve;
	return p;
}

// queue hands received notifications to the steps waiting for them.
class Queue {
	constructor() { this.items = []; this.waiters = []; }
	push(v) { const w = this.waiters.shift(); if (w) { w(v); } else { this.items.push(v); } }
	next() { return this.items.length ? Promise.resolve(this.items.shift()) : new Promise(r => this.waiters.push(r)); }
}

async function main() {
	const [cmd, ...args] = process.argv.slice(2);
	if (!cmd) {
		process.stderr.write('usage: node client.js SERVER [ARG...]\n');
		process.exit(2);
	}
	child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
	let exiting = false;
	const exited = new Promise(resolve => child.on('exit', (code, signal) => {
		if (!exiting) {
			report('server', `exited before the exit notification (status ${code}, signal ${signal})`);
		}
		resolve({ code, signal });
	}));
	child.on('error', err => report('spawn', `${cmd}: ${err.message}`));
	child.stdout.on('data', b => inBytes.push(Buffer.from(b)));
	const tap = new PassThrough();
	tap.on('data', b => outBytes.push(Buffer.from(b)));
	tap.pipe(child.stdin);
	child.stdin.on('error', () => {}); // a server that exits early is reported by the steps

	// The library logs what it cannot handle (a response without a result,
	// params of the wrong shape); any such line is a mismatch.
	const logger = {
		error: m => report('vscode-jsonrpc', `logged an error: ${m}`),
		warn: m => report('vscode-jsonrpc', `logged a warning: ${m}`),
		info: () => {},
		log: () => {},
	};
	const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(child.stdout), new lsp.StreamMessageWriter(tap), logger);

	const registered = deferred();
	const configured = deferred();
	const diagnostics = new Queue();
	const progress = [];
	let progressToken;
	let commandRunning = false;

	conn.onRequest(lsp.RegistrationRequest.type, params => {
		registered.resolve(params);
		return null;
	});
	conn.onRequest(lsp.ConfigurationRequest.type, params => {
		configured.resolve(params);
		return params.items.map(item => (item.section === 'notes' ? doc.configuration : null));
	});
	conn.onRequest(lsp.WorkDoneProgressCreateRequest.type, params => {
		if (!commandRunning) {
			report('notes.count', `window/workDoneProgress/create outside workspace/executeCommand: ${JSON.stringify(params)}`);
		}
		progressToken = params.token;
		conn.onProgress(lsp.WorkDoneProgress.type, params.token, v => progress.push(v));
		return null;
	});
	conn.onRequest((method, params) => {
		report('unexpected request', `the server sent ${method} ${JSON.stringify(params)}, which a notes server does not send`);
		return new lsp.ResponseError(lsp.ErrorCodes.MethodNotFound, `not a request a notes server sends: ${method}`);
	});
	conn.onNotification(lsp.PublishDiagnosticsNotification.type, p => diagnostics.push(p));
	conn.onNotification(lsp.LogMessageNotification.type, () => {});
	conn.onNotification((method, params) => {
		report('unexpected notification', `the server sent ${method} ${JSON.stringify(params)}, which a notes server does not send`);
	});
	conn.onUnhandledProgress(p => report('unexpected progress', `$/progress for token ${JSON.stringify(p.token)}, which no window/workDoneProgress/create announced`));
	conn.onError(([err]) => report('connection', `vscode-jsonrpc reported ${err && err.message}`));
	conn.listen();

	// initialize: the server announces what README.md lists.
	const init = await within('initialize', conn.sendRequest(lsp.InitializeRequest.type, doc.initializeParams(process.pid)));
	const caps = init.capabilities || {};
	const sync = typeof caps.textDocumentSync === 'number' ? { openClose: true, change: caps.textDocumentSync } : caps.textDocumentSync;
	expect('initialize', 'capabilities.textDocumentSync', sync && { openClose: sync.openClose, change: sync.change }, { openClose: true, change: lsp.TextDocumentSyncKind.Full });
	expect('initialize', 'capabilities.hoverProvider', caps.hoverProvider, true);
	expect('initialize', 'capabilities.completionProvider is an object', typeof caps.completionProvider, 'object');
	expect('initialize', 'capabilities.executeCommandProvider.commands', caps.executeCommandProvider && caps.executeCommandProvider.commands, ['notes.count', 'notes.wait']);
	expect('initialize', 'capabilities.positionEncoding (absent or utf-16)', caps.positionEncoding || 'utf-16', 'utf-16');
	expect('initialize', 'serverInfo.name', init.serverInfo && init.serverInfo.name, 'notes');
	ok('initialize', init);

	// initialized: the server registers workspace/didChangeConfiguration and
	// asks for the "notes" section, in either order.
	await conn.sendNotification(lsp.InitializedNotification.type, {});
	const reg = await within('client/registerCapability', registered);
	expect('client/registerCapability', 'registrations (without ids)', (reg.registrations || []).map(r => ({ method: r.method, registerOptions: r.registerOptions })),
		[{ method: 'workspace/didChangeConfiguration', registerOptions: { section: 'notes' } }]);
	if (typeof reg.registrations[0].id !== 'string' || reg.registrations[0].id === '') {
		fail('client/registerCapability', `registration id ${JSON.stringify(reg.registrations[0].id)} is not a non-empty string`);
	}
	ok('client/registerCapability', reg);
	const cfg = await within('workspace/configuration', configured);
	expect('workspace/configuration', 'items', cfg.items, [{ section: 'notes' }]);
	ok('workspace/configuration', cfg);

	// didOpen: one warning per line holding the marker.
	await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri: doc.uri, languageId: 'notes', version: 1, text: doc.text1 } });
	const d1 = await within('publishDiagnostics', diagnostics.next());
	expect('publishDiagnostics', 'diagnostics after didOpen', d1, { uri: doc.uri, version: 1, diagnostics: doc.diagnostics1 });
	ok('publishDiagnostics', d1);

	// hover: a word's count as markdown and its range in UTF-16 code units;
	// null between words.
	for (const h of doc.hovers) {
		const step = `hover ${h.position.line}:${h.position.character}`;
		const got = await within(step, conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri: doc.uri }, position: h.position }));
		expect(step, 'hover', got, h.want);
		ok(step, got);
	}

	// completion: the document's distinct words, in order of first use.
	const comp = await within('completion', conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri: doc.uri }, position: { line: 3, character: 0 } }));
	expect('completion', 'items', comp, doc.completion);
	ok('completion', comp);

	// didChange (full text): diagnostics follow the new text.
	await conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, { textDocument: { uri: doc.uri, version: 2 }, contentChanges: [{ text: doc.text2 }] });
	const d2 = await within('publishDiagnostics after didChange', diagnostics.next());
	expect('publishDiagnostics after didChange', 'diagnostics', d2, { uri: doc.uri, version: 2, diagnostics: doc.diagnostics2 });
	ok('publishDiagnostics after didChange', d2);

	// notes.count: a request of the server's (progress/create) answered in
	// the middle of ours, and progress begin ... end before the result.
	commandRunning = true;
	const count = await within('notes.count', conn.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'notes.count', arguments: [doc.uri] }));
	commandRunning = false;
	expect('notes.count', 'result', count, doc.count);
	if (progressToken === undefined) {
		fail('notes.count', 'no window/workDoneProgress/create before the result');
	}
	const kinds = progress.map(p => p.kind);
	if (kinds.length < 2 || kinds[0] !== 'begin' || kinds[kinds.length - 1] !== 'end' || kinds.slice(1, -1).some(k => k !== 'report')) {
		fail('notes.count', `progress kinds ${JSON.stringify(kinds)}, want begin, any reports, end`);
	}
	expect('notes.count', 'progress begin title', progress[0].title, 'Counting words');
	ok('notes.count', { result: count, token: progressToken, progress });

	// A method the server does not implement: -32601.
	try {
		const got = await within('definition', conn.sendRequest(lsp.DefinitionRequest.type, { textDocument: { uri: doc.uri }, position: { line: 0, character: 0 } }));
		fail('definition', `got result ${JSON.stringify(got)}, want error ${lsp.ErrorCodes.MethodNotFound}`);
	} catch (err) {
		if (!(err instanceof lsp.ResponseError)) {
			throw err;
		}
		expect('definition', 'error code', err.code, lsp.ErrorCodes.MethodNotFound);
		ok('definition', { code: err.code, message: err.message });
	}

	// notes.wait, cancelled with $/cancelRequest: -32800.
	const source = new lsp.CancellationTokenSource();
	const waiting = conn.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'notes.wait', arguments: [] }, source.token);
	source.cancel();
	try {
		const got = await within('cancelled notes.wait', waiting);
		fail('cancelled notes.wait', `got result ${JSON.stringify(got)}, want error ${lsp.LSPErrorCodes.RequestCancelled}`);
	} catch (err) {
		if (!(err instanceof lsp.ResponseError)) {
			throw err;
		}
		expect('cancelled notes.wait', 'error code', err.code, lsp.LSPErrorCodes.RequestCancelled);
		ok('cancelled notes.wait', { code: err.code, message: err.message });
	}

	// didClose: the server clears the document's diagnostics.
	await conn.sendNotification(lsp.DidCloseTextDocumentNotification.type, { textDocument: { uri: doc.uri } });
	const d3 = await within('publishDiagnostics after didClose', diagnostics.next());
	expect('publishDiagnostics after didClose', 'diagnostics', { uri: d3.uri, diagnostics: d3.diagnostics }, { uri: doc.uri, diagnostics: [] });
	ok('publishDiagnostics after didClose', d3);

	// shutdown: a response whose result member is null (checked in the raw
	// bytes: the library would accept a missing result as well).
	const down = await within('shutdown', conn.sendRequest(lsp.ShutdownRequest.type));
	expect('shutdown', 'result', down, null);
	const frames = parseFrames(Buffer.concat(inBytes));
	const answer = frames.find(f => f.message.id !== undefined && f.message.method === undefined && transcriptID(f.message.id, 'shutdown'));
	if (!answer || !Object.prototype.hasOwnProperty.call(answer.message, 'result') || answer.message.result !== null) {
		fail('shutdown', `the response to shutdown is ${answer ? answer.raw : 'missing'}, want "result":null`);
	}
	ok('shutdown', null);

	// exit: the server ends with status 0.
	exiting = true;
	await conn.sendNotification(lsp.ExitNotification.type);
	child.stdin.end();
	const status = await within('exit', exited);
	transcript.exit = status;
	expect('exit', 'exit status', status, { code: 0, signal: null });
	ok('exit', status);
	conn.dispose();
	finish(0);
}

// transcriptID reports whether id is the id of the request we sent for method.
function transcriptID(id, method) {
	try {
		return parseFrames(Buffer.concat(outBytes)).some(f => f.message.method === method && f.message.id === id);
	} catch {
		return false;
	}
}

main().catch(err => {
	if (!(err instanceof Stop)) {
		transcript.steps.push({ name: 'client', ok: false, error: String(err && err.stack || err) });
		finish(1, `unexpected: ${err && err.message}`);
	}
});
