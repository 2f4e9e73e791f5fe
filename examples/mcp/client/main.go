// Command client is a reference Model Context Protocol client: it starts
// any MCP server command on stdio, or connects to a server's Streamable
// HTTP endpoint (-url), negotiates revision 2025-11-25 (or an older one the
// server picks), lists what the server offers, optionally calls one tool,
// and answers the server's requests meanwhile (roots, sampling,
// elicitation, tasks, ping).
//
// Results are written to stdout as JSON, one object per line; diagnostics
// and the server's notifications go to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// supportedVersions are the revisions this client speaks, newest first.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"}

// rootList collects the repeated -root flag.
type rootList []string

func (r *rootList) String() string     { return strings.Join(*r, ",") }
func (r *rootList) Set(v string) error { *r = append(*r, v); return nil }

// config is what the flags ask for.
type config struct {
	call, args, sampling, elicit, version string
	read, prompt, promptArgs, url         string
	list, asTask                          bool
	roots                                 rootList
	timeout, samplingDelay                time.Duration
	command                               []string
}

func main() {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags] -- server-command [args...]\n"+
			"       %s [flags] -url http://host:port/mcp\n\n"+
			"Starts an MCP server over stdio, or connects to one over Streamable HTTP (-url;\n"+
			"the session ends with DELETE), initializes the session, lists its tools,\n"+
			"resources and prompts, then reads a resource (-read), gets a prompt (-prompt)\n"+
			"and calls a tool (-call) when asked, answering the server's requests meanwhile.\n"+
			"Results go to stdout as JSON lines; logs and the server's notifications go to\n"+
			"stderr.\n\nFlags:\n", os.Args[0], os.Args[0])
		fs.PrintDefaults()
	}
	var cfg config
	fs.StringVar(&cfg.url, "url", "", "URL of a server's Streamable HTTP endpoint, instead of a server command")
	fs.StringVar(&cfg.call, "call", "", "name of a tool to call")
	fs.StringVar(&cfg.args, "args", "{}", "the tool's arguments, a JSON object")
	fs.StringVar(&cfg.read, "read", "", "URI of a resource to read")
	fs.StringVar(&cfg.prompt, "prompt", "", "name of a prompt to get")
	fs.StringVar(&cfg.promptArgs, "prompt-args", "{}", "the prompt's arguments, a JSON object of strings")
	fs.BoolVar(&cfg.asTask, "task", false, "run the call as a task (tasks/get while it works, then tasks/result, at once when it needs input)")
	fs.BoolVar(&cfg.list, "list", true, "list tools, resources, resource templates and prompts")
	fs.Var(&cfg.roots, "root", "a directory to offer the server as a root (repeatable; default: the working directory)")
	fs.StringVar(&cfg.sampling, "sampling", "echo", "how to answer sampling/createMessage: echo (repeat the prompt) or reject")
	fs.DurationVar(&cfg.samplingDelay, "sampling-delay", 0, "how long the echo model takes to answer")
	fs.StringVar(&cfg.elicit, "elicit", "decline", "how to answer elicitation/create: accept (with the form's defaults), decline or cancel")
	fs.StringVar(&cfg.version, "protocol-version", supportedVersions[0], "the revision to ask for")
	fs.DurationVar(&cfg.timeout, "timeout", time.Minute, "bound on the whole session")
	verbose := fs.Bool("v", false, "log debug details to stderr")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	cfg.command = fs.Args()
	if (len(cfg.command) == 0) == (cfg.url == "") || !slices.Contains([]string{"echo", "reject"}, cfg.sampling) ||
		!slices.Contains([]string{"accept", "decline", "cancel"}, cfg.elicit) {
		fs.Usage()
		os.Exit(2)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := run(cfg, logger); err != nil {
		logger.Error("client failed", "error", err)
		os.Exit(1)
	}
}

