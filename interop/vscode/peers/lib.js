'use strict';
// Shared helpers of the Node peers: a vscode-jsonrpc connection whose raw
// traffic is recorded, and a report of named steps that the Go tests read.
const fs = require('fs');
const { Writable } = require('stream');
const rpc = require('vscode-jsonrpc/node');

// connect returns a vscode-jsonrpc MessageConnection reading input and
// writing output through StreamMessageReader/StreamMessageWriter (Content-
// Length framing, UTF-8). Every chunk read or written is appended to
// trafficFile (when set) as a JSON line {"dir":"in"|"out","b64":...}.
function connect(input, output, trafficFile) {
  const record = (dir, chunk) => {
    if (trafficFile) {
      fs.appendFileSync(trafficFile, JSON.stringify({ dir, b64: Buffer.from(chunk).toString('base64') }) + '\n');
    }
  };
  input.on('data', (chunk) => record('in', chunk));
  const tee = new Writable({
    write(chunk, _encoding, callback) {
      record('out', chunk);
      output.write(chunk, callback);
    },
  });
  const logger = {
    error: (m) => process.stderr.write(`[ERROR] vscode-jsonrpc: ${m}\n`),
    warn: (m) => process.stderr.write(`[WARN] vscode-jsonrpc: ${m}\n`),
    info: () => {},
    log: () => {},
  };
  return rpc.createMessageConnection(new rpc.StreamMessageReader(input, 'utf-8'), new rpc.StreamMessageWriter(tee, 'utf-8'), logger);
}

// Report collects the outcome of each named step and writes it as JSON.
class Report {
  constructor(file) {
    this.file = file;
    this.steps = [];
  }

  // step runs fn and records its outcome under name; fn returns what it
  // observed (recorded as "got") or throws.
  async step(name, fn) {
    try {
      const got = await fn();
      this.steps.push({ name, ok: true, got: got === undefined ? null : got });
    } catch (err) {
      this.steps.push({ name, ok: false, error: describe(err) });
    }
  }

  // record notes an observation without a pass/fail outcome of its own.
  record(name, got) {
    this.steps.push({ name, ok: true, got });
  }

  fail(name, error) {
    this.steps.push({ name, ok: false, error });
  }

  write() {
    if (this.file) {
      fs.writeFileSync(this.file, JSON.stringify({ steps: this.steps }, null, 2));
    }
  }
}

// describe turns a thrown value, such as a vscode-jsonrpc ResponseError,
// into text.
function describe(err) {
  if (err instanceof rpc.ResponseError) {
    return `ResponseError code=${err.code} message=${JSON.stringify(err.message)} data=${JSON.stringify(err.data)}`;
  }
  return err && err.stack ? err.stack : String(err);
}

// expectError awaits promise and returns {code, message, data} of the
// ResponseError it must reject with; it throws when the promise resolves
// or the code differs.
async function expectError(promise, code) {
  let result;
  try {
    result = await promise;
  } catch (err) {
    if (!(err instanceof rpc.ResponseError)) {
      throw err;
    }
    if (err.code !== code) {
      throw new Error(`want error code ${code}, got ${describe(err)}`);
    }
    return { code: err.code, message: err.message, data: err.data === undefined ? null : err.data };
  }
  throw new Error(`want error code ${code}, got result ${JSON.stringify(result)}`);
}

function assert(cond, what) {
  if (!cond) {
    throw new Error(what);
  }
}

// withTimeout rejects when promise takes longer than ms.
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

module.exports = { rpc, connect, Report, describe, expectError, assert, withTimeout };
