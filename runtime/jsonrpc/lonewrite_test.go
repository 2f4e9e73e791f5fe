package jsonrpc

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// writeRecorder records each Write call on a stream, and whether the
// connection's writer held a pooled buffer while it was made. With gate
// set, the first Write waits for gate to close, having said so on entered.
type writeRecorder struct {
	io.ReadWriteCloser
	conn    *Conn // set before anything is sent
	gate    chan struct{}
	entered chan struct{}

	mu       sync.Mutex
	writes   []string
	buffered []bool
}

func (w *writeRecorder) Write(b []byte) (int, error) {
	// Only the goroutine holding the writer's place writes, and it alone
	// touches the connection's buffer.
	held := w.conn.flusher.bw != nil
	w.mu.Lock()
	first := len(w.writes) == 0
	w.writes = append(w.writes, string(b))
	w.buffered = append(w.buffered, held)
	w.mu.Unlock()
	if first && w.gate != nil {
		close(w.entered)
		<-w.gate
	}
	return w.ReadWriteCloser.Write(b)
}

// take returns the writes recorded so far, and forgets them.
func (w *writeRecorder) take() ([]string, []bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ws, bs := w.writes, w.buffered
	w.writes, w.buffered = nil, nil
	return ws, bs
}

// dropSpares empties the shared pool of message buffers, so that the
// messages of a test are encoded into fresh buffers with room to spare:
// one left by an earlier test may have no room for the framing after its
// message, which a lone write then rightly sends through a pooled buffer.
func dropSpares() {
	for {
		select {
		case <-spareMessages:
		default:
			return
		}
	}
}

// frameOf is msg as framing f writes it.
func frameOf(f framing.Framing, msg string) string {
	if f == framing.ContentLength {
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)
	}
	return msg + "\n"
}

// TestLoneMessageOneWriteNoBuffer: a small message with nothing else to
// write (a notification through the write loop, a call written by its
// caller, an answer written by its handler's worker) goes to the stream
// framed, in one Write call, with no pooled buffer taken.
func TestLoneMessageOneWriteNoBuffer(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			dropSpares()
			s1, s2 := net.Pipe()
			cw, sw := &writeRecorder{ReadWriteCloser: s1}, &writeRecorder{ReadWriteCloser: s2}
			noted := make(chan struct{}, 1)
			h := mux{
				"add":  addHandler,
				"note": func(context.Context, *Request) (any, error) { noted <- struct{}{}; return nil, nil },
			}
			client := NewConn(cw, Options{Framing: f})
			server := NewConn(sw, Options{Framing: f, Handler: h})
			cw.conn, sw.conn = client, server
			t.Cleanup(func() { client.Close(); server.Close() })

			if err := client.Notify(context.Background(), "note", map[string]string{"s": "a\nb"}); err != nil {
				t.Fatal(err)
			}
			<-noted
			var res addResult
			if err := client.Call(context.Background(), "add", addParams{A: 1, B: 2}, &res); err != nil || res.Sum != 3 {
				t.Fatalf("call: %v, %+v", err, res)
			}
			want := []string{
				frameOf(f, `{"jsonrpc":"2.0","method":"note","params":{"s":"a\nb"}}`),
				frameOf(f, `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}}`),
			}
			writes, buffered := cw.take()
			if strings.Join(writes, "|") != strings.Join(want, "|") {
				t.Errorf("client wrote %q, want %q (one write per message)", writes, want)
			}
			for i, b := range buffered {
				if b {
					t.Errorf("client write %d was made holding a pooled buffer", i)
				}
			}
			answer := frameOf(f, `{"jsonrpc":"2.0","id":1,"result":{"sum":3}}`)
			writes, buffered = sw.take()
			if len(writes) != 1 || writes[0] != answer {
				t.Errorf("server wrote %q, want [%q]", writes, answer)
			}
			if len(buffered) == 1 && buffered[0] {
				t.Error("the server's answer was written holding a pooled buffer")
			}
		})
	}
}

// TestQueuedMessagesShareOneWrite: messages queued while a write is under
// way still go out together, in one Write call through the pooled buffer,
// in order.
func TestQueuedMessagesShareOneWrite(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			dropSpares()
			s1, s2 := net.Pipe()
			cw := &writeRecorder{ReadWriteCloser: s1, gate: make(chan struct{}), entered: make(chan struct{})}
			got := make(chan string, 3)
			h := mux{"note": func(_ context.Context, req *Request) (any, error) {
				got <- string(req.Params)
				return nil, nil
			}}
			client := NewConn(cw, Options{Framing: f})
			server := NewConn(s2, Options{Framing: f, Handler: h})
			cw.conn = client
			t.Cleanup(func() { client.Close(); server.Close() })

			for i := range 3 {
				if err := client.Notify(context.Background(), "note", []int{i}); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					<-cw.entered // the first write is under way
				}
			}
			close(cw.gate)
			timeout := time.After(10 * time.Second)
			for i := range 3 {
				select {
				case p := <-got:
					if want := fmt.Sprintf("[%d]", i); p != want {
						t.Fatalf("notification %d had params %s, want %s", i, p, want)
					}
				case <-timeout:
					t.Fatalf("notification %d never arrived", i)
				}
			}
			msg := func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":[%d]}`, i) }
			want := []string{frameOf(f, msg(0)), frameOf(f, msg(1)) + frameOf(f, msg(2))}
			writes, buffered := cw.take()
			if strings.Join(writes, "|") != strings.Join(want, "|") {
				t.Errorf("wrote %q, want %q", writes, want)
			}
			if len(buffered) == 2 && (buffered[0] || !buffered[1]) {
				t.Errorf("held a pooled buffer: %v, want [false true]", buffered)
			}
		})
	}
}

// TestLoneMessageWithoutRoom: a lone message whose buffer has no room
// for its framing goes through a pooled buffer, still in one Write call,
// and a larger one than a pooled buffer is not framed in place.
func TestLoneMessageWithoutRoom(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			for _, n := range []int{64, writeBufferSize + 1} {
				s1, s2 := net.Pipe()
				cw := &writeRecorder{ReadWriteCloser: s1}
				c := NewConn(cw, Options{Framing: f})
				cw.conn = c
				go func() { _, _ = io.Copy(io.Discard, s2) }()
				body := `{"jsonrpc":"2.0","method":"x","params":["` + strings.Repeat("a", n) + `"]}`
				msg := []byte(body)
				msg = msg[:len(msg):len(msg)] // no room
				if n > writeBufferSize {
					msg = append(make([]byte, 0, len(body)+64), body...) // room
				}
				if !c.out.claim(&c.wg) {
					t.Fatal("no writer's place")
				}
				err := c.writeMessage(queued{msg: msg}, true)
				c.out.release()
				c.wg.Done()
				if err != nil {
					t.Fatal(err)
				}
				writes, buffered := cw.take()
				frame := frameOf(f, body)
				if n <= writeBufferSize {
					if len(writes) != 1 || writes[0] != frame || !buffered[0] {
						t.Errorf("%d bytes: wrote %d pieces (buffered %v), want the frame in one buffered write", n, len(writes), buffered)
					}
				} else if strings.Join(writes, "") != frame || !buffered[0] {
					t.Errorf("%d bytes: wrote %d bytes (buffered %v), want the frame through a buffer", n, len(strings.Join(writes, "")), buffered)
				}
				if c.flusher.bw != nil {
					t.Error("the buffer was not given back")
				}
				c.Close()
				s2.Close()
			}
		})
	}
}
