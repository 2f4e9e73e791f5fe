package streamhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// greeter is what a generated Connect function would start on each
// session: a jsonrpc.Conn serving the protocol's methods.
func greeter(s *streamhttp.Session) {
	jsonrpc.NewConn(s, jsonrpc.Options{
		Handshake: "hello",
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "hello":
				return map[string]string{"version": "1"}, nil
			case "greet":
				var p struct{ Name string }
				if err := req.DecodeParams(&p); err != nil {
					return nil, err
				}
				return "hello, " + p.Name, nil
			}
			return nil, jsonrpc.MethodNotFound(req.Method)
		}),
	})
}

func ExampleNewHandler() {
	proto := streamhttp.Protocol{
		Path:          "/rpc",
		Handshake:     "hello",
		SessionHeader: "Greeter-Session",
		VersionHeader: "Greeter-Version",
		VersionField:  "version",
	}
	h := streamhttp.NewHandler(proto, greeter, streamhttp.ServerOptions{})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle(proto.Path, h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	post := func(session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+proto.Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if session != "" {
			req.Header.Set(proto.SessionHeader, session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"hello"}`)
	session := resp.Header.Get(proto.SessionHeader)
	resp.Body.Close()
	fmt.Println("session opened:", session != "")

	resp = post(session, `{"jsonrpc":"2.0","id":2,"method":"greet","params":{"name":"Ada"}}`)
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(answer))
	// Output:
	// session opened: true
	// 200 OK {"jsonrpc":"2.0","id":2,"result":"hello, Ada"}
}
