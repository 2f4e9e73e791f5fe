package framing_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// cl frames body with a plain Content-Length header.
func cl(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func TestContentLengthWriterWire(t *testing.T) {
	var wire bytes.Buffer
	w := framing.ContentLength.NewWriter(&wire)
	body := `"héllo ✓"`
	if len(body) != 12 {
		t.Fatalf("bad test: body is %d bytes", len(body))
	}
	for _, m := range []string{body, `{}`, ``} {
		if err := w.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	want := "Content-Length: 12\r\n\r\n\"héllo ✓\"" + "Content-Length: 2\r\n\r\n{}" + "Content-Length: 0\r\n\r\n"
	if wire.String() != want {
		t.Errorf("wire = %q, want %q", wire.String(), want)
	}
}

func TestContentLengthReader(t *testing.T) {
	small := framing.Limits{MaxMessageSize: 10}
	runReaderCases(t, framing.ContentLength, []readerCase{
		// Well-formed input.
		{name: "empty stream", in: "", want: []outcome{wantEOF}},
		{name: "one message", in: cl(`{"a":1}`), want: []outcome{msg(`{"a":1}`), wantEOF}},
		{name: "non-ASCII body counts bytes", in: "Content-Length: 12\r\n\r\n\"héllo ✓\"", want: []outcome{msg(`"héllo ✓"`), wantEOF}},
		{name: "back to back", in: cl(`1`) + cl(`[2]`) + cl(`{"3":3}`), want: []outcome{msg(`1`), msg(`[2]`), msg(`{"3":3}`), wantEOF}},
		{name: "lower case name", in: "content-length: 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "upper case name", in: "CONTENT-LENGTH: 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "mixed case name", in: "cOnTeNt-LeNgTh: 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "no space after colon", in: "Content-Length:2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "spaces and tabs around value", in: "Content-Length: \t 2 \t\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "space before colon", in: "Content-Length : 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "leading zeros", in: "Content-Length: 0002\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		// Decision: a bare LF ends a header line too.
		{name: "body at the limit", in: cl(`"12345678"`), limits: small, want: []outcome{msg(`"12345678"`), wantEOF}},

		// Oversized bodies are skipped and reading continues.
		{name: "oversized then valid", in: cl(`"123456789"`) + cl(`{}`), limits: small, want: []outcome{wantTooLarge, msg(`{}`), wantEOF}},
		{
			name:   "two oversized then valid",
			in:     cl(strings.Repeat("x", 5000)) + cl(`"0123456789"`) + cl(`[1]`),
			limits: small,
			want:   []outcome{wantTooLarge, wantTooLarge, msg(`[1]`), wantEOF},
		},
		{name: "oversized and truncated", in: "Content-Length: 100\r\n\r\n" + strings.Repeat("x", 50), limits: small, want: []outcome{wantUnexpectedEOF}},

		// Malformed header sections put the stream out of sync.
		{name: "empty header section", in: "\r\n" + cl(`{}`), want: []outcome{wantMalformed}},
		{name: "trailing garbage", in: "Content-Length: 2x\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "plus sign", in: "Content-Length: +2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "hex", in: "Content-Length: 0x2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "inner space", in: "Content-Length: 1 2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "long overflow", in: "Content-Length: " + strings.Repeat("9", 40) + "\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "CR inside value", in: "Content-Length: 2\r\r\n\r\n{}", want: []outcome{wantMalformed}},

		// Header section size limit.
		{
			name:   "header section at the limit",
			in:     "Content-Length: 2\r\nX: " + strings.Repeat("a", 10) + "\r\n\r\n{}",
			limits: framing.Limits{MaxHeaderSize: 19 + 15 + 2},
			want:   []outcome{msg(`{}`), wantEOF},
		},

		// The stream ends inside a message.
		{name: "EOF inside large body", in: "Content-Length: 200000\r\n\r\n" + strings.Repeat("x", 150000), want: []outcome{wantUnexpectedEOF}},
	})
}

// TestContentLengthBodyGrowsAsBytesArrive checks bodies larger than the
// first allocation are read correctly.
func TestContentLengthBodyGrowsAsBytesArrive(t *testing.T) {
	for _, n := range []int{64<<10 - 1, 64 << 10, 64<<10 + 1, 128 << 10, 300_001} {
		body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		r := framing.ContentLength.NewReader(strings.NewReader(cl(string(body))+cl(`1`)), framing.Limits{})
		got, err := r.Read()
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%d-byte body: got %d bytes, %v", n, len(got), err)
		}
		if got, err := r.Read(); err != nil || string(got) != `1` {
			t.Fatalf("after %d-byte body: got %q, %v", n, got, err)
		}
	}
}

// TestContentLengthReadAllocs checks a small message costs one allocation.
func TestContentLengthReadAllocs(t *testing.T) {
	r := framing.ContentLength.NewReader(&cycleReader{data: []byte(
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + cl(`{"jsonrpc":"2.0","method":"exit"}`))}, framing.Limits{})
	allocs := testing.AllocsPerRun(1000, func() {
		if m, err := r.Read(); err != nil || string(m) != `{"jsonrpc":"2.0","method":"exit"}` {
			t.Fatalf("Read = %q, %v", m, err)
		}
	})
	if allocs != 1 {
		t.Errorf("Read made %v allocations, want 1", allocs)
	}
}

// TestContentLengthWriteAllocs checks a writer reuses its buffer.
func TestContentLengthWriteAllocs(t *testing.T) {
	w := framing.ContentLength.NewWriter(io.Discard)
	m := []byte(`{"jsonrpc":"2.0","method":"exit"}`)
	allocs := testing.AllocsPerRun(1000, func() {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Write made %v allocations, want 0", allocs)
	}
}

// zeroReader yields zero bytes forever.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
