// sdk-client.mjs drives an MCP server with the official MCP TypeScript SDK's
// Client over StdioClientTransport, or over StreamableHTTPClientTransport
// with --url, one step after another, and prints one JSON line per step to
// stdout:
//
//   {"step":"<name>","ok":true,"result":<what the step saw>}
//   {"step":"<name>","ok":false,"error":"<message>","code":<MCP error code>}
//
// A failed step does not stop the run; the Go test that runs this script
// (client_test.go) checks each line. Usage:
//
//   node sdk-client.mjs <server-command> [args...]
//   node sdk-client.mjs --url http://host:port/mcp
//
// The server's stderr goes to this script's stderr. Over HTTP the close
// step ends the session with DELETE (terminateSession) before closing.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const url = argv[0] === "--url" ? argv[1] : undefined;
const [command, ...args] = url ? [] : argv;
if (!command && !url) {
  console.error("usage: node sdk-client.mjs <server-command> [args...] | --url URL");
  process.exit(2);
}

// WAIT bounds every wait of a step, in milliseconds.
const WAIT = 10000;

function emit(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

async function step(name, fn) {
  try {
    const result = await fn();
    emit({ step: name, ok: true, result: result === undefined ? null : result });
  } catch (err) {
    emit({ step: name, ok: false, error: String(err && err.message ? err.message : err), code: err && err.code !== undefined ? err.code : null });
  }
}

// Events: every notification the server sends, in order, with waiters.
const events = [];
const waiters = [];
function record(kind, params) {
  events.push({ kind, params });
  for (const w of waiters.slice()) {
    if (w.match({ kind, params })) {
      waiters.splice(waiters.indexOf(w), 1);
      clearTimeout(w.timer);
      w.resolve({ kind, params });
    }
  }
}
function waitFor(what, match) {
  const seen = events.find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const w = { match, resolve };
    w.timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(w), 1);
      reject(new Error(`no ${what} within ${WAIT} ms`));
    }, WAIT);
    waiters.push(w);
  });
}

const ROOTS = [{ uri: "file:///tmp/mcpts-root", name: "mcpts-root" }];
const serverRequests = [];

const client = new Client(
  { name: "mcpts-sdk-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
);
client.setRequestHandler(ListRootsRequestSchema, async () => {
  serverRequests.push("roots/list");
  return { roots: ROOTS };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  serverRequests.push("sampling/createMessage");
  const last = req.params.messages[req.params.messages.length - 1];
  const text = last && last.content && last.content.type === "text" ? last.content.text : "";
  return { role: "assistant", content: { type: "text", text: `sdk says: ${text}` }, model: "sdk-model", stopReason: "endTurn" };
});
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  serverRequests.push("elicitation/create");
  return { action: "accept", content: { answer: "nö", confident: false } };
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => record("log", n.params));
client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => record("resources/list_changed", n.params));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => record("resources/updated", n.params));
client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => record("tools/list_changed", n.params));
client.setNotificationHandler(PromptListChangedNotificationSchema, (n) => record("prompts/list_changed", n.params));

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
let negotiated = null;
// Over HTTP the transport puts the negotiated revision in a header.
const setVersion = transport.setProtocolVersion && transport.setProtocolVersion.bind(transport);
transport.setProtocolVersion = (v) => {
  negotiated = v;
  if (setVersion) setVersion(v);
};

const opts = { timeout: WAIT };
const textOf = (res) => (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");

await step("initialize", async () => {
  await client.connect(transport, opts);
  return {
    protocolVersion: negotiated,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions(),
  };
});

await step("ping", () => client.ping(opts));

await step("tools/list", async () => (await client.listTools({}, opts)).tools.map((t) => t.name));

await step("tools/call echo", async () => textOf(await client.callTool({ name: "echo", arguments: { text: "héllo, 世界 🌍" } }, undefined, opts)));

await step("tools/call add", async () => {
  const res = await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } }, undefined, opts);
  return { text: textOf(res), structuredContent: res.structuredContent };
});

await step("tools/call unknown", () => client.callTool({ name: "no-such-tool", arguments: {} }, undefined, opts));

await step("tools/call slow with progress", async () => {
  const progress = [];
  const res = await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 10 } }, undefined, {
    ...opts,
    onprogress: (p) => progress.push(p),
  });
  return { text: textOf(res), progress };
});

