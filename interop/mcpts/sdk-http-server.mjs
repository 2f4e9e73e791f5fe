// sdk-http-server.mjs serves MCP over Streamable HTTP with the official MCP
// TypeScript SDK: its low-level Server behind StreamableHTTPServerTransport,
// one of each per session, at http://127.0.0.1:PORT/mcp (PORT chosen by the
// system). It prints "listening on <url>" to stderr once it listens, and
// one JSON line per session event to stdout:
//
//   {"event":"initialized","session":"<id>"}
//   {"event":"closed","session":"<id>"}       (the client's DELETE, or shutdown)
//
// Tools: echo {text}; slow {steps} reports progress on the caller's token;
// sample {prompt} asks the client for sampling/createMessage on the call's
// own stream; ask {question}, a task (the SDK's experimental task store and
// message queue), asks the client for elicitation/create, which the SDK
// queues, moving the task to input_required, until the client calls
// tasks/result. It stops on SIGTERM or SIGINT. Usage: node sdk-http-server.mjs

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

function emit(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

const TOOLS = [
  { name: "echo", description: "Returns its text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  { name: "slow", description: "Counts steps, reporting progress.", inputSchema: { type: "object", properties: { steps: { type: "integer" } } } },
  { name: "sample", description: "Asks the client's model.", inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] } },
  {
    name: "ask",
    description: "Asks the user, as a task.",
    inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
    execution: { taskSupport: "required" },
  },
];

// askAsTask runs the ask tool's task: its elicitation is queued for the
// client's tasks/result, then the answer becomes the task's result.
async function askAsTask(extra, taskId, question) {
  try {
    const answer = await extra.sendRequest(
      {
        method: "elicitation/create",
        params: { message: question, requestedSchema: { type: "object", properties: { answer: { type: "string", default: "yes" } } } },
      },
      ElicitResultSchema,
      { relatedTask: { taskId } },
    );
    await extra.taskStore.updateTaskStatus(taskId, "working");
    const said = answer.action === "accept" ? String(answer.content && answer.content.answer) : answer.action;
    await extra.taskStore.storeTaskResult(taskId, "completed", text(`the user said ${said}`));
  } catch (err) {
    await extra.taskStore.storeTaskResult(taskId, "failed", { ...text(String(err)), isError: true });
  }
}

const text = (t) => ({ content: [{ type: "text", text: t }] });

// newServer returns the MCP server of one session.
function newServer() {
  const server = new Server(
    { name: "mcpts-sdk-http-server", version: "1.0.0" },
    {
      capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
      taskStore: new InMemoryTaskStore(),
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = req.params.arguments || {};
    switch (req.params.name) {
      case "echo":
        return text(String(args.text));
      case "slow": {
        const steps = Number(args.steps || 3);
        const token = req.params._meta && req.params._meta.progressToken;
        for (let i = 1; i <= steps; i++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (token !== undefined) {
            await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
          }
        }
        return text(`done after ${steps} steps`);
      }
      case "sample": {
        const res = await extra.sendRequest(
          { method: "sampling/createMessage", params: { maxTokens: 20, messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }] } },
          CreateMessageResultSchema,
        );
        return text(`${res.model} said ${res.content.type === "text" ? res.content.text : "?"}`);
      }
      case "ask": {
        if (!req.params.task) return { ...text("ask runs only as a task"), isError: true };
        const task = await extra.taskStore.createTask({ ttl: req.params.task.ttl, pollInterval: 50 });
        askAsTask(extra, task.taskId, String(args.question));
        return { task };
      }
    }
    return { ...text(`unknown tool ${req.params.name}`), isError: true };
  });
  return server;
}

// The transports of the live sessions, by session id.
const transports = new Map();

async function handle(req, res) {
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  const id = req.headers["mcp-session-id"];
  let transport = id ? transports.get(id) : undefined;
  if (!transport) {
    if (id || req.method !== "POST") {
      res.writeHead(id ? 404 : 400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no such session" }, id: null }));
      return;
    }
    const server = newServer();
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        transports.set(sid, transport);
        emit({ event: "initialized", session: sid });
      },
    });
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && transports.delete(sid)) emit({ event: "closed", session: sid });
    };
    await server.connect(transport);
  }
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error("sdk-http-server:", err);
    if (!res.headersSent) res.writeHead(500).end();
  });
});

async function stop() {
  for (const t of [...transports.values()]) await t.close();
  http.close(() => process.exit(0));
  http.closeAllConnections();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

http.listen(0, "127.0.0.1", () => {
  const { port } = http.address();
  console.error(`listening on http://127.0.0.1:${port}/mcp`);
});
