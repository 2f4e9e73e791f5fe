'use strict';
// A Reginald host on vscode-jsonrpc that spawns a plugin (our
// examples/reginald/plugin) and drives it: handshake, initialize with debug
// logging, 50 concurrent validateTask calls, IDL errors, an unknown method,
// a task and a command with non-ASCII paths, shutdown, a request after
// shutdown, and the exit notification.
//
// Usage: node reginald-host.js REPORT TRAFFIC WORKDIR PLUGIN [ARGS...]
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { connect, Report, expectError, assert, withTimeout } = require('./lib');

const [report_, traffic, workdir, ...command] = process.argv.slice(2);
const report = new Report(report_);
const WAIT = 10000;

const child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
const conn = connect(child.stdout, child.stdin, traffic);
const logs = [];
let onLog = () => {};
conn.onNotification('log', (params) => {
  report.record('received log', params);
  logs.push(params);
  onLog();
});

// waitLog waits until a log record matching pred has arrived.
function waitLog(pred, what) {
  return withTimeout(new Promise((resolve) => {
    const check = () => {
      const found = logs.find(pred);
      if (found) {
        resolve(found);
      }
    };
    onLog = check;
    check();
  }), WAIT, what);
}

// call sends a request; without params it passes none to sendRequest, which
// would otherwise send an explicit undefined as "params":[null].
const call = (method, params) => withTimeout(params === undefined ? conn.sendRequest(method) : conn.sendRequest(method, params), WAIT, method);
const NAME = 'Zoë ✓';

async function main() {
  conn.listen();
  await report.step('handshake', async () => {
    const r = await call('handshake', { protocol: 'rpp', protocolVersion: 0 });
    assert(r.protocol === 'rpp' && r.protocolVersion === 0 && r.name === 'dotfiles', `result: ${JSON.stringify(r)}`);
    return r;
  });
  await report.step('initialize with debug logging', async () => {
    const r = await call('initialize', { config: [{ key: 'dry-run', value: false, type: 'bool' }], logging: { enabled: true, level: 'DEBUG' } });
    assert(JSON.stringify(r) === '{}', `result: ${JSON.stringify(r)}`);
    const rec = await waitLog((l) => l.msg === 'initialized', 'log "initialized"');
    return { result: r, log: rec };
  });
  await report.step('an unknown method fails with MethodNotFound', async () => {
    return expectError(call('reginald/frobnicate', { really: true }), -32601);
  });
  await report.step('setupCommand of an unknown command fails with InvalidParams', async () => {
    return expectError(call('setupCommand', { name: 'frobnicate', args: [] }), -32602);
  });
  await report.step('50 concurrent validateTask calls', async () => {
    const calls = [];
    for (let i = 0; i < 50; i++) {
      // Odd calls give src without dst: InvalidConfig.
      const config = [{ key: 'src', value: `src-${i}-${NAME}`, type: 'string' }];
      if (i % 2 === 0) {
        config.push({ key: 'dst', value: `dst-${i}`, type: 'string' });
      }
      calls.push(call('validateTask', { type: 'link', config }).then(() => ({ i, ok: true }), (err) => ({ i, ok: false, code: err.code })));
    }
    const results = await Promise.all(calls);
    for (const r of results) {
      if (r.i % 2 === 0) {
        assert(r.ok, `call ${r.i}: ${JSON.stringify(r)}`);
      } else {
        assert(!r.ok && r.code === -32050, `call ${r.i}: want InvalidConfig, got ${JSON.stringify(r)}`);
      }
    }
    return { ok: results.filter((r) => r.ok).length, invalidConfig: results.filter((r) => !r.ok).length };
  });
  const src = path.join(workdir, `source ${NAME}`);
  const dst = path.join(workdir, `link ${NAME}`);
  await report.step('runTask links non-ASCII paths', async () => {
    fs.writeFileSync(src, NAME);
    const r = await call('runTask', { type: 'link', dir: workdir, config: [{ key: 'src', value: src, type: 'string' }, { key: 'dst', value: dst, type: 'string' }, { key: 'force', value: false, type: 'bool' }] });
    assert(fs.readlinkSync(dst) === src, `link ${dst} -> ${fs.readlinkSync(dst)}`);
    const rec = await waitLog((l) => l.msg === 'linked', 'log "linked"');
    assert(rec.fields.dst === dst, `log: ${JSON.stringify(rec)}`);
    return { result: r, log: rec };
  });
  const missing = path.join(workdir, `missing ${NAME}`);
  await report.step('runCommand status fails with CommandFailed naming a non-ASCII path', async () => {
    await call('setupCommand', { name: 'status', args: [dst, missing], config: [{ key: 'verbose', value: true, type: 'bool' }] });
    const e = await expectError(call('runCommand', { name: 'status' }), -32000);
    assert(e.data === `missing: ${missing}`, `data: ${JSON.stringify(e.data)}`);
    const rec = await waitLog((l) => l.msg === 'missing', 'log "missing"');
    assert(rec.level === 'WARN' && rec.fields.path === missing, `log: ${JSON.stringify(rec)}`);
    return e;
  });
  await report.step('shutdown', async () => {
    const r = await call('shutdown');
    assert(r === true, `result: ${JSON.stringify(r)}`);
    return r;
  });
  await report.step('a request after shutdown fails with InvalidRequest', async () => {
    return expectError(call('validateTask', { type: 'link' }), -32600);
  });
  await report.step('the exit notification ends the plugin', async () => {
    await conn.sendNotification('exit');
    // Our plugin only leaves once its stdin ends too (see README, bugs):
    // close it, as a host ending the session does.
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
