package streamhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// Dial a Streamable HTTP endpoint and run a jsonrpc.Conn over it: the
// handshake opens a session whose id every later request carries. With a
// generated package, pass its HTTP value as the Protocol and hand the
// stream to its Connect function instead.
func ExampleDial() {
	// A stand-in server: it answers the handshake with a session id and
	// every other request with "pong", and accepts notifications.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || json.Unmarshal(body, &msg) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		switch {
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "abc")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25"}}`, msg.ID)
		default:
			fmt.Printf("%s with session %s, revision %s\n", msg.Method, r.Header.Get("Mcp-Session-Id"), r.Header.Get("MCP-Protocol-Version"))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"pong"}`, msg.ID)
		}
	}))
	defer srv.Close()

	proto := streamhttp.Protocol{
		Path: "/mcp", Handshake: "initialize",
		SessionHeader: "Mcp-Session-Id", VersionHeader: "MCP-Protocol-Version",
		VersionField: "protocolVersion", DefaultVersion: "2025-03-26",
	}
	ctx := context.Background()
	stream, err := streamhttp.Dial(ctx, srv.URL+proto.Path, proto, streamhttp.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	conn := jsonrpc.NewConn(stream, jsonrpc.Options{})
	defer conn.Close()

	if err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25"}, nil); err != nil {
		log.Fatal(err)
	}
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		log.Fatal(err)
	}
	var reply string
	if err := conn.Call(ctx, "ping", nil, &reply); err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply)
	// Output:
	// ping with session abc, revision 2025-11-25
	// pong
}
