package rpcimpl

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/jsonstr"
	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestAppendStringLong checks that a string too long for the buffer's
// room is appended into a buffer from the pool when one is at hand, with
// json.Marshal's bytes, leaving the caller's buffer as it was.
func TestAppendStringLong(t *testing.T) {
	s := strings.Repeat("x<", 1<<19)
	small := append(make([]byte, 0, 512), "ab,"...)
	got := AppendString(small, s)
	if want := jsonstr.Append([]byte("ab,"), s, true); !bytes.Equal(got, want) {
		t.Fatal("AppendString of a long string differs from jsonstr.Append")
	}
	if string(small[:cap(small)][:3]) != "ab," {
		t.Error("AppendString changed the caller's buffer")
	}
	bigbuf.Put(got)
	s = strings.Repeat("x", 1<<20)
	allocs := testing.AllocsPerRun(20, func() {
		bigbuf.Put(AppendString(small[:0], s))
	})
	if allocs != 0 {
		t.Errorf("appending a 1 MiB string with a buffer pooled: %v allocations, want 0", allocs)
	}
}

// longText appends itself as an object with one long string member, as a
// generated type does.
type longText struct{ text string }

func (l longText) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"text":`...)
	b = AppendString(b, l.text)
	return append(b, '}'), nil
}

// TestLongMessageBuffersReused checks that sending messages of 1 MiB
// reuses their buffers: the connection pools the buffer of a written
// message, and the next long string is encoded into it.
func TestLongMessageBuffersReused(t *testing.T) {
	// The writer puts a message's buffer back after the peer has read it,
	// so the next message may now and then be encoded before that and miss
	// it (under -race on a loaded machine, a few times a run): enough
	// messages make such a miss a small part of the mean.
	const count = 64
	client, server := net.Pipe()
	conn := jsonrpc.NewConn(client, jsonrpc.Options{Framing: framing.NDJSON})
	defer conn.Close()
	defer server.Close()
	// The peer hands every frame back, so that only the sender's buffers
	// are measured.
	r := framing.NDJSON.NewReader(server, framing.Limits{})
	read := make(chan error, count+3)
	go func() {
		for {
			b, err := r.Read()
			read <- err
			if err != nil {
				return
			}
			r.(framing.Recycler).Recycle(b)
		}
	}()
	text := longText{strings.Repeat("y", 1<<20)}
	notify := func() {
		if err := conn.Notify(context.Background(), "long", text); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-read:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the notification did not arrive")
		}
	}
	for range 3 { // warm the pool
		notify()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range count {
		notify()
	}
	runtime.ReadMemStats(&after)
	perMessage := (after.TotalAlloc - before.TotalAlloc) / count
	// With nothing pooled a message takes 2.2 MiB (its encoding and its
	// frame); a buffer missed once in the run costs 17 KB a message.
	const bound = 128 << 10
	t.Logf("%d bytes allocated per 1 MiB message", perMessage)
	if perMessage > bound {
		t.Errorf("sending a 1 MiB message allocated %d bytes, want at most %d", perMessage, bound)
	}
}
