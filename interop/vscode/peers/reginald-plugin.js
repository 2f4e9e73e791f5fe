'use strict';
// A Reginald plugin on vscode-jsonrpc, for our example host to spawn. It
// provides the command "greet NAME" (logs a greeting), the command "fail"
// (fails with CommandFailed) and the task "echo" (config: text; text
// containing "bad" is InvalidConfig). It sends log notifications, writes
// what it received to $VSCODE_REPORT and its raw traffic to $VSCODE_TRAFFIC.
const { connect, Report, rpc } = require('./lib');

const report = new Report(process.env.VSCODE_REPORT);
const conn = connect(process.stdin, process.stdout, process.env.VSCODE_TRAFFIC);
let logging = { enabled: true, level: 'INFO' };
const args = {};

function finish() {
  report.write();
  process.exit(0);
}

function log(level, msg, fields) {
  if (logging.enabled) {
    conn.sendNotification('log', fields ? { level, msg, fields } : { level, msg });
  }
}

conn.onRequest('handshake', (params) => {
  report.record('received handshake', params);
  return {
    protocol: 'rpp',
    protocolVersion: 0,
    name: 'vscode-plugin',
    version: '1.0.0',
    commands: [
      { name: 'greet', usage: 'greet NAME', configs: [{ key: 'shout', value: false, type: 'bool' }] },
      { name: 'fail', usage: 'fail' },
    ],
    tasks: [{ type: 'echo', configs: [{ key: 'text', value: '', type: 'string' }] }],
  };
});

conn.onRequest('initialize', (params) => {
  report.record('received initialize', params);
  logging = params.logging;
  log('INFO', 'initialized by vscode-jsonrpc', { who: 'Zoë ✓' });
  return {};
});

conn.onRequest('setupCommand', (params) => {
  report.record('received setupCommand', params);
  args[params.name] = params.args;
  return {};
});

conn.onRequest('runCommand', (params) => {
  report.record('received runCommand', params);
  if (params.name === 'fail') {
    return new rpc.ResponseError(-32000, 'Command failed', 'told to fail: Zoë ✓');
  }
  log('INFO', `hello ${args[params.name].join(' ')}`, { count: args[params.name].length });
  log('info+2', 'greeted'); // a level as Reginald's reader takes it: any case, an offset
  return {};
});

conn.onRequest('validateTask', (params) => {
  report.record('received validateTask', params);
  const text = (params.config || []).find((kv) => kv.key === 'text');
  if (text && String(text.value).includes('bad')) {
    return new rpc.ResponseError(-32050, `echo: text ${JSON.stringify(text.value)} is bad`);
  }
  return {};
});

conn.onRequest('runTask', (params) => {
  report.record('received runTask', params);
  const text = (params.config || []).find((kv) => kv.key === 'text');
  log('WARN', 'echo', { text: text ? text.value : null });
  return {};
});

// vscode-jsonrpc passes a request without params the cancellation token
// as the first argument, so this handler takes no params.
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
