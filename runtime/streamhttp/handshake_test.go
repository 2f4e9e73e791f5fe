package streamhttp

import (
	"context"
	"encoding/json"
	"testing"
)

// handshakeOracle reads msg as the two sides read the handshake's answer
// before: with encoding/json into maps (members by exact name).
func handshakeOracle(msg []byte, field string) (failed, object bool, version string, has bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m == nil {
		return true, false, "", false
	}
	result := m["result"]
	_, failed = m["error"]
	if result != nil && result[0] != '{' && string(result) != "null" {
		failed = true
	}
	var r map[string]json.RawMessage
	if result == nil || json.Unmarshal(result, &r) != nil || r == nil {
		return failed, false, "", false
	}
	raw, ok := r[field]
	if field == "" || !ok || raw[0] != '"' {
		return failed, true, "", false
	}
	if json.Unmarshal(raw, &version) != nil {
		return failed, true, "", false
	}
	return failed, true, version, true
}

var handshakeCases = []string{
	`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
	`{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"x":{"protocolVersion":"no"}},"protocolVersion":"v\u00e9"}}`,
	`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`,
	`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":null}}`,
	`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"a","protocolVersion":"b"}}`,
	`{"jsonrpc":"2.0","id":0,"result":{}}`,
	`{"jsonrpc":"2.0","id":0,"result":null}`,
	`{"jsonrpc":"2.0","id":0,"result":"2025-11-25"}`,
	`{"jsonrpc":"2.0","id":0,"result":[{"protocolVersion":"x"}]}`,
	`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"bad"}}`,
	`{"jsonrpc":"2.0","id":0,"error":null,"result":{"protocolVersion":"x"}}`,
	`{"jsonrpc":"2.0","id":0}`,
	` { "result" : { "protocolVersion" : "spaced" } } `,
	`{"result":{"protocol\u0056ersion":"escaped key"}}`,
	`[{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"x"}}]`,
	`"not an object"`,
	`null`,
}

// TestHandshakeReading: the in-place reading of the handshake's answer
// agrees with encoding/json's on each case, for the server's verdict and
// the result's version.
func TestHandshakeReading(t *testing.T) {
	for _, c := range handshakeCases {
		checkHandshakeReading(t, []byte(c), "protocolVersion")
		checkHandshakeReading(t, []byte(c), "")
	}
}

func checkHandshakeReading(t *testing.T, msg []byte, field string) {
	t.Helper()
	wantFailed, wantObject, wantVersion, wantHas := handshakeOracle(msg, field)
	failed, result := handshakeFailed(msg)
	object, version, has := resultVersion(result, field)
	if failed != wantFailed || object != wantObject || version != wantVersion || has != wantHas {
		t.Errorf("%s (field %q): failed %v, object %v, version %q (%v); want %v, %v, %q (%v)",
			msg, field, failed, object, version, has, wantFailed, wantObject, wantVersion, wantHas)
	}
}

// FuzzHandshakeReading checks the in-place reading against encoding/json
// on any valid JSON.
func FuzzHandshakeReading(f *testing.F) {
	for _, c := range handshakeCases {
		f.Add([]byte(c), "protocolVersion")
	}
	f.Fuzz(func(t *testing.T, msg []byte, field string) {
		if !json.Valid(msg) {
			return
		}
		checkHandshakeReading(t, msg, field)
	})
}

// TestHandshakeAllocations: each side reads the handshake's answer with
// one allocation, the version string (about 20 each with encoding/json).
func TestHandshakeAllocations(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"bench","version":"1.0.0"}}}` + "\n")
	h := NewHandler(testProto, func(*Session) {}, ServerOptions{})
	defer h.Close()
	s := newSession(h, "s1")
	server := testing.AllocsPerRun(100, func() { s.noteHandshake(msg) })
	if s.failed || s.version != "2025-11-25" {
		t.Fatalf("server: failed %v, version %q", s.failed, s.version)
	}
	c, err := Dial(context.Background(), "http://127.0.0.1:1/mcp", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := json.RawMessage("0")
	client := testing.AllocsPerRun(100, func() {
		c.handshakeID = id
		c.noteAnswer(id, msg)
	})
	if !c.handshook || c.version != "2025-11-25" {
		t.Fatalf("client: handshook %v, version %q", c.handshook, c.version)
	}
	if server > 1 || client > 1 {
		t.Errorf("reading the handshake's answer: %v allocations on the server, %v on the client, want at most 1", server, client)
	}
}
