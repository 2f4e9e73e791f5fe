'use strict';
// A Hermes extension on vscode-jsonrpc, for our example host to spawn
// (host -run vscode/selftest -- node hermes-extension.js). When its command
// runs it exercises the host: 50 concurrent editor/getMessage calls, a
// non-ASCII patch read back, IDL errors, an unknown method and a dialogue.
// It writes what it saw to $VSCODE_REPORT and its raw traffic to
// $VSCODE_TRAFFIC when its stdin ends.
const { connect, Report, expectError, assert } = require('./lib');

const report = new Report(process.env.VSCODE_REPORT);
const conn = connect(process.stdin, process.stdout, process.env.VSCODE_TRAFFIC);
const NAME = 'Zoë ✓';
let finished = false;

function finish(code) {
  if (!finished) {
    finished = true;
    report.write();
  }
  process.exit(code);
}

conn.onRequest('initialize', (params) => {
  report.record('received initialize', params);
  return {
    name: 'vscode-jsonrpc extension',
    version: '1.0.0',
    capabilities: {
      commands: ['vscode/selftest'],
      events: [
        { name: 'message/opened' },
        { name: 'message/saved' },
        { name: 'message/changed', options: { includeContent: true, format: 'hl7' } },
      ],
    },
  };
});

conn.onRequest('shutdown', (params) => {
  report.record('received shutdown', params);
  report.write();
  return { success: true };
});

for (const method of ['message/opened', 'message/saved', 'message/changed', 'window/closed']) {
  conn.onNotification(method, (params) => report.record(`received ${method}`, params));
}

conn.onNotification('command/execute', async (params) => {
  report.record('received command/execute', params);
  if (params.command !== 'vscode/selftest') {
    report.fail('command/execute', `unexpected command ${JSON.stringify(params.command)}`);
    return;
  }
  await selftest();
  report.write();
});

async function selftest() {
  let original;
  await report.step('50 concurrent editor/getMessage', async () => {
    const calls = [];
    for (let i = 0; i < 50; i++) {
      calls.push(conn.sendRequest('editor/getMessage', { format: 'hl7' }));
    }
    const results = await Promise.all(calls);
    original = results[0].message;
    for (const r of results) {
      assert(r.message === original, `answers differ: ${JSON.stringify(r.message)} vs ${JSON.stringify(original)}`);
    }
    assert(original.includes('PID|'), `no PID segment in ${JSON.stringify(original)}`);
    return { count: results.length, message: original };
  });

  await report.step('editor/patchMessage with a non-ASCII value', async () => {
    const r = await conn.sendRequest('editor/patchMessage', { patches: [{ path: 'PID.5.2', value: NAME }] });
    assert(r.success === true && r.patchesApplied === 1, `patch not applied: ${JSON.stringify(r)}`);
    return r;
  });

  await report.step('editor/getMessage reads the non-ASCII value back', async () => {
    const r = await conn.sendRequest('editor/getMessage', { format: 'hl7' });
    const pid = r.message.split(/\r\n|\r|\n/).find((s) => s.startsWith('PID|'));
    const name = pid.split('|')[5].split('^');
    assert(name[1] === NAME, `PID-5.2 is ${JSON.stringify(name[1])}, want ${JSON.stringify(NAME)}; PID: ${JSON.stringify(pid)}`);
    return { pid };
  });

  await report.step('editor/patchMessage with a malformed path fails with InvalidPath', async () => {
    const e = await expectError(conn.sendRequest('editor/patchMessage', { patches: [{ path: 'PID.5.1', value: 'X' }, { path: 'not a path!', value: 'x' }] }), -32005);
    assert(e.data && e.data.index === 1 && e.data.path === 'not a path!', `data: ${JSON.stringify(e.data)}`);
    return e;
  });

  await report.step('editor/getMessage in yaml and toml', async () => {
    const y = await conn.sendRequest('editor/getMessage', { format: 'yaml' });
    assert(y.message.startsWith('segments:\n  - segment: MSH\n'), `yaml: ${JSON.stringify(y.message)}`);
    const t = await conn.sendRequest('editor/getMessage', { format: 'toml' });
    assert(t.message.startsWith('[[segments]]\nsegment = "MSH"\n'), `toml: ${JSON.stringify(t.message)}`);
    return { yaml: y.message.length, toml: t.message.length };
  });

  await report.step('editor/getMessage in a format the protocol lacks fails with InvalidParams', async () => {
    return expectError(conn.sendRequest('editor/getMessage', { format: 'xml' }), -32602);
  });

  await report.step('an unknown method fails with MethodNotFound', async () => {
    return expectError(conn.sendRequest('editor/frobnicate', { really: true }), -32601);
  });

  await report.step('ui/showConfirm', async () => {
    const r = await conn.sendRequest('ui/showConfirm', { message: `Keep ${NAME}?`, title: 'vscode-jsonrpc' });
    assert(r.confirmed === true, `confirmed: ${JSON.stringify(r)}`);
    return r;
  });

  await report.step('ui/showMessage with non-ASCII text', async () => {
    return conn.sendRequest('ui/showMessage', { message: `Patient is ${NAME}`, kind: 'info' });
  });
}

conn.onClose(() => finish(0));
conn.onError(([err]) => report.fail('connection error', String(err)));
process.stdin.on('end', () => finish(0));
conn.listen();
