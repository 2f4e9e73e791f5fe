// parseFrames splits a Content-Length framed byte stream into JSON-RPC 2.0
// messages, independently of vscode-jsonrpc, and throws when a header does
// not count the bytes of a body that is one valid UTF-8 JSON-RPC 2.0 object.
'use strict';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseFrames(stream) {
	const frames = [];
	let at = 0;
	while (at < stream.length) {
		const n = frames.length + 1;
		const end = stream.indexOf('\r\n\r\n', at);
		if (end < 0) {
			throw new Error(`message ${n}: no end of header section in ${JSON.stringify(stream.subarray(at).toString())}`);
		}
		let length = -1;
		for (const line of stream.subarray(at, end).toString('latin1').split('\r\n')) {
			const colon = line.indexOf(':');
			if (colon < 0) {
				throw new Error(`message ${n}: malformed header line ${JSON.stringify(line)}`);
			}
			if (line.slice(0, colon).trim().toLowerCase() === 'content-length') {
				const v = line.slice(colon + 1).trim();
				if (!/^[0-9]+$/.test(v)) {
					throw new Error(`message ${n}: Content-Length ${JSON.stringify(v)} is not a number`);
				}
				length = Number(v);
			}
		}
		if (length < 0) {
			throw new Error(`message ${n}: no Content-Length header`);
		}
		const start = end + 4;
		if (stream.length - start < length) {
			throw new Error(`message ${n}: Content-Length ${length} but only ${stream.length - start} bytes follow`);
		}
		let raw;
		try {
			raw = utf8.decode(stream.subarray(start, start + length));
		} catch {
			throw new Error(`message ${n}: the body is not valid UTF-8`);
		}
		let message;
		try {
			message = JSON.parse(raw);
		} catch (err) {
			throw new Error(`message ${n}: Content-Length ${length} does not delimit one JSON value (${err.message}): ${raw}`);
		}
		if (message === null || typeof message !== 'object' || message.jsonrpc !== '2.0') {
			throw new Error(`message ${n}: not a JSON-RPC 2.0 message: ${raw}`);
		}
		frames.push({ length, raw, message });
		at = start + length;
	}
	return frames;
}

module.exports = { parseFrames };
