package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/generated/mcp"
)

// The preencoded floor over Streamable HTTP (see mcp_preencoded.go): a
// plain net/http handler and an http.Client.

// preMCPMaxBody bounds a request body the floor's server reads, and
// preMCPMaxAnswer an answer its client reads.
const (
	preMCPMaxBody   = 1 << 16
	preMCPMaxAnswer = 1 << 22
)

// Header values shared by every message.
var (
	hdrJSON    = []string{"application/json"}
	hdrSSE     = []string{"text/event-stream"}
	hdrNoCache = []string{"no-cache"}
	hdrAccept  = []string{"application/json, text/event-stream"}
	hdrVersion = []string{mcpVersion}
	hdrAllow   = []string{"POST, DELETE"}
)

// preMCPHTTP is the floor's server on a loopback httptest server, and the
// client its sessions share.
type preMCPHTTP struct {
	t        *preMCPTemplates
	srv      *httptest.Server
	client   *http.Client
	tr       *http.Transport
	mu       sync.Mutex
	sessions map[string]struct{}
	bufs     sync.Pool // of *[]byte
}

func startPreMCPHTTP(t *preMCPTemplates) *preMCPHTTP {
	h := &preMCPHTTP{t: t, sessions: map[string]struct{}{}}
	h.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	mux := http.NewServeMux()
	mux.Handle(mcp.HTTP.Path, h)
	h.srv = httptest.NewServer(mux)
	h.client, h.tr = newHTTPClient()
	return h
}

// close stops the server and drops the client's idle connections.
func (h *preMCPHTTP) close() {
	h.srv.CloseClientConnections()
	h.srv.Close()
	h.tr.CloseIdleConnections()
}

func (h *preMCPHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodDelete:
		id := r.Header.Get("Mcp-Session-Id")
		h.mu.Lock()
		_, ok := h.sessions[id]
		delete(h.sessions, id)
		h.mu.Unlock()
		if !ok {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header()["Allow"] = hdrAllow
		http.Error(w, "the floor offers no GET stream", http.StatusMethodNotAllowed)
	}
}

// post answers one POSTed message.
func (h *preMCPHTTP) post(w http.ResponseWriter, r *http.Request) {
	bp := h.bufs.Get().(*[]byte)
	defer h.bufs.Put(bp)
	body, err := readAllInto((*bp)[:0], r.Body, r.ContentLength, preMCPMaxBody)
	*bp = body[:0]
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var req preMCPRequest
	if !req.read(body) {
		http.Error(w, "not a JSON-RPC message the floor knows", http.StatusBadRequest)
		return
	}
	hdr := w.Header()
	if sid := r.Header.Get("Mcp-Session-Id"); sid == "" {
		if string(req.method) != "initialize" || req.id == nil {
			http.Error(w, "no Mcp-Session-Id", http.StatusBadRequest)
			return
		}
		sid = rand.Text()
		h.mu.Lock()
		h.sessions[sid] = struct{}{}
		h.mu.Unlock()
		hdr["Mcp-Session-Id"] = []string{sid}
	} else {
		h.mu.Lock()
		_, ok := h.sessions[sid]
		h.mu.Unlock()
		if !ok {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		if r.Header.Get("Mcp-Protocol-Version") != mcpVersion {
			http.Error(w, "unsupported MCP-Protocol-Version", http.StatusBadRequest)
			return
		}
	}
	if req.id == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	op := h.bufs.Get().(*[]byte)
	defer h.bufs.Put(op)
	if req.token != nil {
		*op = h.stream(w, &req, (*op)[:0])
		return
	}
	out := h.t.appendServerAnswer((*op)[:0], &req)
	*op = out
	hdr["Content-Type"] = hdrJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(out))}
	_, _ = w.Write(out)
}

// stream answers the call of progress with an event stream: its
// notifications, then its answer, written in pieces of about 16 KiB. It
// returns buf, grown.
func (h *preMCPHTTP) stream(w http.ResponseWriter, req *preMCPRequest, buf []byte) []byte {
	hdr := w.Header()
	hdr["Content-Type"] = hdrSSE
	hdr["Cache-Control"] = hdrNoCache
	w.WriteHeader(http.StatusOK)
	for i := 1; i <= req.steps; i++ {
		buf = append(appendProgress(append(buf, "data: "...), req.token, i, req.steps), "\n\n"...)
		if len(buf) >= 16<<10 {
			if _, err := w.Write(buf); err != nil {
				return buf
			}
			buf = buf[:0]
		}
	}
	buf = append(h.t.appendServerDone(append(buf, "data: "...), req), "\n\n"...)
	_, _ = w.Write(buf)
	return buf
}

