// Command driver is a command-line Supex driver: it connects to a Supex
// runtime over TCP, says hello, and runs one command, or, with "shell",
// one command per line of standard input over the same connection
// (connecting again when it was idle too long or failed). Results are
// printed as JSON on stdout; logs go to stderr.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

const usage = `usage: driver [flags] command [argument]

Commands:
  status              hello, ping and the ping tool
  ping                the ping method
  resources           resources/list
  eval CODE           eval_ruby
  eval-file PATH      eval_ruby_file
  reload              reload_extension
  info                get_model_info
  entities [TYPE]     list_entities (all, faces, edges, groups, components)
  selection           get_selection
  layers              get_layers
  materials           get_materials
  camera              get_camera_info
  screenshot [PATH]   take_screenshot
  batch JSON          take_batch_screenshots with JSON arguments
  open PATH           open_model
  save [PATH]         save_model
  export [FORMAT]     export_scene (skp, obj, stl, png, jpg)
  console             console_capture_status
  tool NAME [JSON]    any tool, with JSON arguments
  shell               read commands from stdin, one per line; errors are
                      printed as {"error": ...} and the exit status is 1
                      if any command failed

Environment (flags override): SUPEX_HOST, SUPEX_PORT, SUPEX_TIMEOUT (seconds),
SUPEX_RETRIES, SUPEX_IDLE_TIMEOUT (seconds), SUPEX_MAX_RESPONSE (bytes),
SUPEX_AUTH_TOKEN, SUPEX_AGENT, SUPEX_WORKSPACE, SUPEX_VERBOSE=1, SUPEX_REUSE=1.

Upstream's runtime closes the connection after every request but hello,
so the driver connects (and says hello) for each request; -reuse keeps one
connection for a runtime that does not close it.

Errors name their kind (tool_failed, path_denied, unknown_tool, ...) from
the codes the protocol documents or, for the -32603 upstream's runtime
sends for every tool failure, from its message.

Flags:
`

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// seconds reads a duration in seconds from the environment.
func seconds(name string, def float64) time.Duration {
	v, err := strconv.ParseFloat(env(name, ""), 64)
	if err != nil {
		v = def
	}
	return time.Duration(v * float64(time.Second))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("driver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	host := fs.String("host", env("SUPEX_HOST", "localhost"), "runtime `host`")
	port := fs.String("port", env("SUPEX_PORT", "9876"), "runtime `port`")
	timeout := fs.Duration("timeout", seconds("SUPEX_TIMEOUT", 0), "per-request timeout (0: the protocol's 15s)")
	retries := fs.Int("retries", envInt("SUPEX_RETRIES", 2), "extra attempts to connect")
	idle := fs.Duration("idle", seconds("SUPEX_IDLE_TIMEOUT", 300), "reconnect after the connection sat unused this long")
	reuse := fs.Bool("reuse", os.Getenv("SUPEX_REUSE") == "1", "keep the connection across requests (the runtime must not close it after each answer)")
	maxResp := fs.Int("max-response", envInt("SUPEX_MAX_RESPONSE", 10<<20), "largest answer accepted, in `bytes` (a larger one is dropped and the call times out)")
	token := fs.String("token", os.Getenv("SUPEX_AUTH_TOKEN"), "authentication `token` sent in hello")
	agent := fs.String("agent", env("SUPEX_AGENT", "user"), "agent name sent in hello")
	workspace := fs.String("workspace", os.Getenv("SUPEX_WORKSPACE"), "workspace `directory` sent in hello")
	raw := fs.Bool("raw", false, "print compact JSON")
	verbose := fs.Bool("v", os.Getenv("SUPEX_VERBOSE") == "1", "log debug messages")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	c := newClient(config{
		addr: addr(*host, *port), timeout: *timeout, retries: *retries, idle: *idle, reuse: *reuse, maxResp: *maxResp,
		token: *token, agent: *agent, workspace: *workspace,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	defer c.Close()
	ctx := context.Background()
	out := printer{w: stdout, raw: *raw}

	if fs.Arg(0) == "shell" {
		return shell(ctx, c, stdin, out)
	}
	res, err := command(ctx, c, fs.Arg(0), strings.Join(fs.Args()[1:], " "))
	if errors.Is(err, errUsage) {
		fmt.Fprintln(stderr, "driver:", err)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "driver: %s: %v\n", errorKind(err), err)
		return 1
	}
	out.print(res)
	return 0
}

func envInt(name string, def int) int {
	v, err := strconv.Atoi(env(name, ""))
	if err != nil {
		return def
	}
	return v
}

// shell runs one command per input line over the client's connection.
func shell(ctx context.Context, c *client, in io.Reader, out printer) int {
	status := 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, arg, _ := strings.Cut(line, " ")
		res, err := command(ctx, c, name, strings.TrimSpace(arg))
		if err != nil {
			status = 1
			res = errorJSON(err)
		}
		out.print(res)
	}
	if err := sc.Err(); err != nil {
		out.print(errorJSON(fmt.Errorf("reading commands: %w", err)))
		return 1
	}
	return status
}

// printer prints results as JSON.
type printer struct {
	w   io.Writer
	raw bool
}

func (p printer) print(v any) {
	var b []byte
	var err error
	if p.raw {
		b, err = json.Marshal(v)
	} else {
		b, err = json.MarshalIndent(v, "", "  ")
	}
	if err != nil {
		b = []byte(strconv.Quote(err.Error()))
	}
	fmt.Fprintf(p.w, "%s\n", b)
}
