package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/rpcgen/rpcgen/generated/mcp"
)

// The preencoded floor of the MCP rows: what the transport and, over
// HTTP, net/http cost for the same exchanges, with no MCP or JSON-RPC
// library on either side. It is to BenchmarkMCP what the preencoded
// ceiling (impl_preencoded.go) is to the RPC rows: no implementation on
// the same transport can be faster by much, so a row whose target the
// floor misses too cannot be met by anyone.
//
// The messages on the wire are the ones rpcgen's client and server send,
// in the same order: initialize, notifications/initialized, tools/list,
// tools/call of search, tools/call of progress with a progress token and
// its 1,000 notifications/progress. Every answer and request is a byte
// template prepared once, at start, by encoding rpcgen's own values (the
// generated mcp types, answered by mcpGenServer); per message only the id,
// the progress token and the progress counter are spliced in. The server
// finds the method, the id and the few members it needs by looking for
// their keys, and answers search only for the arguments its template was
// made for (-32602 otherwise). The client reads its answer on the calling
// goroutine and checks every byte of it, and of each progress
// notification, against the template, without a JSON decoder.
//
// Over stdio each session has its own OS pipes and server goroutine, as in
// the other rows. Over HTTP the server is a plain net/http handler:
// Mcp-Session-Id given by initialize's answer and required afterwards,
// MCP-Protocol-Version checked, 202 for a notification, a JSON answer to a
// request, an event stream for the call that sends progress, DELETE at
// close. It offers no resumption (no event ids, no priming event) and no
// GET stream, and its client opens none: the least a session needs. The
// client is an http.Client with newHTTPClient's transport settings.

// preMCPTemplates are the byte templates of both sides.
type preMCPTemplates struct {
	initParams, searchParams []byte // the client's params
	// The servers' results, each the value of an answer's "result".
	initResult, listResult, searchResult, doneResult []byte
	// searchAnswer is what search's answer decodes to, given to the client
	// once it has checked the answer's bytes.
	searchAnswer mcpSearchAnswer
	list         preMCPToolList
}

// preMCP returns the templates, made once.
var preMCP = sync.OnceValues(newPreMCPTemplates)

// newPreMCPTemplates encodes the messages rpcgen's client and server send.
func newPreMCPTemplates() (*preMCPTemplates, error) {
	tools, err := mcpGenTools()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	srv := &mcpGenServer{tools: tools}
	t := &preMCPTemplates{}
	initResult, _ := srv.Initialize(ctx, nil)
	list, _ := srv.ListTools(ctx, nil)
	search := &mcp.CallToolRequestParams{Name: mcpToolSearch}
	if err := search.SetArguments(mcpSearchBenchArgs); err != nil {
		return nil, err
	}
	searchAnswer, err := srv.CallTool(ctx, search)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	progress := &mcp.CallToolRequestParams{Name: mcpToolProgress, Arguments: []byte(`{"steps":0}`)}
	done, err := srv.CallTool(ctx, progress)
	if err != nil {
		return nil, fmt.Errorf("progress: %w", err)
	}
	for _, v := range []struct {
		dst *[]byte
		v   any
	}{
		{&t.initParams, &mcp.InitializeRequestParams{ProtocolVersion: mcpVersion, ClientInfo: mcp.Implementation{Name: "bench", Version: "1.0.0"}}},
		{&t.searchParams, search}, {&t.initResult, initResult}, {&t.listResult, list},
		{&t.searchResult, searchAnswer}, {&t.doneResult, done},
	} {
		if *v.dst, err = json.Marshal(v.v); err != nil {
			return nil, fmt.Errorf("encoding a template: %w", err)
		}
	}
	sr := searchAnswer.CallToolResult
	if err := sr.DecodeStructuredContent(&t.searchAnswer.Result); err != nil {
		return nil, err
	}
	t.searchAnswer.Text = sr.Content[0].Text.Text
	t.list = preMCPToolList{raw: t.listResult}
	return t, nil
}

// Fixed parts of the messages.
const (
	preMCPHead         = `{"jsonrpc":"2.0","id":`
	preMCPNotifyHead   = `{"jsonrpc":"2.0","method":"`
	preMCPInitialized  = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`
	preMCPProgressHead = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`
)

