package main

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// mcpState is the agent's MCP configuration and the editor's tools.
type mcpState struct {
	configs  map[string]autohand.McpServerConfig
	disabled map[string]bool
	vscode   []autohand.McpToolInfo
}

func newMCPState() mcpState {
	return mcpState{
		configs: map[string]autohand.McpServerConfig{
			"filesystem": {Name: "filesystem", Transport: autohand.McpServerConfigTransportStdio, Command: "mcp-filesystem", AutoConnect: true},
		},
		disabled: map[string]bool{},
	}
}

// serverTools are the tools each configured server offers (one per server).
func (m *mcpState) serverTools() []autohand.McpToolInfo {
	var tools []autohand.McpToolInfo
	for _, name := range m.names() {
		if !m.disabled[name] {
			tools = append(tools, autohand.McpToolInfo{Name: name + "_query", Description: "Query " + name, ServerName: name})
		}
	}
	return append(tools, m.vscode...)
}

func (m *mcpState) names() []string {
	names := make([]string, 0, len(m.configs))
	for n := range m.configs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// McpListServers lists the configured servers.
func (a *agent) McpListServers(context.Context) (*autohand.McpListServersResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &autohand.McpListServersResult{Servers: []autohand.McpListServersResultServersItem{}}
	for _, n := range a.mcp.names() {
		st, count := "connected", int64(1)
		if a.mcp.disabled[n] {
			st, count = "disabled", 0
		}
		res.Servers = append(res.Servers, autohand.McpListServersResultServersItem{Name: n, Status: st, ToolCount: count})
	}
	return res, nil
}

// McpListTools lists the tools, of one server or all.
func (a *agent) McpListTools(_ context.Context, p *autohand.McpListToolsParams) (*autohand.McpListToolsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &autohand.McpListToolsResult{Tools: []autohand.McpToolInfo{}}
	for _, t := range a.mcp.serverTools() {
		if p.ServerName == "" || p.ServerName == t.ServerName {
			res.Tools = append(res.Tools, t)
		}
	}
	return res, nil
}

// McpSetVscodeTools takes the editor's tools and announces the new set.
func (a *agent) McpSetVscodeTools(ctx context.Context, p *autohand.McpSetVscodeToolsParams) (*autohand.SuccessResult, error) {
	a.mu.Lock()
	a.mcp.vscode = a.mcp.vscode[:0]
	for _, t := range p.Tools {
		a.mcp.vscode = append(a.mcp.vscode, autohand.McpToolInfo{Name: t.Name, Description: t.Description, ServerName: t.ServerName})
	}
	tools := a.mcp.serverTools()
	a.mu.Unlock()
	a.note(a.client.McpToolsChanged(ctx, &autohand.McpToolsChangedParams{Tools: tools, Timestamp: now()}))
	return &autohand.SuccessResult{Success: true}, nil
}

// callEditorTool calls an editor tool through mcp.invokeRequest and
// returns what to tell the user.
func (a *agent) callEditorTool(ctx context.Context, name string) string {
	a.mu.Lock()
	known := false
	for _, t := range a.mcp.vscode {
		known = known || t.Name == name
	}
	a.mu.Unlock()
	if !known {
		return "The editor offers no tool named " + name + "."
	}
	id, w := a.register("mcp")
	a.note(a.client.McpInvokeRequest(a.ctx, &autohand.McpInvokeRequestParams{
		RequestID: id, ToolName: name, Args: rawArgs("workspace", a.cfg.workspace), Timestamp: now(),
	}))
	ans, err := a.await(ctx, id, w, false)
	switch {
	case err != nil:
		return "The editor tool " + name + " did not answer."
	case !ans.ok:
		return "The editor tool " + name + " failed: " + ans.text
	}
	return "The editor tool " + name + " returned: " + ans.text
}

// McpInvokeResponse returns an editor tool's outcome.
func (a *agent) McpInvokeResponse(_ context.Context, p *autohand.McpInvokeResponseParams) (*autohand.SuccessResult, error) {
	ans := answer{ok: p.Success}
	switch {
	case p.Result != "":
		ans.text = p.Result
	case p.Error != "":
		ans.text = p.Error
	}
	if err := a.deliver(p.RequestID, "mcp", ans); err != nil {
		return nil, err
	}
	return &autohand.SuccessResult{Success: true}, nil
}

// McpGetServerConfigs returns the configuration.
func (a *agent) McpGetServerConfigs(context.Context) (*autohand.McpGetServerConfigsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &autohand.McpGetServerConfigsResult{Configs: []autohand.McpServerConfig{}}
	for _, n := range a.mcp.names() {
		res.Configs = append(res.Configs, a.mcp.configs[n])
	}
	return res, nil
}

// McpToggleServer enables or disables a server.
func (a *agent) McpToggleServer(_ context.Context, p *autohand.McpToggleServerParams) (*autohand.McpToggleServerResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.mcp.configs[p.ServerName]; !ok {
		return nil, jsonrpc.InvalidParams("serverName", "no server "+p.ServerName)
	}
	a.mcp.disabled[p.ServerName] = !p.Enabled
	st := autohand.McpToggleServerResultStatusEnabled
	if !p.Enabled {
		st = autohand.McpToggleServerResultStatusDisabled
	}
	return &autohand.McpToggleServerResult{Success: true, ServerName: p.ServerName, Status: st}, nil
}

// McpReconnectServer reconnects an enabled server.
func (a *agent) McpReconnectServer(_ context.Context, p *autohand.McpReconnectServerParams) (*autohand.McpReconnectServerResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.mcp.configs[p.ServerName]; !ok {
		return nil, jsonrpc.InvalidParams("serverName", "no server "+p.ServerName)
	}
	if a.mcp.disabled[p.ServerName] {
		return &autohand.McpReconnectServerResult{ServerName: p.ServerName, Status: autohand.McpReconnectServerResultStatusDisconnected}, nil
	}
	return &autohand.McpReconnectServerResult{Success: true, ServerName: p.ServerName, Status: autohand.McpReconnectServerResultStatusConnected}, nil
}

// McpSetServers replaces the configuration.
func (a *agent) McpSetServers(_ context.Context, p *autohand.McpSetServersParams) (*autohand.McpSetServersResult, error) {
	configs := map[string]autohand.McpServerConfig{}
	for name, fields := range p.Servers {
		fields["name"], _ = json.Marshal(name)
		if _, ok := fields["transport"]; !ok {
			fields["transport"] = json.RawMessage(`"stdio"`)
		}
		raw, _ := json.Marshal(fields)
		var cfg autohand.McpServerConfig
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, jsonrpc.InvalidParams("servers."+name, err.Error())
		}
		configs[name] = cfg
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mcp.configs = configs
	a.mcp.disabled = map[string]bool{}
	return &autohand.McpSetServersResult{Success: true, ConfiguredServers: a.mcp.names()}, nil
}