// readAllInto appends what r reads to buf until EOF; size is the length
// announced (-1 when unknown), trusted only up to limit.
func readAllInto(buf []byte, r io.Reader, size int64, limit int) ([]byte, error) {
	if size > 0 && size <= int64(limit) && cap(buf)-len(buf) <= int(size) {
		buf = append(make([]byte, 0, len(buf)+int(size)+512), buf...)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return buf, fmt.Errorf("longer than %d bytes", limit)
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// preBody is a request body of its own, since the transport may read it
// after the answer came.
type preBody struct {
	b   []byte
	arr [256]byte
}

func newPreBody(msg []byte) *preBody {
	pb := &preBody{}
	pb.b = append(pb.arr[:0], msg...)
	return pb
}

func (pb *preBody) Read(p []byte) (int, error) {
	if len(pb.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, pb.b)
	pb.b = pb.b[n:]
	return n, nil
}

func (pb *preBody) Close() error { return nil }

// preMCPHTTPWire is the floor client's side of a session over HTTP.
type preMCPHTTPWire struct {
	client *http.Client
	base   *http.Request // a POST to the endpoint with the session's headers
	sid    string
	buf    []byte
	events *frameReader // made by the first event stream
}

// dial returns a client session with no session id yet.
func (h *preMCPHTTP) dial() (*preMCPHTTPWire, error) {
	return dialPreMCP(h.client, h.srv.URL+mcp.HTTP.Path)
}

// dialPreMCP returns a floor client for the endpoint url.
func dialPreMCP(client *http.Client, url string) (*preMCPHTTPWire, error) {
	base, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return nil, fmt.Errorf("preencoded: %w", err)
	}
	base.Header = http.Header{"Content-Type": hdrJSON, "Accept": hdrAccept}
	return &preMCPHTTPWire{client: client, base: base}, nil
}

// post sends msg.
func (p *preMCPHTTPWire) post(ctx context.Context, msg []byte) (*http.Response, error) {
	req := p.base.WithContext(ctx)
	req.Body = newPreBody(msg)
	req.ContentLength = int64(len(msg))
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("POST: %w", err)
	}
	if p.sid == "" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			p.sid = sid
			p.base.Header = http.Header{"Content-Type": hdrJSON, "Accept": hdrAccept,
				"Mcp-Session-Id": []string{sid}, "Mcp-Protocol-Version": hdrVersion}
		}
	}
	return resp, nil
}

// preDone reads what is left of resp's body and closes it, so that its
// connection is reused; it returns err, or an error if the status is not
// want.
func preDone(resp *http.Response, want int, err error) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != want {
		err = fmt.Errorf("HTTP status %d, want %d", resp.StatusCode, want)
	}
	return err
}

func (p *preMCPHTTPWire) call(ctx context.Context, req []byte, note func([]byte) error) ([]byte, error) {
	resp, err := p.post(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, preDone(resp, http.StatusOK, nil)
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		p.buf, err = readAllInto(p.buf[:0], resp.Body, resp.ContentLength, preMCPMaxAnswer)
	case strings.HasPrefix(ct, "text/event-stream"):
		err = p.readEvents(resp.Body, note)
	default:
		err = fmt.Errorf("answer of type %q", ct)
	}
	if err = preDone(resp, http.StatusOK, err); err != nil {
		return nil, err
	}
	return p.buf, nil
}

// readEvents reads an event stream to its end: each notification goes to
// note and the answer into p.buf. Lines other than data lines, and empty
// data, are skipped.
func (p *preMCPHTTPWire) readEvents(body io.Reader, note func([]byte) error) error {
	if p.events == nil {
		p.events = newFrameReader(body, ndjson)
	} else {
		p.events.r.Reset(body)
	}
	answered := false
	for {
		line, err := p.events.readLine()
		if errors.Is(err, io.EOF) {
			if !answered {
				return errors.New("the event stream ended without the answer")
			}
			return nil
		}
		if err != nil {
			return err
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		data = bytes.TrimPrefix(data, []byte(" "))
		switch {
		case !ok || len(data) == 0:
		case answered:
			return errPreMCPAnswer("a message after the answer", data)
		case !bytes.HasPrefix(data, []byte(preMCPNotifyHead)):
			p.buf, answered = append(p.buf[:0], data...), true
		case note == nil:
			return errPreMCPAnswer("a notification", data)
		default:
			if err := note(data); err != nil {
				return err
			}
		}
	}
}

func (p *preMCPHTTPWire) notify(ctx context.Context, msg []byte) error {
	resp, err := p.post(ctx, msg)
	if err != nil {
		return err
	}
	return preDone(resp, http.StatusAccepted, nil)
}

// close ends the session with DELETE.
func (p *preMCPHTTPWire) close() error {
	req := p.base.WithContext(context.Background())
	req.Method = http.MethodDelete
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	return preDone(resp, http.StatusNoContent, nil)
}