var (
	keyToken    = []byte(`"progressToken":`)
	keyProgress = []byte(`"progress":`)
	keySteps    = []byte(`"steps":`)
	keyParams   = []byte(`"params":`)
	keyName     = []byte(`"name":"`)
)

// appendRequest appends a request with id whose text after the id is
// tail, then params and a closing brace when params is not nil.
func appendRequest(buf []byte, id int64, tail string, params []byte) []byte {
	buf = append(buf, preMCPHead...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, tail...)
	if params != nil {
		buf = append(append(buf, params...), '}')
	}
	return buf
}

// appendAnswer appends the answer to the request with the raw id whose
// result is result.
func appendAnswer(buf, id, result []byte) []byte {
	buf = append(append(buf, preMCPHead...), id...)
	buf = append(append(append(buf, `,"result":`...), result...), '}')
	return buf
}

// appendProgressCall appends the call of the tool progress.
func appendProgressCall(buf []byte, id, token int64, steps int) []byte {
	buf = appendRequest(buf, id, `,"method":"tools/call","params":{"_meta":{"progressToken":`, nil)
	buf = strconv.AppendInt(buf, token, 10)
	buf = append(buf, `},"name":"progress","arguments":{"steps":`...)
	buf = strconv.AppendInt(buf, int64(steps), 10)
	return append(buf, "}}}"...)
}

// appendProgress appends the notification of step i of steps; token is
// raw JSON.
func appendProgress(buf, token []byte, i, steps int) []byte {
	buf = append(append(buf, preMCPProgressHead...), token...)
	buf = strconv.AppendInt(append(buf, `,"progress":`...), int64(i), 10)
	buf = strconv.AppendInt(append(buf, `,"total":`...), int64(steps), 10)
	return append(buf, "}}"...)
}

// rawScalarAfter returns the number or string that follows key, as raw
// JSON.
func rawScalarAfter(msg, key []byte) ([]byte, bool) {
	rest, ok := after(msg, key)
	if !ok || len(rest) == 0 {
		return nil, false
	}
	if rest[0] == '"' {
		s, ok := stringAfter(rest, []byte(`"`))
		return rest[:len(s)+2], ok
	}
	end := 0
	for end < len(rest) && (rest[end] == '-' || rest[end] >= '0' && rest[end] <= '9') {
		end++
	}
	return rest[:end], end > 0
}

// preMCPRequest is what the server reads of a message.
type preMCPRequest struct {
	method []byte
	id     []byte // raw; nil for a notification
	token  []byte // raw progress token of a call of progress
	steps  int
	params []byte // from the value of "params" to the end of the message
}

// read finds what the server needs in msg.
func (r *preMCPRequest) read(msg []byte) bool {
	*r = preMCPRequest{}
	method, ok := stringAfter(msg, keyMethod)
	if !ok {
		return false
	}
	r.method = method
	if bytes.HasPrefix(msg, []byte(preMCPHead)) {
		if r.id, ok = rawScalarAfter(msg, keyID); !ok {
			return false
		}
	}
	r.params, _ = after(msg, keyParams)
	if string(method) == "tools/call" {
		if name, _ := stringAfter(msg, keyName); string(name) == mcpToolProgress {
			r.token, _ = rawScalarAfter(msg, keyToken)
			steps, _, _ := intAfter(msg, keySteps)
			r.steps = int(min(max(steps, 0), 1<<20))
		}
	}
	return true
}

// appendServerAnswer appends the answer to r, the call of progress
// excepted: that one answers with appendServerDone after its
// notifications.
func (t *preMCPTemplates) appendServerAnswer(buf []byte, r *preMCPRequest) []byte {
	switch string(r.method) {
	case "initialize":
		return appendAnswer(buf, r.id, t.initResult)
	case "tools/list":
		return appendAnswer(buf, r.id, t.listResult)
	case "tools/call":
		// The params up to the message's closing brace.
		if len(r.params) == len(t.searchParams)+1 && r.params[len(t.searchParams)] == '}' &&
			bytes.Equal(r.params[:len(t.searchParams)], t.searchParams) {
			return appendAnswer(buf, r.id, t.searchResult)
		}
		return appendError(buf, r.id, "-32602", "the floor answers only the prepared search")
	}
	return appendError(buf, r.id, "-32601", "method not found")
}

