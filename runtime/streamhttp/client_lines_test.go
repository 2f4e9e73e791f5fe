package streamhttp

import (
	"context"
	"testing"
)

// TestClientReusesReadLines: a message from the server is copied into a
// line that Read hands back once it has been read whole, so that a
// stream of notifications allocates no line per message (one each
// before), and what Read returns is each message as sent.
func TestClientReusesReadLines(t *testing.T) {
	s, err := Dial(context.Background(), "http://127.0.0.1:1/mcp", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":22}}`,
	}
	buf := make([]byte, 40) // shorter than a message: Read returns it in pieces
	roundTrip := func(msg string) string {
		var pending pendingIDs
		if !s.take([]byte(" "+msg+"\n"), &pending) {
			t.Fatal("take reported the stream ended")
		}
		var got []byte
		for len(got) == 0 || got[len(got)-1] != '\n' {
			n, err := s.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, buf[:n]...)
		}
		return string(got)
	}
	for i := range 3 {
		for _, m := range msgs {
			if got := roundTrip(m); got != m+"\n" {
				t.Fatalf("round %d: Read returned %q, want %q", i, got, m+"\n")
			}
		}
	}
	raw := []byte(msgs[1])
	var pending pendingIDs
	n := testing.AllocsPerRun(100, func() {
		if !s.take(raw, &pending) {
			t.Fatal("take reported the stream ended")
		}
		for {
			k, err := s.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			if buf[k-1] == '\n' {
				break
			}
		}
	})
	if n != 0 {
		t.Errorf("take and Read of one message: %v allocations, want 0", n)
	}
}
