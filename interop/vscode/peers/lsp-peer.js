'use strict';
// A bare vscode-jsonrpc peer on stdio for the $/cancelRequest tests, which
// the Go tests drive with a runtime jsonrpc.Conn (Content-Length framing,
// LSP cancellation).
//
// Go -> Node: "slow" notifies "slow/started", then waits for its
// CancellationToken; once cancelled it notifies "slow/cancelled" and
// answers RequestCancelled (-32800).
// Node -> Go: "callGo" {method} makes Node call that method on Go with a
// CancellationTokenSource and answers {} at once; "cancelGo" cancels that
// source, so vscode-jsonrpc sends $/cancelRequest; the outcome of the call
// is reported in a "callGo/done" notification {result} or {code, message}.
// "echo" answers its params, in random order.
// Other requests are left to vscode-jsonrpc, which answers -32601.
const { connect, rpc } = require('./lib');

const conn = connect(process.stdin, process.stdout, process.env.VSCODE_TRAFFIC);
const WAIT = 10000;

conn.onRequest('slow', (params, token) => new Promise((resolve) => {
  const timer = setTimeout(() => resolve(new rpc.ResponseError(-32603, 'slow: not cancelled within 10 s')), WAIT);
  token.onCancellationRequested(() => {
    clearTimeout(timer);
    conn.sendNotification('slow/cancelled', { params });
    resolve(new rpc.ResponseError(-32800, 'cancelled by $/cancelRequest'));
  });
  conn.sendNotification('slow/started', { params });
}));

// "echo" answers its params after a random delay of up to 20 ms, so that
// concurrent calls are answered out of order.
conn.onRequest('echo', (params) => new Promise((resolve) => setTimeout(() => resolve(params), Math.random() * 20)));

let source;
conn.onRequest('callGo', (params) => {
  source = new rpc.CancellationTokenSource();
  conn.sendRequest(params.method, params.params ?? {}, source.token).then(
    (result) => conn.sendNotification('callGo/done', { result }),
    (err) => conn.sendNotification('callGo/done', { code: err.code, message: err.message }),
  );
  return {};
});
conn.onNotification('cancelGo', () => source.cancel());

conn.onClose(() => process.exit(0));
process.stdin.on('end', () => setTimeout(() => process.exit(0), 100));
conn.listen();
