// The document the notes client opens and changes, and what README.md says
// a notes server answers about it. Positions count UTF-16 code units (LSP's
// default encoding): "ë" is one unit, "𝄞" two.
'use strict';

const uri = 'file:///notes/today.notes';

const text1 = [
	'milk and eggs',
	'call Zoë TODO soon',
	'𝄞 milk again',
	'TODO write the notes server',
].join('\n') + '\n';

const text2 = text1.replace('TODO write', 'done: write');

function range(line, start, end) {
	return { start: { line, character: start }, end: { line, character: end } };
}

function warning(line, start) {
	return { range: range(line, start, start + 4), severity: 2, source: 'notes', message: 'TODO left in the note' };
}

function hover(value, r) {
	return { contents: { kind: 'markdown', value }, range: r };
}

module.exports = {
	uri,
	text1,
	text2,
	// The client's answer to workspace/configuration for section "notes".
	configuration: { marker: 'TODO' },
	diagnostics1: [warning(1, 9), warning(3, 0)],
	diagnostics2: [warning(1, 9)],
	hovers: [
		{ position: { line: 2, character: 4 }, want: hover('**milk** occurs 2 times', range(2, 3, 7)) },
		{ position: { line: 1, character: 7 }, want: hover('**Zoë** occurs 1 time', range(1, 5, 8)) },
		{ position: { line: 0, character: 4 }, want: null },
	],
	completion: ['milk', 'and', 'eggs', 'call', 'Zoë', 'TODO', 'soon', 'again', 'write', 'the', 'notes', 'server']
		.map(label => ({ label, kind: 1 })),
	count: { words: 14, distinct: 13 },
	initializeParams(pid) {
		return {
			processId: pid,
			clientInfo: { name: 'rpcgen-interop-lsp' },
			locale: 'en',
			rootUri: null,
			workspaceFolders: null,
			trace: 'off',
			capabilities: {
				general: { positionEncodings: ['utf-16'] },
				window: { workDoneProgress: true },
				workspace: {
					configuration: true,
					didChangeConfiguration: { dynamicRegistration: true },
					executeCommand: { dynamicRegistration: false },
					workspaceFolders: true,
				},
				textDocument: {
					synchronization: { dynamicRegistration: false, willSave: false, willSaveWaitUntil: false, didSave: false },
					hover: { dynamicRegistration: false, contentFormat: ['markdown', 'plaintext'] },
					completion: { dynamicRegistration: false, completionItem: { snippetSupport: false }, contextSupport: false },
					definition: { dynamicRegistration: false, linkSupport: false },
					publishDiagnostics: { relatedInformation: false, versionSupport: true },
				},
			},
		};
	},
};
