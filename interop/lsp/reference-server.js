#!/usr/bin/env node
// A notes language server on vscode-languageserver-protocol, written from
// README.md: it checks client.js itself (and shows the behaviour
// examples/lsp/server must have). NOTES_FAULT=NAME makes it misbehave in
// one way, so that a test can see client.js catch it:
//   bytes     count positions in UTF-8 bytes instead of UTF-16 code units
//   shutdown  answer shutdown with {} instead of null
//   progress  send $/progress without window/workDoneProgress/create
'use strict';

const lsp = require('vscode-languageserver-protocol/node');

const fault = process.env.NOTES_FAULT || '';
const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(process.stdin), new lsp.StreamMessageWriter(process.stdout));
const docs = new Map(); // uri -> {version, text}
let marker = 'TODO';
let shutdown = false;
let progressTokens = 0;

// width is the length of s in the position encoding (UTF-16, or bytes
// under the "bytes" fault).
function width(s) {
	return fault === 'bytes' ? Buffer.byteLength(s) : s.length;
}

// words lists the document's words (runs of letters and digits) with
// their line and UTF-16 range.
function words(text) {
	const out = [];
	text.split('\n').forEach((line, n) => {
		for (const m of line.matchAll(/[\p{L}\p{N}]+/gu)) {
			const start = width(line.slice(0, m.index));
			out.push({ word: m[0], line: n, start, end: start + width(m[0]) });
		}
	});
	return out;
}

function publish(uri) {
	const d = docs.get(uri);
	const diagnostics = words(d.text).filter(w => w.word === marker).map(w => ({
		range: { start: { line: w.line, character: w.start }, end: { line: w.line, character: w.end } },
		severity: lsp.DiagnosticSeverity.Warning,
		source: 'notes',
		message: `${marker} left in the note`,
	}));
	conn.sendNotification(lsp.PublishDiagnosticsNotification.type, { uri, version: d.version, diagnostics });
}

conn.onRequest(lsp.InitializeRequest.type, () => ({
	capabilities: {
		textDocumentSync: { openClose: true, change: lsp.TextDocumentSyncKind.Full },
		hoverProvider: true,
		completionProvider: {},
		executeCommandProvider: { commands: ['notes.count', 'notes.wait'] },
	},
	serverInfo: { name: 'notes' },
}));

conn.onNotification(lsp.InitializedNotification.type, async () => {
	await conn.sendRequest(lsp.RegistrationRequest.type, {
		registrations: [{ id: 'notes-configuration', method: 'workspace/didChangeConfiguration', registerOptions: { section: 'notes' } }],
	});
	const [cfg] = await conn.sendRequest(lsp.ConfigurationRequest.type, { items: [{ section: 'notes' }] });
	if (cfg && typeof cfg.marker === 'string' && cfg.marker !== '') {
		marker = cfg.marker;
	}
});

conn.onNotification(lsp.DidOpenTextDocumentNotification.type, p => {
	docs.set(p.textDocument.uri, { version: p.textDocument.version, text: p.textDocument.text });
	publish(p.textDocument.uri);
});
conn.onNotification(lsp.DidChangeTextDocumentNotification.type, p => {
	const last = p.contentChanges[p.contentChanges.length - 1];
	docs.set(p.textDocument.uri, { version: p.textDocument.version, text: last.text });
	publish(p.textDocument.uri);
});
conn.onNotification(lsp.DidCloseTextDocumentNotification.type, p => {
	docs.delete(p.textDocument.uri);
	conn.sendNotification(lsp.PublishDiagnosticsNotification.type, { uri: p.textDocument.uri, diagnostics: [] });
});

conn.onRequest(lsp.HoverRequest.type, p => {
	const d = docs.get(p.textDocument.uri);
	const all = d ? words(d.text) : [];
	const at = all.find(w => w.line === p.position.line && w.start <= p.position.character && p.position.character < w.end);
	if (!at) {
		return null;
	}
	const n = all.filter(w => w.word === at.word).length;
	return {
		contents: { kind: lsp.MarkupKind.Markdown, value: `**${at.word}** occurs ${n} ${n === 1 ? 'time' : 'times'}` },
		range: { start: { line: at.line, character: at.start }, end: { line: at.line, character: at.end } },
	};
});

conn.onRequest(lsp.CompletionRequest.type, p => {
	const d = docs.get(p.textDocument.uri);
	const distinct = [...new Set((d ? words(d.text) : []).map(w => w.word))];
	return distinct.map(label => ({ label, kind: lsp.CompletionItemKind.Text }));
});

conn.onRequest(lsp.ExecuteCommandRequest.type, async (p, token) => {
	if (p.command === 'notes.wait') {
		// A token cancelled before the handler runs never fires its event.
		return new Promise((resolve, reject) => {
			const cancelled = () => reject(new lsp.ResponseError(lsp.LSPErrorCodes.RequestCancelled, 'cancelled'));
			if (token.isCancellationRequested) {
				cancelled();
			}
			token.onCancellationRequested(cancelled);
		});
	}
	if (p.command !== 'notes.count') {
		throw new lsp.ResponseError(lsp.ErrorCodes.InvalidParams, `command: unknown command ${p.command}`);
	}
	const d = docs.get(p.arguments && p.arguments[0]);
	if (!d) {
		throw new lsp.ResponseError(lsp.ErrorCodes.InvalidParams, 'arguments[0]: not an open document');
	}
	const progressToken = `notes.count/${++progressTokens}`;
	if (fault !== 'progress') {
		await conn.sendRequest(lsp.WorkDoneProgressCreateRequest.type, { token: progressToken });
	}
	const all = words(d.text);
	await conn.sendProgress(lsp.WorkDoneProgress.type, progressToken, { kind: 'begin', title: 'Counting words' });
	await conn.sendProgress(lsp.WorkDoneProgress.type, progressToken, { kind: 'report', message: `${all.length} words` });
	await conn.sendProgress(lsp.WorkDoneProgress.type, progressToken, { kind: 'end' });
	return { words: all.length, distinct: new Set(all.map(w => w.word)).size };
});

conn.onRequest(lsp.ShutdownRequest.type, () => {
	shutdown = true;
	return fault === 'shutdown' ? {} : null;
});
conn.onNotification(lsp.ExitNotification.type, () => process.exit(shutdown ? 0 : 1));
conn.listen();
