package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestPreviewServerLimits(t *testing.T) {
	s := newPreviewServer(nil)
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Errorf("preview server timeouts: header %v, read %v, write %v, idle %v; want all set",
			s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
	if s.MaxHeaderBytes <= 0 || s.MaxHeaderBytes > 64<<10 {
		t.Errorf("MaxHeaderBytes = %d, want a small bound", s.MaxHeaderBytes)
	}
}

// TestPreviewClosesIdleConnections: a kept-alive connection that stays
// silent after its answer is closed by the server.
func TestPreviewClosesIdleConnections(t *testing.T) {
	s := newPreviewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	s.IdleTimeout = 100 * time.Millisecond // shortened; the default is set above
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	defer func() {
		_ = s.Close()
		<-served
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: preview\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" || resp.Close {
		t.Fatalf("answer %q (Close %v), want ok on a kept-alive connection", body, resp.Close)
	}
	closed := make(chan error, 1)
	go func() {
		_, err := r.ReadByte()
		closed <- err
	}()
	select {
	case err := <-closed:
		if err != io.EOF {
			t.Fatalf("read on the idle connection = %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection was not closed within 10 s")
	}
}
