package golang

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestHTTPProtocol: an http transport becomes var HTTP, a
// streamhttp.Protocol holding the path, the handshake, the headers, the
// handshake's version field and the default version; runtime/streamhttp is
// imported only then, and a protocol without sessions says so.
func TestHTTPProtocol(t *testing.T) {
	const head = "protocol:\n  name: demo\n  roles: {client: , server: }\n  framing: ndjson\n"
	const open = "methods:\n  open: {from: client, kind: request, result: {fields: {v: string}}}\n"
	for _, tc := range []struct {
		name, src string
		want      []string // in protocol.go; nil: no HTTP at all
	}{
		{"none", head + "  transports: [stdio]\n" + open, nil},
		{"sessions and versions", head + "  handshake: {method: open, version_field: v}\n  transports:\n    - {kind: http, path: /rpc, port: 8080, session_header: Rpc-Session, version_header: Rpc-Version, default_version: \"1\"}\n" + open, []string{
			"\t\"github.com/rpcgen/rpcgen/runtime/streamhttp\"\n",
			"var HTTP = streamhttp.Protocol{\n\tPath:           \"/rpc\",\n\tHandshake:      MethodOpen,\n\tSessionHeader:  \"Rpc-Session\",\n\tVersionHeader:  \"Rpc-Version\",\n\tVersionField:   \"v\",\n\tDefaultVersion: \"1\",\n}\n",
			"whose id every later request carries in the Rpc-Session header",
			"DefaultHTTPAddress = \"localhost:8080\"",
			"\t\topts.VersionField = \"v\"\n",
		}},
		{"stateless", head + "  transports: [{kind: http, path: /}]\n" + open, []string{
			"var HTTP = streamhttp.Protocol{\n\tPath: \"/\",\n}\n",
			"There are no sessions:",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := idl.Parse("demo.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			files, err := Generate(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var src string
			for _, f := range files {
				if strings.Contains(string(f.Content), "streamhttp") && !strings.HasSuffix(f.Path, "protocol.go") {
					t.Errorf("%s mentions streamhttp", f.Path)
				}
				if strings.HasSuffix(f.Path, "protocol.go") {
					src = string(f.Content)
				}
			}
			if tc.want == nil {
				for _, no := range []string{"streamhttp", "HTTP", "DefaultHTTPAddress"} {
					if strings.Contains(src, no) {
						t.Errorf("protocol.go mentions %s without an http transport", no)
					}
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(src, w) {
					t.Errorf("protocol.go lacks %q:\n%s", w, src)
				}
			}
		})
	}
}
