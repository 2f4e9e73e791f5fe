package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// stdjson is the baseline a careful programmer writes by hand with
// encoding/json: the client marshals a request struct and frames it, a reader
// goroutine matches responses to waiting callers by id, and the server reads
// a frame, unmarshals the envelope and the params, calls the function and
// marshals the response.
func init() {
	register(impl{name: "stdjson", start: startStdJSON})
}

// stdRequest is a request or, without ID, a notification.
type stdRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// stdOutgoing is a request as the client writes it.
type stdOutgoing struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// stdError is a JSON-RPC error object.
type stdError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *stdError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// stdResponse is a response as the client reads it.
type stdResponse struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *stdError       `json:"error"`
}

// stdReply is a response as the server writes it.
type stdReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *stdError       `json:"error,omitempty"`
}

type (
	stdAddParams struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}
	stdAddResult struct {
		Sum int64 `json:"sum"`
	}
	stdEchoParams struct {
		Text string `json:"text"`
	}
	stdEchoResult struct {
		Text string `json:"text"`
	}
	stdTickParams struct {
		Seq int64 `json:"seq"`
	}
)

// stdSession is a stdjson client and server over one connection.
type stdSession struct {
	client, server io.ReadWriteCloser
	out            *frameWriter
	pending        pending[*stdResponse]
	wg             sync.WaitGroup
}

func startStdJSON(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error) {
	s := &stdSession{client: client, server: server, out: &frameWriter{w: client, f: f}}
	s.wg.Add(2)
	go s.serve(newFrameReader(server, f), &frameWriter{w: server, f: f}, on)
	go s.readResponses(newFrameReader(client, f))
	return s, nil
}

// readResponses hands each response to its caller until the stream ends.
func (s *stdSession) readResponses(in *frameReader) {
	defer s.wg.Done()
	for {
		msg, err := in.read()
		if err != nil {
			s.pending.fail(fmt.Errorf("stdjson client: %w", err))
			return
		}
		resp := new(stdResponse)
		if err := json.Unmarshal(msg, resp); err != nil {
			continue // not a response we can match: drop it
		}
		s.pending.deliver(resp.ID, resp)
	}
}

// serve answers requests one at a time until the stream ends.
func (s *stdSession) serve(in *frameReader, out *frameWriter, on sink) {
	defer s.wg.Done()
	for {
		msg, err := in.read()
		if err != nil {
			return
		}
		var req stdRequest
		if err := json.Unmarshal(msg, &req); err != nil {
			continue
		}
		result, rerr := stdDispatch(&req, on)
		if req.ID == nil {
			continue
		}
		data, err := json.Marshal(stdReply{JSONRPC: "2.0", ID: req.ID, Result: result, Error: rerr})
		if err != nil {
			return
		}
		if out.write(data) != nil {
			return
		}
	}
}

// stdDispatch decodes the params of req and calls its method.
func stdDispatch(req *stdRequest, on sink) (any, *stdError) {
	switch req.Method {
	case "add":
		var p stdAddParams
		if json.Unmarshal(req.Params, &p) != nil {
			return nil, &stdError{Code: -32602, Message: "Invalid params"}
		}
		return stdAddResult{Sum: p.A + p.B}, nil
	case "echo":
		var p stdEchoParams
		if json.Unmarshal(req.Params, &p) != nil {
			return nil, &stdError{Code: -32602, Message: "Invalid params"}
		}
		return stdEchoResult(p), nil
	case "tick":
		var p stdTickParams
		if json.Unmarshal(req.Params, &p) != nil {
			return nil, &stdError{Code: -32602, Message: "Invalid params"}
		}
		on.tick(p.Seq)
		return nil, nil
	case methodDidOpen:
		var p didOpenParams
		if json.Unmarshal(req.Params, &p) != nil {
			return nil, &stdError{Code: -32602, Message: "Invalid params"}
		}
		on.didOpen(p.doc())
		return nil, nil
	}
	return nil, &stdError{Code: -32601, Message: "Method not found"}
}

// call sends a request and decodes its result into result.
func (s *stdSession) call(ctx context.Context, method string, params, result any) error {
	id, ch, err := s.pending.add()
	if err != nil {
		return err
	}
	data, err := json.Marshal(stdOutgoing{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err == nil {
		err = s.out.write(data)
	}
	if err != nil {
		s.pending.remove(id)
		return err
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return errConnClosed
		}
		if resp.Error != nil {
			return resp.Error
		}
		return json.Unmarshal(resp.Result, result)
	case <-ctx.Done():
		s.pending.remove(id)
		return ctx.Err()
	}
}

func (s *stdSession) Add(ctx context.Context, a, b int64) (int64, error) {
	var res stdAddResult
	if err := s.call(ctx, "add", stdAddParams{A: a, B: b}, &res); err != nil {
		return 0, fmt.Errorf("stdjson add: %w", err)
	}
	return res.Sum, nil
}

func (s *stdSession) Echo(ctx context.Context, text string) (string, error) {
	var res stdEchoResult
	if err := s.call(ctx, "echo", stdEchoParams{Text: text}, &res); err != nil {
		return "", fmt.Errorf("stdjson echo: %w", err)
	}
	return res.Text, nil
}

func (s *stdSession) Tick(_ context.Context, seq int64) error {
	if err := s.notify("tick", stdTickParams{Seq: seq}); err != nil {
		return fmt.Errorf("stdjson tick: %w", err)
	}
	return nil
}

func (s *stdSession) DidOpen(_ context.Context, doc document) error {
	if err := s.notify(methodDidOpen, newDidOpenParams(doc)); err != nil {
		return fmt.Errorf("stdjson didOpen: %w", err)
	}
	return nil
}

// notify sends a notification.
func (s *stdSession) notify(method string, params any) error {
	data, err := json.Marshal(stdOutgoing{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return err
	}
	return s.out.write(data)
}

// Close closes both ends and waits for the reader and the server.
func (s *stdSession) Close() error {
	s.client.Close()
	s.server.Close()
	s.wg.Wait()
	return nil
}
