package framing_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

func TestNDJSONReader(t *testing.T) {
	small := framing.Limits{MaxMessageSize: 10}
	long := framing.Limits{MaxMessageSize: 5000}
	runReaderCases(t, framing.NDJSON, []readerCase{
		{name: "empty stream", in: "", want: []outcome{wantEOF}},
		{name: "one line", in: "{\"a\":1}\n", want: []outcome{msg(`{"a":1}`), wantEOF}},
		{name: "non-ASCII", in: "\"héllo ✓\"\n", want: []outcome{msg(`"héllo ✓"`), wantEOF}},
		{name: "back to back", in: "1\n[2]\n{\"3\":3}\n", want: []outcome{msg(`1`), msg(`[2]`), msg(`{"3":3}`), wantEOF}},
		{name: "inner CR kept", in: "[1,\r2]\r\n", want: []outcome{msg("[1,\r2]"), wantEOF}},
		{name: "surrounding spaces kept", in: "  {} \t\n", want: []outcome{msg("  {} \t"), wantEOF}},
		{name: "only blank lines", in: "\n\r\n \t\n", want: []outcome{wantEOF}},
		// Decision: an unterminated final line is a message.
		{name: "final line without newline", in: "1\n{\"last\":true}", want: []outcome{msg(`1`), msg(`{"last":true}`), wantEOF}},
		{name: "only line without newline", in: "[]", want: []outcome{msg(`[]`), wantEOF}},
		{name: "final blank line without newline", in: "1\n  ", want: []outcome{msg(`1`), wantEOF}},
		{name: "final line ending in CR", in: "1\r", want: []outcome{msg(`1`), wantEOF}},

		// Limits.
		{name: "line at the limit", in: "\"12345678\"\n", limits: small, want: []outcome{msg(`"12345678"`), wantEOF}},
		{name: "CRLF line at the limit", in: "\"12345678\"\r\n", limits: small, want: []outcome{msg(`"12345678"`), wantEOF}},
		{
			name:   "long line at the limit",
			in:     strings.Repeat("7", 5000) + "\r\n1\n",
			limits: long,
			want:   []outcome{msg(strings.Repeat("7", 5000)), msg(`1`), wantEOF},
		},
		{
			name:   "long line one over the limit",
			in:     strings.Repeat("7", 5001) + "\r\n1\n",
			limits: long,
			want:   []outcome{wantTooLarge, msg(`1`), wantEOF},
		},
		{
			name:   "very long lines then valid",
			in:     strings.Repeat("7", 20000) + "\n" + strings.Repeat("8", 9000) + "\n[true]\n",
			limits: long,
			want:   []outcome{wantTooLarge, wantTooLarge, msg(`[true]`), wantEOF},
		},
		// The reader buffers 4096 bytes, so these lines end with a '\r'
		// at the end of one buffer and a '\n' at the start of the next.
		{
			name:   "CRLF split across buffers at the limit",
			in:     strings.Repeat("7", 4095) + "\r\n1\n",
			limits: framing.Limits{MaxMessageSize: 4095},
			want:   []outcome{msg(strings.Repeat("7", 4095)), msg(`1`), wantEOF},
		},
		{
			name:   "CRLF after a full buffer at the limit",
			in:     strings.Repeat("7", 4096) + "\r\n1\n",
			limits: framing.Limits{MaxMessageSize: 4096},
			want:   []outcome{msg(strings.Repeat("7", 4096)), msg(`1`), wantEOF},
		},
		{
			name:   "CRLF after a full buffer one over the limit",
			in:     strings.Repeat("7", 4096) + "\r\n1\n",
			limits: framing.Limits{MaxMessageSize: 4095},
			want:   []outcome{wantTooLarge, msg(`1`), wantEOF},
		},
		{
			name: "long line under the default limit",
			in:   strings.Repeat("7", 100_000) + "\n",
			want: []outcome{msg(strings.Repeat("7", 100_000)), wantEOF},
		},
	})
}

func TestNDJSONWriterOneLine(t *testing.T) {
	indented := []byte("{\n  \"a\": [\r\n    1,\n    \"x\\ny\"\n  ]\r}")
	var wire bytes.Buffer
	cw := &countingWriter{w: &wire}
	w := framing.NDJSON.NewWriter(cw)
	if err := w.Write(indented); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte(`2`)); err != nil {
		t.Fatal(err)
	}
	want := "{   \"a\": [      1,     \"x\\ny\"   ] }\n2\n"
	if wire.String() != want {
		t.Errorf("wire = %q, want %q", wire.String(), want)
	}
	if cw.calls != 2 {
		t.Errorf("%d Write calls for 2 messages", cw.calls)
	}
	r := framing.NDJSON.NewReader(&wire, framing.Limits{})
	got, err := r.Read()
	if err != nil || !json.Valid(got) {
		t.Fatalf("Read = %q, %v; want valid JSON", got, err)
	}
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(indented, &b) != nil || !jsonEqual(a, b) {
		t.Errorf("read back %q, which differs from %q", got, indented)
	}
}

func TestNDJSONWriterRefusesBlank(t *testing.T) {
	for _, m := range []string{"", " ", "\n", " \r\n\t"} {
		var wire bytes.Buffer
		if err := framing.NDJSON.NewWriter(&wire).Write([]byte(m)); err == nil {
			t.Errorf("Write(%q) succeeded, want an error", m)
		}
		if wire.Len() != 0 {
			t.Errorf("Write(%q) wrote %q", m, wire.String())
		}
	}
}

// TestNDJSONReadAllocs checks a small message costs one allocation.
func TestNDJSONReadAllocs(t *testing.T) {
	const m = `{"jsonrpc":"2.0","method":"exit"}`
	r := framing.NDJSON.NewReader(&cycleReader{data: []byte(m + "\r\n\n")}, framing.Limits{})
	allocs := testing.AllocsPerRun(1000, func() {
		if got, err := r.Read(); err != nil || string(got) != m {
			t.Fatalf("Read = %q, %v", got, err)
		}
	})
	if allocs != 1 {
		t.Errorf("Read made %v allocations, want 1", allocs)
	}
}

// TestNDJSONWriteAllocs checks a writer reuses its buffer.
func TestNDJSONWriteAllocs(t *testing.T) {
	w := framing.NDJSON.NewWriter(io.Discard)
	m := []byte("{\"jsonrpc\":\"2.0\",\n\"method\":\"exit\"}")
	allocs := testing.AllocsPerRun(1000, func() {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Write made %v allocations, want 0", allocs)
	}
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// repeatReader yields one byte forever.
type repeatReader byte

func (c repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}
