package golang

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestRoleReceivingNothing checks that a role no request or notification
// is sent to gets only its Connect function, which takes no
// implementation, and that the other role's Connect returns no remote for
// it; the names of the helpers it does not get are free for types.
func TestRoleReceivingNothing(t *testing.T) {
	src := header + `types:
  UnimplementedClient: string
  NewClientRemote: string
  NewClientHandler: string
methods:
  ping: {from: client, kind: request}
`
	out := generateAll(t, src)
	for _, want := range []string{
		"func ConnectClient(stream io.ReadWriteCloser, opts jsonrpc.Options) (*jsonrpc.Conn, Server) {",
		"func ConnectServer(stream io.ReadWriteCloser, impl Server, opts jsonrpc.Options) *jsonrpc.Conn {",
		"type Server interface {",
		"func NewServerHandler(impl Server) jsonrpc.Handler {",
		"func NewServerRemote(c jsonrpc.Caller) Server {",
		"type UnimplementedClient string",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the generated package lacks %q", want)
		}
	}
	for _, absent := range []string{
		"type Client interface",
		"UnimplementedClient struct",
		"func NewClientHandler(",
		"func NewClientRemote(",
		"remoteClient",
	} {
		if strings.Contains(out, absent) {
			t.Errorf("the generated package has %q", absent)
		}
	}
}

// TestNeitherRoleReceives checks a protocol without methods: both Connect
// functions return only the connection, and no role has an interface.
func TestNeitherRoleReceives(t *testing.T) {
	out := generateAll(t, header)
	for _, want := range []string{
		"func ConnectClient(stream io.ReadWriteCloser, opts jsonrpc.Options) *jsonrpc.Conn {",
		"func ConnectServer(stream io.ReadWriteCloser, opts jsonrpc.Options) *jsonrpc.Conn {",
		"Neither role receives requests or notifications yet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the generated package lacks %q", want)
		}
	}
	if strings.Contains(out, " interface {") || strings.Contains(out, " interface{}") {
		t.Errorf("the generated package declares an interface:\n%s", out)
	}
}

// generateAll generates the Go package of the IDL src and returns its
// files' contents, concatenated.
func generateAll(t *testing.T, src string) string {
	t.Helper()
	p, err := idl.Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatalf("the IDL does not load: %v", err)
	}
	files, err := Generate(p, Options{})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	var all strings.Builder
	for _, f := range files {
		all.Write(f.Content)
	}
	return all.String()
}