// connect spawns the server, or dials its URL.
func connect(ctx context.Context, cfg config, logger *slog.Logger) (io.ReadWriteCloser, error) {
	if cfg.url != "" {
		stream, err := streamhttp.Dial(ctx, cfg.url, mcp.HTTP, streamhttp.ClientOptions{})
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", cfg.url, err)
		}
		return stream, nil
	}
	proc, err := transport.Spawn(exec.Command(cfg.command[0], cfg.command[1:]...), transport.SpawnOptions{Logger: logger.With("from", "server")})
	if err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	return proc, nil
}

// run connects to the server and drives the session.
func run(cfg config, logger *slog.Logger) error {
	roots, err := rootURIs(cfg.roots)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	stream, err := connect(ctx, cfg, logger)
	if err != nil {
		return err
	}
	h := &handler{log: logger, roots: roots, sampling: cfg.sampling, delay: cfg.samplingDelay, elicit: cfg.elicit, tasks: tasks.NewStore(tasks.Limits{})}
	conn, srv := mcp.ConnectClient(stream, h, jsonrpc.Options{Logger: logger})
	defer func() {
		conn.Close()
		h.tasks.Close()
	}()
	out := json.NewEncoder(os.Stdout)
	init, err := initialize(ctx, srv, cfg.version)
	if err != nil {
		return err
	}
	if err := out.Encode(map[string]any{"initialize": init}); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	if cfg.list {
		if err := list(ctx, srv, init.Capabilities, out); err != nil {
			return err
		}
	}
	if cfg.read != "" {
		res, err := srv.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: cfg.read})
		if err != nil {
			return fmt.Errorf("resources/read %s: %w", cfg.read, err)
		}
		if err := out.Encode(map[string]any{"read": res}); err != nil {
			return fmt.Errorf("writing the result: %w", err)
		}
	}
	if cfg.prompt != "" {
		var args map[string]string
		if err := json.Unmarshal([]byte(cfg.promptArgs), &args); err != nil {
			return fmt.Errorf("-prompt-args is not a JSON object of strings: %w", err)
		}
		res, err := srv.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: cfg.prompt, Arguments: args})
		if err != nil {
			return fmt.Errorf("prompts/get %s: %w", cfg.prompt, err)
		}
		if err := out.Encode(map[string]any{"prompt": res}); err != nil {
			return fmt.Errorf("writing the result: %w", err)
		}
	}
	if cfg.call != "" {
		res, err := call(ctx, srv, cfg, logger)
		if err != nil {
			return err
		}
		if err := out.Encode(map[string]any{"call": res}); err != nil {
			return fmt.Errorf("writing the result: %w", err)
		}
	}
	return nil
}

// rootURIs turns directories into file:// URIs.
func rootURIs(dirs []string) ([]mcp.Root, error) {
	if len(dirs) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the working directory: %w", err)
		}
		dirs = []string{wd}
	}
	var roots []mcp.Root
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		roots = append(roots, mcp.Root{URI: "file://" + filepath.ToSlash(abs), Name: filepath.Base(abs)})
	}
	return roots, nil
}

// initialize opens the session and checks the revision the server picked.
func initialize(ctx context.Context, srv mcp.Server, version string) (*mcp.InitializeResult, error) {
	yes := true
	res, err := srv.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: version,
		Capabilities: mcp.ClientCapabilities{
			Roots:       &mcp.ListChangedCapability{ListChanged: yes},
			Sampling:    &mcp.SamplingCapability{},
			Elicitation: &mcp.ElicitationCapability{Form: &mcp.Capability{}, URL: &mcp.Capability{}},
			Tasks: &mcp.ClientTasksCapability{List: &mcp.Capability{}, Cancel: &mcp.Capability{},
				Requests: &mcp.ClientTaskRequests{Sampling: &mcp.ClientTaskSampling{CreateMessage: &mcp.Capability{}}}},
		},
		ClientInfo: mcp.Implementation{Name: "rpcgen-mcp-example-client", Version: "1.0.0"},
	})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		return nil, fmt.Errorf("the server speaks revision %q, which this client does not support", res.ProtocolVersion)
	}
	if err := srv.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return res, nil
}

