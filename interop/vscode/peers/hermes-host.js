'use strict';
// A headless Hermes host on vscode-jsonrpc that spawns an extension (our
// examples/hermes/extension) and drives it: initialize, an unknown method,
// notifications, a command that reads and patches a message with non-ASCII
// names, the same command answered with an IDL error, and shutdown.
//
// Usage: node hermes-host.js REPORT TRAFFIC EXTENSION [ARGS...]
const { spawn } = require('child_process');
const { connect, Report, expectError, assert, withTimeout, rpc } = require('./lib');

const [report_, traffic, ...command] = process.argv.slice(2);
const report = new Report(report_);
const WAIT = 10000;

const child = spawn(command[0], command.slice(1), {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { ...process.env, HERMES_VERSION: '1.0.0', HERMES_API_VERSION: '1.0', HERMES_DATA_DIR: '/tmp/hermes-vscode' },
});
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
const conn = connect(child.stdout, child.stdin, traffic);

// The message in the "editor"; PID-5 holds non-ASCII family and given names.
let message = 'MSH|^~\\&|ADT|GENHOSP|HERMES|GENHOSP|20240301101500||ADT^A01|MSG00042|P|2.5.1\r' +
  'PID|1||12345678^^^GENHOSP^MR||zoë^ünïcödé ✓^q||19800101|F';
let noMessage = false;
const patches = [];
const shown = [];
let onShown = () => {};

conn.onRequest('editor/getMessage', (params) => {
  report.record('received editor/getMessage', params);
  if (noMessage) {
    return new rpc.ResponseError(-32003, 'No message open');
  }
  return { message, hasFile: false };
});
conn.onRequest('editor/patchMessage', (params) => {
  report.record('received editor/patchMessage', params);
  patches.push(...params.patches);
  for (const p of params.patches) {
    const m = /^PID\.5\.([12])$/.exec(p.path);
    if (m) {
      message = message.replace(/(PID\|1\|\|[^|]*\|\|)([^^]*)\^([^^]*)/, (_, pre, fam, giv) => pre + (m[1] === '1' ? p.value + '^' + giv : fam + '^' + p.value));
    }
  }
  return { success: true, patchesApplied: params.patches.length };
});
conn.onRequest('ui/showMessage', (params) => {
  report.record('received ui/showMessage', params);
  shown.push(params);
  onShown(params);
  return { acknowledged: true };
});

function nextShown() {
  return withTimeout(new Promise((resolve) => { onShown = resolve; }), WAIT, 'ui/showMessage from the extension');
}

async function main() {
  conn.listen();
  await report.step('initialize', async () => {
    const r = await withTimeout(conn.sendRequest('initialize', { hermesVersion: '1.0.0', apiVersion: '1.0', dataDirectory: '/tmp/hermes-vscode' }), WAIT, 'initialize');
    assert(r.capabilities && r.capabilities.commands.includes('hl7tools/normaliseName'), `commands: ${JSON.stringify(r.capabilities)}`);
    return { name: r.name, commands: r.capabilities.commands };
  });
  await report.step('an unknown method fails with MethodNotFound', async () => {
    return expectError(withTimeout(conn.sendRequest('hermes/frobnicate', { really: true }), WAIT, 'hermes/frobnicate'), -32601);
  });
  await report.step('message/opened notification', async () => {
    await conn.sendNotification('message/opened', { isNew: false, filePath: '/tmp/Zoë ✓.hl7' });
  });
  await report.step('command/execute normaliseName patches non-ASCII names', async () => {
    const shownP = nextShown();
    await conn.sendNotification('command/execute', { command: 'hl7tools/normaliseName' });
    const s = await shownP;
    const values = patches.map((p) => [p.path, p.value]);
    assert(JSON.stringify(values) === JSON.stringify([['PID.5.1', 'ZOË'], ['PID.5.2', 'ÜNÏCÖDÉ ✓']]), `patches: ${JSON.stringify(values)}`);
    assert(s.message.includes('ZOË^ÜNÏCÖDÉ ✓'), `ui/showMessage: ${JSON.stringify(s)}`);
    return { patches: values, shown: s };
  });
  await report.step('command/execute with editor/getMessage answered by NoMessageOpen', async () => {
    noMessage = true;
    const shownP = nextShown();
    await conn.sendNotification('command/execute', { command: 'hl7tools/normaliseName' });
    const s = await shownP;
    assert(s.kind === 'error' && s.message.includes('-32003'), `ui/showMessage: ${JSON.stringify(s)}`);
    return s;
  });
  await report.step('shutdown', async () => {
    const r = await withTimeout(conn.sendRequest('shutdown', { reason: 'closing' }), WAIT, 'shutdown');
    assert(r.success === true, `result: ${JSON.stringify(r)}`);
    return r;
  });
  await report.step('the extension exits when its stdin ends', async () => {
    child.stdin.end();
    const r = await withTimeout(exited, WAIT, 'exit');
    assert(r.code === 0, `exit: ${JSON.stringify(r)}`);
    return r;
  });
}

main().catch((err) => report.fail('host', String(err && err.stack))).finally(() => {
  report.write();
  conn.dispose();
  child.kill('SIGKILL');
  process.exit(0);
});
