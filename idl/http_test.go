package idl

import (
	"reflect"
	"testing"
)

// TestHTTPTransport: an http transport keeps its path, port and headers,
// the handshake names the member of its result holding the negotiated
// version (through extends), and batches: {versions: ...} lists the
// versions that accept batches.
func TestHTTPTransport(t *testing.T) {
	src := `protocol:
  name: demo
  roles: {client: , server: }
  framing: ndjson
  transports:
    - stdio
    - {kind: http, path: /rpc, port: 8080, session_header: Rpc-Session, version_header: Rpc-Version, default_version: "1.0", doc: One endpoint.}
  handshake: {method: open, version_field: version}
  batches: {versions: ["1.0", "1.1"]}
types:
  Base: {fields: {version: "'1.0' | '1.1' | '2.0'"}}
methods:
  open:
    from: client
    kind: request
    result: {extends: Base, fields: {name: string}}
`
	p, err := Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Transport{Kind: TransportHTTP, Path: "/rpc", Port: 8080, SessionHeader: "Rpc-Session", VersionHeader: "Rpc-Version", DefaultVersion: "1.0", Doc: "One endpoint.", Pos: p.Transports[1].Pos}
	if len(p.Transports) != 2 || !reflect.DeepEqual(p.Transports[1], want) {
		t.Errorf("transports %+v, want stdio and %+v", p.Transports, want)
	}
	if p.Handshake == nil || p.Handshake.Name != "open" || p.VersionField != "version" {
		t.Errorf("handshake %v, version field %q; want open, version", p.Handshake, p.VersionField)
	}
	if want := []string{"1.0", "1.1"}; !reflect.DeepEqual(p.BatchVersions, want) || p.NoBatches {
		t.Errorf("BatchVersions %q, NoBatches %v; want %q, false", p.BatchVersions, p.NoBatches, want)
	}

	// The least an http transport needs: a path.
	src = `protocol:
  name: demo
  roles: {client: , server: }
  framing: ndjson
  transports: [{kind: http, path: /}]
`
	p, err = Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if tr := p.Transports[0]; tr.Path != "/" || tr.Port != 0 || tr.SessionHeader != "" || p.VersionField != "" || p.BatchVersions != nil {
		t.Errorf("minimal http transport %+v", tr)
	}
}
