'use strict';
// A Reginald host on vscode-jsonrpc that spawns a plugin (our
// examples/reginald/plugin) and drives it: handshake, the protocol's
// errors, an unknown method, 50 concurrent runTask calls, a task and a
// command with non-ASCII paths, shutdown, a request after shutdown, and the
// exit notification, which must end the plugin with its stdin still open.
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
    const r = await call('handshake', { protocol: 'reginald', protocolVersion: 0 });
    assert(r.protocol === 'reginald' && r.protocolVersion === 0 && r.name === 'reginald-dotfiles', `result: ${JSON.stringify(r)}`);
    return r;
  });
  await report.step('a handshake naming another protocol fails with HandshakeFailed', async () => {
    return expectError(call('handshake', { protocol: 'rpp', protocolVersion: 0 }), -32000);
  });
  await report.step('an unknown method fails with MethodNotFound', async () => {
    return expectError(call('reginald/frobnicate', { really: true }), -32601);
  });
  await report.step('runCommand of an unknown command fails with InvalidCommand', async () => {
    return expectError(call('runCommand', { cmd: 'frobnicate', config: null, pluginConfig: null }), -32001);
  });
  await report.step('50 concurrent runTask calls', async () => {
    const calls = [];
    for (let i = 0; i < 50; i++) {
      // Odd calls give src without dst: the task fails.
      const config = [{ key: 'src', value: path.join(workdir, `src-${i}-${NAME}`), type: 'path' }];
      if (i % 2 === 0) {
        config.push({ key: 'dst', value: path.join(workdir, `dst-${i}`), type: 'path' });
      }
      calls.push(call('runTask', { taskType: 'symlink', config }).then(() => ({ i, ok: true }), (err) => ({ i, ok: false, code: err.code })));
    }
    const results = await Promise.all(calls);
    for (const r of results) {
      if (r.i % 2 === 0) {
        assert(r.ok, `call ${r.i}: ${JSON.stringify(r)}`);
      } else {
        assert(!r.ok && r.code === -32603, `call ${r.i}: want InternalError, got ${JSON.stringify(r)}`);
      }
    }
    return { ok: results.filter((r) => r.ok).length, failed: results.filter((r) => !r.ok).length };
  });
  const src = path.join(workdir, `source ${NAME}`);
  const dst = path.join(workdir, `link ${NAME}`);
  await report.step('runTask links non-ASCII paths', async () => {
    fs.writeFileSync(src, NAME);
    const r = await call('runTask', { taskType: 'symlink', config: [{ key: 'src', value: src, type: 'path' }, { key: 'dst', value: dst, type: 'path' }, { key: 'force', value: false, type: 'bool' }] });
    assert(fs.readlinkSync(dst) === src, `link ${dst} -> ${fs.readlinkSync(dst)}`);
    const rec = await waitLog((l) => l.msg === 'linked' && l.attrs.some((a) => a.key === 'dst' && a.value === dst), 'log "linked"');
    assert(rec.level === 'INFO' && !Number.isNaN(Date.parse(rec.time)), `log: ${JSON.stringify(rec)}`);
    return { result: r, log: rec };
  });
  const missing = path.join(workdir, `missing ${NAME}`);
  await report.step('runCommand status fails with CommandFailed naming a non-ASCII path', async () => {
    const config = [{ key: 'paths', value: [dst, missing], type: 'pathList' }, { key: 'verbose', value: true, type: 'bool' }];
    const pluginConfig = [{ key: 'status', value: config, type: 'configs' }, { key: 'quiet', value: false, type: 'bool' }];
    const e = await expectError(call('runCommand', { cmd: 'status', config, pluginConfig }), -32003);
    assert(e.data === `missing: ${missing}`, `data: ${JSON.stringify(e.data)}`);
    const rec = await waitLog((l) => l.msg === 'missing', 'log "missing"');
    assert(rec.level === 'WARN' && rec.attrs[0].value === missing, `log: ${JSON.stringify(rec)}`);
    return e;
  });
  await report.step('shutdown', async () => {
    const r = await call('shutdown');
    assert(r === true, `result: ${JSON.stringify(r)}`);
    return r;
  });
  await report.step('a request after shutdown fails with MethodNotFound', async () => {
    return expectError(call('runTask', { taskType: 'symlink', config: null }), -32601);
  });
  await report.step('the exit notification ends the plugin', async () => {
    // As Reginald does, wait for the process with its stdin still open
    // (vscode-jsonrpc cannot send params null: it sends [null]; the replay
    // tests of examples/reginald send Reginald's bytes).
    await conn.sendNotification('exit');
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