// appendServerDone appends the answer to the call of progress.
func (t *preMCPTemplates) appendServerDone(buf []byte, r *preMCPRequest) []byte {
	return appendAnswer(buf, r.id, t.doneResult)
}

// appendError appends an error answer.
func appendError(buf, id []byte, code, message string) []byte {
	buf = append(append(buf, preMCPHead...), id...)
	return append(append(append(append(buf, `,"error":{"code":`...), code...), `,"message":"`...), message+`"}}`...)
}

// serveStdio answers the messages on conn until it ends, then closes it.
// A call's notifications are written in pieces of about 16 KiB, its answer
// with the last of them.
func (t *preMCPTemplates) serveStdio(conn io.ReadWriteCloser) {
	defer conn.Close()
	in := newFrameReader(conn, ndjson)
	var r preMCPRequest
	var buf []byte
	for {
		msg, err := in.read()
		if err != nil || !r.read(msg) {
			return
		}
		if r.id == nil {
			continue // notifications/initialized
		}
		buf = buf[:0]
		if r.token != nil {
			for i := 1; i <= r.steps; i++ {
				buf = append(appendProgress(buf, r.token, i, r.steps), '\n')
				if len(buf) >= 16<<10 {
					if _, err := conn.Write(buf); err != nil {
						return
					}
					buf = buf[:0]
				}
			}
			buf = t.appendServerDone(buf, &r)
		} else {
			buf = t.appendServerAnswer(buf, &r)
		}
		if _, err := conn.Write(append(buf, '\n')); err != nil {
			return
		}
	}
}

// preMCPWire carries the floor client's messages.
type preMCPWire interface {
	// call sends the request req and returns its answer, valid until the
	// next call; each notification before it goes to note, or is an error
	// when note is nil.
	call(ctx context.Context, req []byte, note func(msg []byte) error) ([]byte, error)
	// notify sends a notification.
	notify(ctx context.Context, msg []byte) error
	// close ends the session.
	close() error
}

// preMCPSession is the floor's client session.
type preMCPSession struct {
	t    *preMCPTemplates
	wire preMCPWire
	next int64
	req  []byte
	want []byte
}

// errPreMCPAnswer reports an answer whose bytes are not the template's.
func errPreMCPAnswer(what string, got []byte) error {
	if len(got) > 200 {
		got = got[:200]
	}
	return fmt.Errorf("%s: %w: %q", what, errMCPBadAnswer, got)
}

// roundTrip sends the request built by build with a new id and checks its
// answer is the one whose result is result.
func (s *preMCPSession) roundTrip(ctx context.Context, what string, result []byte, note func([]byte) error,
	build func(buf []byte, id int64) []byte) error {
	s.next++
	s.req = build(s.req[:0], s.next)
	ans, err := s.wire.call(ctx, s.req, note)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var idBuf [20]byte
	s.want = appendAnswer(s.want[:0], strconv.AppendInt(idBuf[:0], s.next, 10), result)
	if !bytes.Equal(ans, s.want) {
		return errPreMCPAnswer(what, ans)
	}
	return nil
}

