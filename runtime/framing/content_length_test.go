package framing_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
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
		{name: "empty body", in: cl(``) + cl(`1`), want: []outcome{msg(``), msg(`1`), wantEOF}},
		{name: "lower case name", in: "content-length: 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "upper case name", in: "CONTENT-LENGTH: 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "mixed case name", in: "cOnTeNt-LeNgTh: 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "no space after colon", in: "Content-Length:2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "spaces and tabs around value", in: "Content-Length: \t 2 \t\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "space before colon", in: "Content-Length : 2\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "leading zeros", in: "Content-Length: 0002\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{
			name: "extra headers ignored",
			in:   "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\nX-Other:\r\n\r\n{}",
			want: []outcome{msg(`{}`), wantEOF},
		},
		{name: "duplicate equal lengths", in: "Content-Length: 2\r\ncontent-length: 02\r\n\r\n{}", want: []outcome{msg(`{}`), wantEOF}},
		// Decision: a bare LF ends a header line too.
		{name: "LF-only line ends", in: "Content-Length: 2\n\n{}" + "Content-Length: 1\n\n1", want: []outcome{msg(`{}`), msg(`1`), wantEOF}},
		{name: "mixed line ends", in: "Content-Type: x\nContent-Length: 2\r\n\n{}", want: []outcome{msg(`{}`), wantEOF}},
		{name: "body at the limit", in: cl(`"12345678"`), limits: small, want: []outcome{msg(`"12345678"`), wantEOF}},
		{
			name: "long ignored header line",
			in:   "X-Long: " + strings.Repeat("a", 6000) + "\r\n" + cl(`{}`),
			want: []outcome{msg(`{}`), wantEOF},
		},

		// Oversized bodies are skipped and reading continues.
		{name: "oversized then valid", in: cl(`"123456789"`) + cl(`{}`), limits: small, want: []outcome{wantTooLarge, msg(`{}`), wantEOF}},
		{
			name:   "two oversized then valid",
			in:     cl(strings.Repeat("x", 5000)) + cl(`"0123456789"`) + cl(`[1]`),
			limits: small,
			want:   []outcome{wantTooLarge, wantTooLarge, msg(`[1]`), wantEOF},
		},
		{name: "oversized and truncated", in: "Content-Length: 100\r\n\r\n" + strings.Repeat("x", 50), limits: small, want: []outcome{wantUnexpectedEOF}},
		{name: "huge announced length", in: "Content-Length: 1099511627776\r\n\r\n{}", limits: small, want: []outcome{wantUnexpectedEOF}},
		{name: "max int64 length", in: "Content-Length: 9223372036854775807\r\n\r\n{}", want: []outcome{wantUnexpectedEOF}},

		// Malformed header sections put the stream out of sync.
		{name: "missing Content-Length", in: "Content-Type: x\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "empty header section", in: "\r\n" + cl(`{}`), want: []outcome{wantMalformed}},
		{name: "blank line after body", in: cl(`{}`) + "\r\n" + cl(`{}`), want: []outcome{msg(`{}`), wantMalformed}},
		{name: "negative", in: "Content-Length: -1\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "non-numeric", in: "Content-Length: abc\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "trailing garbage", in: "Content-Length: 2x\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "plus sign", in: "Content-Length: +2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "hex", in: "Content-Length: 0x2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "inner space", in: "Content-Length: 1 2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "empty value", in: "Content-Length:\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "overflow", in: "Content-Length: 9223372036854775808\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "long overflow", in: "Content-Length: " + strings.Repeat("9", 40) + "\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "conflicting duplicates", in: "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "line without colon", in: "Content-Length 2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "empty header name", in: ": 2\r\nContent-Length: 2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "non-ASCII header name", in: "Content-Typé: x\r\nContent-Length: 2\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "non-ASCII digit", in: "Content-Length: ２\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "CR inside value", in: "Content-Length: 2\r\r\n\r\n{}", want: []outcome{wantMalformed}},
		{name: "valid then malformed", in: cl(`1`) + "garbage\r\n\r\n", want: []outcome{msg(`1`), wantMalformed}},

		// Header section size limit.
		{
			name:   "header section at the limit",
			in:     "Content-Length: 2\r\nX: " + strings.Repeat("a", 10) + "\r\n\r\n{}",
			limits: framing.Limits{MaxHeaderSize: 19 + 15 + 2},
			want:   []outcome{msg(`{}`), wantEOF},
		},
		{
			name:   "header section one byte over",
			in:     "Content-Length: 2\r\nX: " + strings.Repeat("a", 11) + "\r\n\r\n{}",
			limits: framing.Limits{MaxHeaderSize: 19 + 15 + 2},
			want:   []outcome{wantHeaderTooLarge},
		},
		{name: "many header lines", in: strings.Repeat("X: y\r\n", 2000) + cl(`{}`), want: []outcome{wantHeaderTooLarge}},
		{name: "one endless header line", in: "X: " + strings.Repeat("a", 20000), want: []outcome{wantHeaderTooLarge}},
		{name: "endless line without newline", in: strings.Repeat("a", 20000), want: []outcome{wantHeaderTooLarge}},

		// The stream ends inside a message.
		{name: "EOF inside header line", in: "Content-Len", want: []outcome{wantUnexpectedEOF}},
		{name: "EOF after header line", in: "Content-Length: 2\r\n", want: []outcome{wantUnexpectedEOF}},
		{name: "EOF before body", in: "Content-Length: 2\r\n\r\n", want: []outcome{wantUnexpectedEOF}},
		{name: "EOF inside body", in: "Content-Length: 5\r\n\r\n{}", want: []outcome{wantUnexpectedEOF}},
		{name: "EOF inside second message", in: cl(`1`) + "Content-Length: 3\r\n\r\n[", want: []outcome{msg(`1`), wantUnexpectedEOF}},
		{name: "EOF inside large body", in: "Content-Length: 200000\r\n\r\n" + strings.Repeat("x", 150000), want: []outcome{wantUnexpectedEOF}},
	})
}

