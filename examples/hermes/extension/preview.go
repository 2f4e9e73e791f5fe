package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/internal/ptr"
)

// preview serves the message as an HTML table on 127.0.0.1 for a Hermes
// window; message/changed keeps its content current.
type preview struct {
	windowID string
	url      string
	server   *http.Server
	done     chan struct{} // closed when Serve has returned

	mu      sync.Mutex
	content string
}

// startPreview listens on a free local port and serves content.
func startPreview(content string) (*preview, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the preview server: %w", err)
	}
	p := &preview{url: "http://" + ln.Addr().String() + "/", content: content, done: make(chan struct{})}
	p.server = newPreviewServer(http.HandlerFunc(p.serve))
	go func() {
		defer close(p.done)
		if err := p.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errorf("preview server: %v", err)
		}
	}()
	return p, nil
}

// newPreviewServer returns the preview's HTTP server. Anything on the
// machine can connect to it, so every connection is bounded in time: a
// client that sends nothing, trickles its request or keeps an idle
// connection open is disconnected, and request headers are small.
func newPreviewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
}

// update replaces the previewed message.
func (p *preview) update(content string) {
	p.mu.Lock()
	p.content = content
	p.mu.Unlock()
}

// close stops the server; it is safe to call more than once.
func (p *preview) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.server.Shutdown(ctx); err != nil {
		_ = p.server.Close()
	}
	<-p.done
}

// serve writes the message as a table, one row per segment.
func (p *preview) serve(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	content := p.content
	p.mu.Unlock()
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><title>HL7 preview</title></head><body><table>\n")
	for _, seg := range segments(content) {
		name, rest, _ := strings.Cut(seg, "|")
		fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>\n", html.EscapeString(name), html.EscapeString(rest))
	}
	b.WriteString("</table></body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

// togglePreview opens the preview window, or closes it when it is open.
func togglePreview(ctx context.Context, e *extension) error {
	e.mu.Lock()
	open := e.preview
	e.mu.Unlock()
	if open != nil {
		res, err := e.host.UICloseWindow(ctx, &hermes.UICloseWindowParams{WindowID: open.windowID})
		if err != nil {
			return fmt.Errorf("closing the preview: %w", err)
		}
		e.mu.Lock()
		if e.preview == open {
			e.preview = nil
		}
		e.mu.Unlock()
		open.close()
		// Logged once the preview server has stopped.
		logf("preview window %s closed: %v", open.windowID, res.Success)
		return nil
	}

	msg, err := e.host.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: hermes.MessageFormatHL7})
	if err != nil {
		return fmt.Errorf("reading the message: %w", err)
	}
	p, err := startPreview(msg.Message)
	if err != nil {
		return err
	}
	res, err := e.host.UIOpenWindow(ctx, &hermes.UIOpenWindowParams{
		URL: p.url, Title: "HL7 preview", Width: ptr.To[uint32](700), Height: ptr.To[uint32](500), Resizable: ptr.To(true)})
	if err != nil {
		p.close()
		return fmt.Errorf("opening the preview window: %w", err)
	}
	p.windowID = res.WindowID
	e.mu.Lock()
	e.preview = p
	e.mu.Unlock()
	logf("preview window %s shows %s", p.windowID, p.url)
	return nil
}