// initialize does the handshake on a new session.
func (s *preMCPSession) initialize(ctx context.Context) error {
	err := s.roundTrip(ctx, "initialize", s.t.initResult, nil, func(buf []byte, id int64) []byte {
		return appendRequest(buf, id, `,"method":"initialize","params":`, s.t.initParams)
	})
	if err != nil {
		return err
	}
	if err := s.wire.notify(ctx, []byte(preMCPInitialized)); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

// preMCPToolList is tools/list's answer, checked byte for byte.
type preMCPToolList struct{ raw []byte }

func (l *preMCPToolList) Len() int { return mcpToolCount }

// Canon decodes the tools, for the tests only.
func (l *preMCPToolList) Canon() ([]mcpCanonTool, error) {
	var r struct{ Tools []mcpCanonTool }
	if err := json.Unmarshal(l.raw, &r); err != nil {
		return nil, fmt.Errorf("decoding tools/list: %w", err)
	}
	return mcpCanonOf(r.Tools, func(t mcpCanonTool) (string, string, any) { return t.Name, t.Description, t.InputSchema })
}

func (s *preMCPSession) ListTools(ctx context.Context) (mcpToolList, error) {
	err := s.roundTrip(ctx, "tools/list", s.t.listResult, nil, func(buf []byte, id int64) []byte {
		return appendRequest(buf, id, `,"method":"tools/list"}`, nil)
	})
	if err != nil {
		return nil, err
	}
	return &s.t.list, nil
}

// Search calls search with the arguments of the rows, the only ones the
// floor has a template for.
func (s *preMCPSession) Search(ctx context.Context, a mcpSearchArgs) (mcpSearchAnswer, error) {
	if a != mcpSearchBenchArgs {
		return mcpSearchAnswer{}, errors.New("the preencoded floor calls search only with mcpSearchBenchArgs")
	}
	err := s.roundTrip(ctx, "tools/call", s.t.searchResult, nil, func(buf []byte, id int64) []byte {
		return appendRequest(buf, id, `,"method":"tools/call","params":`, s.t.searchParams)
	})
	if err != nil {
		return mcpSearchAnswer{}, err
	}
	return s.t.searchAnswer, nil
}

func (s *preMCPSession) Progress(ctx context.Context, w *mcpProgressWaiter) error {
	var want []byte
	note := func(msg []byte) error {
		token, rawToken, ok := intAfter(msg, keyToken)
		progress, _, ok2 := intAfter(msg, keyProgress)
		if !ok || !ok2 {
			return errPreMCPAnswer("notifications/progress", msg)
		}
		want = appendProgress(want[:0], rawToken, int(progress), w.steps)
		if !bytes.Equal(msg, want) {
			return errPreMCPAnswer("notifications/progress", msg)
		}
		w.tick(token, float64(progress))
		return nil
	}
	err := s.roundTrip(ctx, "tools/call", s.t.doneResult, note, func(buf []byte, id int64) []byte {
		return appendProgressCall(buf, id, w.token, w.steps)
	})
	if err != nil {
		return err
	}
	return w.wait(ctx)
}

func (s *preMCPSession) Close() error { return s.wire.close() }

// preMCPStdio is the client's side of a session over OS pipes.
type preMCPStdio struct {
	conn   io.ReadWriteCloser
	in     *frameReader
	out    *frameWriter
	served chan struct{} // closed when the server's goroutine ends
}

func (p *preMCPStdio) call(_ context.Context, req []byte, note func([]byte) error) ([]byte, error) {
	if err := p.out.write(req); err != nil {
		return nil, err
	}
	for {
		msg, err := p.in.read()
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(msg, []byte(preMCPNotifyHead)) {
			return msg, nil
		}
		if note == nil {
			return nil, errPreMCPAnswer("a notification", msg)
		}
		if err := note(msg); err != nil {
			return nil, err
		}
	}
}

func (p *preMCPStdio) notify(_ context.Context, msg []byte) error { return p.out.write(msg) }

// close closes the client's pipes and waits for the server to end.
func (p *preMCPStdio) close() error {
	err := p.conn.Close()
	<-p.served
	return err
}

// preMCPEndpoint is the floor's server over stdio or HTTP.
type preMCPEndpoint struct {
	t    *preMCPTemplates
	http *preMCPHTTP // nil over stdio
}

func serveMCPPreencoded(_ context.Context, transport string) (mcpEndpoint, error) {
	t, err := preMCP()
	if err != nil {
		return nil, err
	}
	e := &preMCPEndpoint{t: t}
	if transport == "http" {
		e.http = startPreMCPHTTP(t)
	}
	return e, nil
}

func (e *preMCPEndpoint) Connect(ctx context.Context) (mcpClientSession, error) {
	s := &preMCPSession{t: e.t}
	if e.http != nil {
		w, err := e.http.dial()
		if err != nil {
			return nil, err
		}
		s.wire = w
	} else {
		client, server, err := osPipes()
		if err != nil {
			return nil, err
		}
		w := &preMCPStdio{conn: client, in: newFrameReader(client, ndjson), out: &frameWriter{w: client, f: ndjson},
			served: make(chan struct{})}
		go func() {
			defer close(w.served)
			e.t.serveStdio(server)
		}()
		s.wire = w
	}
	if err := s.initialize(ctx); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

func (e *preMCPEndpoint) Close() error {
	if e.http != nil {
		e.http.close()
	}
	return nil
}
