'use strict';
// A Reginald plugin on vscode-jsonrpc, for our example host to spawn from
// its manifest.json. It provides the command "greet" (config: names; logs a
// greeting), the command "fail" (fails with CommandFailed, -32003) and the
// task type "echo" (config: text; text containing "bad" fails the task).
// It sends log notifications shaped as Reginald reads them, writes what it
// received to $VSCODE_REPORT and its raw traffic to $VSCODE_TRAFFIC.
const { connect, Report, rpc } = require('./lib');

const report = new Report(process.env.VSCODE_REPORT);
const conn = connect(process.stdin, process.stdout, process.env.VSCODE_TRAFFIC);

function finish() {
  report.write();
  process.exit(0);
}

function log(level, msg, attrs) {
  conn.sendNotification('log', {
    time: new Date().toISOString(),
    msg,
    source: null,
    attrs: attrs ? Object.entries(attrs).map(([key, value]) => ({ key, value })) : null,
    level,
  });
}

const value = (list, key) => ((list || []).find((kv) => kv.key === key) || {}).value;

conn.onRequest('handshake', (params) => {
  report.record('received handshake', params);
  return { name: 'vscode-plugin', protocol: 'reginald', protocolVersion: 0 };
});

conn.onRequest('runCommand', (params) => {
  report.record('received runCommand', params);
  if (params.cmd === 'fail') {
    return new rpc.ResponseError(-32003, 'command error', 'told to fail: Zoë ✓');
  }
  const names = value(params.config, 'names') || [];
  log('INFO', `hello ${names.join(' ')}`, { count: names.length, who: value(params.pluginConfig, 'who') });
  log('INFO+2', 'greeted'); // a level as log/slog writes one between INFO and WARN
  return {};
});

conn.onRequest('runTask', (params) => {
  report.record('received runTask', params);
  const text = value(params.config, 'text');
  if (String(text).includes('bad')) {
    return new rpc.ResponseError(-32603, `echo: text ${JSON.stringify(text)} is bad`);
  }
  log('WARN', 'echo', { text });
  return {};
});

// Reginald sends shutdown with params null; vscode-jsonrpc passes a
// request without params the cancellation token as the first argument.
conn.onRequest('shutdown', () => {
  report.record('received shutdown', null);
  return true;
});

conn.onNotification('exit', () => {
  report.record('received exit', null);
  finish();
});

// vscode-jsonrpc handles queued messages after the stream has ended: give
// an exit notification read just before the end the time to be handled.
const finishSoon = () => setTimeout(finish, 500);
conn.onClose(finishSoon);
process.stdin.on('end', finishSoon);
conn.listen();