// list writes every page of what the server offers.
func list(ctx context.Context, srv mcp.Server, caps mcp.ServerCapabilities, out *json.Encoder) error {
	var all = map[string]any{}
	if caps.Tools != nil {
		tools, err := pages(ctx, func(c mcp.Cursor) ([]mcp.Tool, mcp.Cursor, error) {
			r, err := srv.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Tools, r.NextCursor, nil
		})
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		all["tools"] = tools
	}
	if caps.Resources != nil {
		res, err := pages(ctx, func(c mcp.Cursor) ([]mcp.Resource, mcp.Cursor, error) {
			r, err := srv.ListResources(ctx, &mcp.PaginatedRequestParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		templates, err := pages(ctx, func(c mcp.Cursor) ([]mcp.ResourceTemplate, mcp.Cursor, error) {
			r, err := srv.ListResourceTemplates(ctx, &mcp.PaginatedRequestParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		})
		if err != nil {
			return fmt.Errorf("resources/templates/list: %w", err)
		}
		all["resources"], all["resourceTemplates"] = res, templates
	}
	if caps.Prompts != nil {
		prompts, err := pages(ctx, func(c mcp.Cursor) ([]mcp.Prompt, mcp.Cursor, error) {
			r, err := srv.ListPrompts(ctx, &mcp.PaginatedRequestParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
		if err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
		all["prompts"] = prompts
	}
	if err := out.Encode(map[string]any{"list": all}); err != nil {
		return fmt.Errorf("writing the lists: %w", err)
	}
	return nil
}

// pages follows the cursors of a list request to its end.
func pages[T any](ctx context.Context, get func(mcp.Cursor) ([]T, mcp.Cursor, error)) ([]T, error) {
	var all []T
	var cursor mcp.Cursor
	for {
		items, next, err := get(cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next == "" {
			return all, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		cursor = next
	}
}

// call calls the tool, as a task when asked, reporting progress on stderr.
func call(ctx context.Context, srv mcp.Server, cfg config, logger *slog.Logger) (json.RawMessage, error) {
	token := mcp.NewProgressToken("call")
	p := &mcp.CallToolRequestParams{Name: cfg.call, Meta: &mcp.RequestMeta{ProgressToken: token}}
	if err := p.SetArguments(json.RawMessage(cfg.args)); err != nil {
		return nil, fmt.Errorf("-args is not a JSON object: %w", err)
	}
	if cfg.asTask {
		p.Task = &mcp.TaskMetadata{TTL: ptr.To(int64(60000))}
	}
	resp, err := srv.CallTool(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", cfg.call, err)
	}
	if resp.CreateTaskResult == nil {
		return json.Marshal(resp.CallToolResult)
	}
	t := resp.CreateTaskResult.Task
	logger.Info("tool runs as a task", "task", t.TaskID)
	// Poll while the task works. Once it is final, or input_required (it
	// waits for requests only tasks/result delivers), tasks/result gets
	// the outcome, answering those requests meanwhile.
	for t.Status == mcp.TaskStatusWorking {
		wait := 100 * time.Millisecond
		if t.PollInterval != nil && *t.PollInterval > 0 {
			wait = min(time.Duration(*t.PollInterval)*time.Millisecond, 5*time.Second)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		got, err := srv.GetTask(ctx, &mcp.TaskIDParams{TaskID: t.TaskID})
		if err != nil {
			return nil, fmt.Errorf("tasks/get %s: %w", t.TaskID, err)
		}
		t.Status, t.PollInterval = got.Status, got.PollInterval
	}
	if t.Status == mcp.TaskStatusInputRequired {
		logger.Info("task needs input; fetching its result", "task", t.TaskID)
	}
	payload, err := srv.GetTaskPayload(ctx, &mcp.TaskIDParams{TaskID: t.TaskID})
	if err != nil {
		return nil, fmt.Errorf("tasks/result %s: %w", t.TaskID, err)
	}
	return json.Marshal(payload)
}
