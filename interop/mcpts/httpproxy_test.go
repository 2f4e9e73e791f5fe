package mcpts_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	stdlog "log"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// The HTTP counterpart of the recording proxy: a reverse proxy in the test
// process between an MCP client and a Streamable HTTP endpoint. It appends
// to the same log format: "-> " before each POST body (client to server),
// "<- " before each JSON response body and each server-sent event's data
// (server to client), and "## " before a line per request and response
// (method, status, media type, session id), so the checks of the stdio
// runs apply unchanged.

// maxLoggedBody bounds the request bodies the proxy records.
const maxLoggedBody = 1 << 20

// trafficLog appends timestamped lines to a file.
type trafficLog struct {
	mu    sync.Mutex
	f     *os.File
	start time.Time
}

func (l *trafficLog) line(prefix, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.f, "%s %8.1fms %s\n", prefix, float64(time.Since(l.start).Microseconds())/1000, strings.TrimRight(text, "\n"))
}

// logWriter writes what the reverse proxy logs as lines of the log.
type logWriter struct{ l *trafficLog }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.line("##", string(p))
	return len(p), nil
}

// recordingProxy serves a proxy to the endpoint target, recording to
// logPath, and returns the proxy's URL for the same path.
func recordingProxy(t *testing.T, target, logPath string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("parsing %s: %v", target, err)
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	log := &trafficLog{f: f, start: time.Now()}
	tr := &http.Transport{}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) },
		Transport:     tr,
		FlushInterval: -1,
		ErrorLog:      stdlog.New(logWriter{log}, "proxy: ", 0),
		ModifyResponse: func(resp *http.Response) error {
			media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			log.line("##", fmt.Sprintf("proxy: %s answered %d %s session=%q", resp.Request.Method, resp.StatusCode, media, resp.Header.Get("Mcp-Session-Id")))
			switch media {
			case "application/json":
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return fmt.Errorf("reading the response: %w", err)
				}
				log.line(toClient, string(b))
				resp.Body = io.NopCloser(bytes.NewReader(b))
			case "text/event-stream":
				pr, pw := io.Pipe()
				body := resp.Body
				go func() {
					sc := bufio.NewScanner(io.TeeReader(body, pw))
					sc.Buffer(nil, 1<<20)
					for sc.Scan() {
						if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
							log.line(toClient, strings.TrimPrefix(data, " "))
						}
					}
					// Drain what the scanner left (a line over its limit).
					_, err := io.Copy(pw, body)
					pw.CloseWithError(err)
					body.Close()
				}()
				resp.Body = pr
			}
			return nil
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.line("##", fmt.Sprintf("proxy: %s %s session=%q last-event-id=%q", r.Method, r.URL.Path, r.Header.Get("Mcp-Session-Id"), r.Header.Get("Last-Event-ID")))
		if r.Method == http.MethodPost {
			b, err := io.ReadAll(io.LimitReader(r.Body, maxLoggedBody))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			log.line(toServer, string(b))
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		tr.CloseIdleConnections()
		f.Close()
	})
	return srv.URL + u.Path
}

// httpPeer is a server process serving Streamable HTTP.
type httpPeer struct {
	url            string
	stdout, stderr *exampletest.Lines
}

// startHTTPPeer starts command, waits for the "listening on URL" line it
// writes to stderr, and at cleanup stops it with SIGTERM, after which it
// must exit with status 0.
func startHTTPPeer(t *testing.T, name string, command ...string) *httpPeer {
	t.Helper()
	p := &httpPeer{stdout: exampletest.NewLines(), stderr: exampletest.NewLines()}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%s ended with %v after SIGTERM; stderr:\n%s", name, err, p.stderr)
			}
		case <-time.After(wait):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("%s did not stop within %s of SIGTERM; stderr:\n%s", name, wait, p.stderr)
		}
		if t.Failed() {
			t.Logf("--- %s stdout ---\n%s--- %s stderr ---\n%s", name, p.stdout, name, p.stderr)
		}
	})
	line := p.stderr.Wait(t, name, "listening on http://", 1, wait)[0]
	p.url = line[strings.Index(line, "http://"):]
	return p
}
