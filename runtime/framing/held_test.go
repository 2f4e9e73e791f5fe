package framing

import (
	"strings"
	"testing"
)

// TestHeld: after a Read, Held reports whether the next message's bytes
// came with the same reads from the stream.
func TestHeld(t *testing.T) {
	for _, tc := range []struct {
		f    Framing
		two  string
		want string
	}{
		{NDJSON, "{\"a\":1}\n{\"b\":2}\n", `{"b":2}`},
		{ContentLength, "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 7\r\n\r\n{\"b\":2}", `{"b":2}`},
	} {
		r := tc.f.NewReader(strings.NewReader(tc.two), Limits{})
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
		if !r.(Holder).Held() {
			t.Errorf("%s: the second message was read with the first, but Held is false", tc.f)
		}
		if m, err := r.Read(); err != nil || string(m) != tc.want {
			t.Fatalf("%s: second message %q, %v", tc.f, m, err)
		}
		if r.(Holder).Held() {
			t.Errorf("%s: nothing follows the second message, but Held is true", tc.f)
		}
	}
}
