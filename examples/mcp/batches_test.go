package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// revisionServer answers initialize with the revision the client asks for,
// as a server that supports it does, and ping.
type revisionServer struct{ mcp.UnimplementedServer }

func (revisionServer) Initialize(_ context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ProtocolVersion: p.ProtocolVersion, ServerInfo: mcp.Implementation{Name: "s", Version: "1"}}, nil
}

func (revisionServer) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// TestBatchesByRevision: JSON-RPC batches were part of MCP revision
// 2025-03-26 only, so a server built on the generated package handles a
// batch once initialize has negotiated 2025-03-26, and answers one with a
// single -32600 once it has negotiated 2025-11-25.
func TestBatchesByRevision(t *testing.T) {
	for _, tc := range []struct {
		revision, want string
	}{
		{"2025-03-26", `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"protocol version 2025-11-25 does not accept batches; send each message on its own"}}`},
	} {
		t.Run(tc.revision, func(t *testing.T) {
			var conn *jsonrpc.Conn
			sp := wireConn(t, func(c net.Conn) *jsonrpc.Conn {
				conn, _ = mcp.ConnectServer(c, revisionServer{}, jsonrpc.Options{})
				return conn
			})
			sp.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+tc.revision+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			if m := sp.receive(t); m.Error != nil {
				t.Fatalf("initialize answered %v", m.Error)
			}
			if v := conn.ProtocolVersion(); v != tc.revision {
				t.Fatalf("ProtocolVersion = %q, want %s", v, tc.revision)
			}
			sp.send(t, `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
			line, err := sp.r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, line, tc.want) {
				t.Errorf("batch answered %s, want %s", line, tc.want)
			}
		})
	}
}

// TestClientBatchesByRevision: a client built on the generated package
// sends a batch only once initialize has negotiated 2025-03-26.
func TestClientBatchesByRevision(t *testing.T) {
	for _, revision := range []string{"2025-03-26", "2025-11-25"} {
		t.Run(revision, func(t *testing.T) {
			ours, theirs := net.Pipe()
			srv, _ := mcp.ConnectServer(theirs, revisionServer{}, jsonrpc.Options{})
			conn, server := mcp.ConnectClient(ours, mcp.UnimplementedClient{}, jsonrpc.Options{})
			t.Cleanup(func() {
				_ = conn.Close()
				_ = srv.Close()
			})
			ping := []*jsonrpc.BatchCall{{Method: mcp.MethodPing, Result: new(mcp.EmptyResult)}}
			if err := conn.Batch(context.Background(), ping); !errors.Is(err, jsonrpc.ErrBatchesRejected) {
				t.Fatalf("Batch before initialize = %v, want ErrBatchesRejected", err)
			}
			if _, err := server.Initialize(context.Background(), &mcp.InitializeRequestParams{ProtocolVersion: revision, ClientInfo: mcp.Implementation{Name: "c", Version: "1"}}); err != nil {
				t.Fatal(err)
			}
			err := conn.Batch(context.Background(), ping)
			switch {
			case revision == "2025-03-26" && (err != nil || ping[0].Err != nil):
				t.Errorf("Batch = %v, element %v; want both nil", err, ping[0].Err)
			case revision != "2025-03-26" && (!errors.Is(err, jsonrpc.ErrBatchesRejected) || !strings.Contains(err.Error(), revision)):
				t.Errorf("Batch = %v, want ErrBatchesRejected naming %s", err, revision)
			}
		})
	}
}

// sameJSON reports whether got and want hold the same JSON value, the
// elements of a batch's answer in any order.
func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	return canonical(t, got) == canonical(t, []byte(want))
}

// canonical re-encodes a JSON value, sorting the elements of an array.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	elems, ok := v.([]any)
	if !ok {
		out, _ := json.Marshal(v)
		return string(out)
	}
	var parts []string
	for _, e := range elems {
		out, _ := json.Marshal(e)
		parts = append(parts, string(out))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, ",") + "]"
}
