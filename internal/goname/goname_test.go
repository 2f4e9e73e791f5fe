package goname

import (
	"reflect"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"getMessage", []string{"get", "Message"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"utf8Name", []string{"utf8", "Name"}},
		{"snake_case-and-kebab", []string{"snake", "case", "and", "kebab"}},
		{"$/cancelRequest", []string{"cancel", "Request"}},
		{"ID", []string{"ID"}},
		{"", nil},
		{"--", nil},
		{"café", []string{"caf"}},
	}
	for _, tt := range tests {
		if got := Words(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExported(t *testing.T) {
	tests := []struct{ in, want string }{
		{"editor/getMessage", "EditorGetMessage"},
		{"tools/call", "ToolsCall"},
		{"notifications/cancelled", "NotificationsCancelled"},
		{"$/cancelRequest", "CancelRequest"},
		{"session_id", "SessionID"},
		{"sessionId", "SessionID"},
		{"mime-type", "MimeType"},
		{"mimeType", "MimeType"},
		{"uri", "URI"},
		{"baseUrl", "BaseURL"},
		{"jsonrpc", "Jsonrpc"},
		{"json_rpc", "JSONRPC"},
		{"http_api_url", "HTTPAPIURL"},
		{"ids", "IDs"},
		{"userIds", "UserIDs"},
		{"https", "HTTPS"},
		{"LSPAny", "LSPAny"},
		{"ui/openWindow", "UIOpenWindow"},
		{"waiting_permission", "WaitingPermission"},
		{"image/png", "ImagePng"},
		{"RUNNING", "Running"},
		{"2025-11-25", "N2025_11_25"},
		{"3d", "N3d"},
		{"v2", "V2"},
		{"type", "Type"},
		{"über", "Ber"},
		{"a b", "AB"},
		{"", ""},
		{"$/", ""},
		{"_meta", "Meta"},
		{"XMLHttpRequest", "XMLHTTPRequest"},
	}
	for _, tt := range tests {
		if got := Exported(tt.in); got != tt.want {
			t.Errorf("Exported(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnexported(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SessionID", "sessionID"},
		{"URL", "url"},
		{"URLPath", "urlPath"},
		{"type", "type_"},
		{"func", "func_"},
		{"2d", "n2d"},
		{"params", "params"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Unexported(tt.in); got != tt.want {
			t.Errorf("Unexported(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMethod(t *testing.T) {
	tests := []struct{ wire, proto, want string }{
		{"autohand.prompt", "autohand", "Prompt"},
		{"autohand.hook.preTool", "autohand", "HookPreTool"},
		{"autohand", "autohand", "Autohand"},
		{"editor/getMessage", "hermes", "EditorGetMessage"},
		{"$/cancelRequest", "lsp", "CancelRequest"},
		{"tools/call", "mcp", "ToolsCall"},
		{"notifications/cancelled", "mcp", "NotificationsCancelled"},
		{"hermes-extension/ping", "hermes-extension", "Ping"},
		{"hermes/ping", "hermes-extension", "HermesPing"},
		{"Autohand.Prompt", "autohand", "Prompt"},
		{"autohandx.prompt", "autohand", "AutohandxPrompt"},
		{"initialize", "hermes", "Initialize"},
	}
	for _, tt := range tests {
		if got := Method(tt.wire, tt.proto); got != tt.want {
			t.Errorf("Method(%q, %q) = %q, want %q", tt.wire, tt.proto, got, tt.want)
		}
	}
}

func TestPackage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hermes-extension", "hermesextension"},
		{"MCP", "mcp"},
		{"2fa", "p2fa"},
		{"func", "funcpkg"},
	}
	for _, tt := range tests {
		if got := Package(tt.in); got != tt.want {
			t.Errorf("Package(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	for s, want := range map[string]bool{"Foo": true, "foo": false, "Foo_1": true, "1Foo": false, "": false, "Fo-o": false} {
		if got := IsExported(s); got != want {
			t.Errorf("IsExported(%q) = %v", s, got)
		}
	}
	for s, want := range map[string]bool{"foo": true, "type": false, "_x": true, "x y": false} {
		if got := IsIdentifier(s); got != want {
			t.Errorf("IsIdentifier(%q) = %v", s, got)
		}
	}
	if !IsInitialism("url") || IsInitialism("foo") {
		t.Error("IsInitialism")
	}
}