// TestContentLengthAnnouncedSizeNotAllocated checks that the reader never
// allocates the announced size before the bytes arrive.
func TestContentLengthAnnouncedSizeNotAllocated(t *testing.T) {
	cases := []struct {
		name     string
		in       io.Reader
		limits   framing.Limits
		want     []outcome
		maxAlloc uint64
	}{
		{
			name:     "huge length over the limit",
			in:       strings.NewReader("Content-Length: 1099511627776\r\n\r\n" + strings.Repeat("x", 100)),
			limits:   framing.Limits{MaxMessageSize: 1 << 10},
			want:     []outcome{wantUnexpectedEOF},
			maxAlloc: 64 << 10,
		},
		{
			name:     "huge length within the limit",
			in:       strings.NewReader("Content-Length: 1073741824\r\n\r\n" + strings.Repeat("x", 100)),
			limits:   framing.Limits{MaxMessageSize: 1 << 30},
			want:     []outcome{wantUnexpectedEOF},
			maxAlloc: 512 << 10,
		},
		{
			name: "default limit announced, little sent",
			in:   strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n{", framing.DefaultMaxMessageSize)),
			want: []outcome{wantUnexpectedEOF},
			// The default limit is 32 MiB; well under 1 MiB may be used.
			maxAlloc: 512 << 10,
		},
		{
			name: "64 MiB oversized body streamed then valid",
			in: io.MultiReader(
				strings.NewReader("Content-Length: 67108864\r\n\r\n"),
				io.LimitReader(zeroReader{}, 64<<20),
				strings.NewReader(cl(`{}`)),
			),
			limits:   framing.Limits{MaxMessageSize: 1 << 10},
			want:     []outcome{wantTooLarge, msg(`{}`), wantEOF},
			maxAlloc: 256 << 10,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := framing.ContentLength.NewReader(tc.in, tc.limits)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			checkOutcomes(t, framing.ContentLength, r, tc.want)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > tc.maxAlloc {
				t.Errorf("allocated %d bytes, want at most %d", got, tc.maxAlloc)
			}
		})
	}
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
