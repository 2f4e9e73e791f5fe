package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/generated/supex"
)

// errUsage marks a command line that cannot be run.
var errUsage = errors.New("usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// simpleTools are the commands that call a tool without arguments.
var simpleTools = map[string]supex.ToolName{
	"reload":    supex.ToolNameReloadExtension,
	"info":      supex.ToolNameGetModelInfo,
	"selection": supex.ToolNameGetSelection,
	"layers":    supex.ToolNameGetLayers,
	"materials": supex.ToolNameGetMaterials,
	"camera":    supex.ToolNameGetCameraInfo,
	"console":   supex.ToolNameConsoleCaptureStatus,
}

// command runs one command with its argument (possibly empty) and returns
// what to print.
func command(ctx context.Context, c *client, name, arg string) (any, error) {
	rt := supex.NewRuntimeRemote(c)
	if tool, ok := simpleTools[name]; ok {
		if arg != "" {
			return nil, usageError("%s takes no argument", name)
		}
		return c.tool(ctx, tool, nil)
	}
	// optional is the arguments object {key: arg}, or nil without arg.
	optional := func(key string) any {
		if arg == "" {
			return nil
		}
		return map[string]string{key: arg}
	}
	required := func(key string) (any, error) {
		if arg == "" {
			return nil, usageError("%s needs %s", name, strings.ToUpper(key))
		}
		return map[string]string{key: arg}, nil
	}
	switch name {
	case "status":
		ping, err := rt.Ping(ctx)
		if err != nil {
			return nil, fmt.Errorf("ping: %w", err)
		}
		tool, err := c.tool(ctx, supex.ToolNamePing, nil)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		server := c.server
		c.mu.Unlock()
		return map[string]any{"server": server, "ping": ping, "tool": tool}, nil
	case "ping":
		res, err := rt.Ping(ctx)
		if err != nil {
			return nil, fmt.Errorf("ping: %w", err)
		}
		return res, nil
	case "resources":
		res, err := rt.ResourcesList(ctx)
		if err != nil {
			return nil, fmt.Errorf("resources/list: %w", err)
		}
		return res, nil
	case "eval":
		a, err := required("code")
		if err != nil {
			return nil, err
		}
		return c.tool(ctx, supex.ToolNameEvalRuby, a)
	case "eval-file":
		a, err := required("file_path")
		if err != nil {
			return nil, err
		}
		return c.tool(ctx, supex.ToolNameEvalRubyFile, a)
	case "entities":
		return c.tool(ctx, supex.ToolNameListEntities, optional("entity_type"))
	case "screenshot":
		return c.tool(ctx, supex.ToolNameTakeScreenshot, optional("output_path"))
	case "open":
		a, err := required("path")
		if err != nil {
			return nil, err
		}
		return c.tool(ctx, supex.ToolNameOpenModel, a)
	case "save":
		return c.tool(ctx, supex.ToolNameSaveModel, optional("path"))
	case "export":
		return c.tool(ctx, supex.ToolNameExportScene, optional("format"))
	case "batch":
		if arg == "" {
			return nil, usageError("batch needs JSON arguments, such as {\"shots\": [{\"name\": \"top\"}]}")
		}
		return c.tool(ctx, supex.ToolNameTakeBatchScreenshots, json.RawMessage(arg))
	case "tool":
		tool, args, _ := strings.Cut(arg, " ")
		if tool == "" {
			return nil, usageError("tool needs a tool NAME")
		}
		var a any
		if args = strings.TrimSpace(args); args != "" {
			a = json.RawMessage(args)
		}
		return c.tool(ctx, supex.ToolName(tool), a)
	}
	return nil, usageError("unknown command %q (see -h)", name)
}