await step("tools/call slow cancelled", async () => {
  const ac = new AbortController();
  const progress = [];
  let outcome;
  try {
    await client.callTool({ name: "slow", arguments: { steps: 200, delayMs: 20 } }, undefined, {
      ...opts,
      signal: ac.signal,
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 2) ac.abort("mcpts cancels");
      },
    });
    outcome = "completed";
  } catch (err) {
    outcome = `rejected: ${err && err.message ? err.message : err}`;
  }
  // The server says in a log message how far it got before it stopped.
  const log = await waitFor("log message about the cancelled slow call", (e) =>
    e.kind === "log" && typeof e.params.data === "string" && e.params.data.startsWith("slow: cancelled"));
  return { outcome, progressBeforeAbort: progress.length, log: log.params };
});

await step("ping after cancellation", () => client.ping(opts));

await step("resources/list", async () => (await client.listResources({}, opts)).resources);
await step("resources/templates/list", async () => (await client.listResourceTemplates({}, opts)).resourceTemplates);
await step("resources/read text", async () => (await client.readResource({ uri: "example://readme" }, opts)).contents);
await step("resources/read blob", async () => (await client.readResource({ uri: "example://logo.png" }, opts)).contents);
await step("resources/read unknown", () => client.readResource({ uri: "example://missing" }, opts));
await step("resources/subscribe and update", async () => {
  await client.subscribeResource({ uri: "notes://all" }, opts);
  const res = await client.callTool({ name: "add_note", arguments: { text: "from the SDK" } }, undefined, opts);
  const updated = await waitFor("notifications/resources/updated", (e) => e.kind === "resources/updated");
  const changed = await waitFor("notifications/resources/list_changed", (e) => e.kind === "resources/list_changed");
  const read = await client.readResource({ uri: "notes://all" }, opts);
  return { text: textOf(res), updated: updated.params, listChanged: changed.kind, notes: read.contents };
});

await step("prompts/list", async () => (await client.listPrompts({}, opts)).prompts);
await step("prompts/get", async () =>
  (await client.getPrompt({ name: "review", arguments: { code: "x := 1", language: "go" } }, opts)).messages);
await step("completion/complete", async () =>
  (await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "language", value: "j" } }, opts)).completion);

await step("logging/setLevel", () => client.setLoggingLevel("debug", opts));

await step("server asks roots/list", async () => textOf(await client.callTool({ name: "roots", arguments: {} }, undefined, opts)));
await step("server asks sampling/createMessage", async () =>
  textOf(await client.callTool({ name: "sample", arguments: { prompt: "say hi" } }, undefined, opts)));
await step("server asks elicitation/create", async () =>
  textOf(await client.callTool({ name: "ask", arguments: { question: "Ready?" } }, undefined, opts)));
await step("server sends ping", async () => textOf(await client.callTool({ name: "ping_client", arguments: {} }, undefined, opts)));
await step("roots list_changed makes the server ask again", async () => {
  const before = serverRequests.filter((r) => r === "roots/list").length;
  await client.sendRootsListChanged();
  const log = await waitFor("log message about the changed roots", (e) =>
    e.kind === "log" && typeof e.params.data === "string" && e.params.data.startsWith("roots changed"));
  return { rootsRequestsBefore: before, rootsRequestsAfter: serverRequests.filter((r) => r === "roots/list").length, log: log.params.data };
});
await step("tools list_changed", async () => {
  await client.callTool({ name: "toggle_extras", arguments: {} }, undefined, opts);
  await waitFor("notifications/tools/list_changed", (e) => e.kind === "tools/list_changed");
  await waitFor("notifications/prompts/list_changed", (e) => e.kind === "prompts/list_changed");
  return (await client.listTools({}, opts)).tools.map((t) => t.name);
});

await step("server requests answered", async () => serverRequests);

// A task that needs input: ask as a task goes input_required, and the
// SDK's task stream then calls tasks/result, which carries the elicitation.
await step("task input_required", async () => {
  const statuses = [];
  let text = null;
  const before = serverRequests.length;
  const stream = client.experimental.tasks.callToolStream({ name: "ask", arguments: { question: "As a task?" } }, undefined, {
    ...opts,
    task: { ttl: 60000 },
  });
  for await (const m of stream) {
    if (m.type === "taskStatus") statuses.push(m.task.status);
    if (m.type === "result") text = textOf(m.result);
    if (m.type === "error") throw m.error;
  }
  return { statuses, text, requests: serverRequests.slice(before) };
});

await step("close", async () => {
  if (!url) {
    await client.close();
    return null;
  }
  const session = transport.sessionId;
  await transport.terminateSession();
  await client.close();
  return { session, after: transport.sessionId === undefined ? null : transport.sessionId };
});
