package streamhttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// parseAll runs an sseParser over input (bounded to max) and describes
// every event, then the final id, retry and error, one per line.
func parseAll(r io.Reader, max int) string {
	p := newSSEParser(r, max)
	var b strings.Builder
	for {
		ev, err := p.Next()
		if err != nil {
			fmt.Fprintf(&b, "end id=%q retry=%v/%v err=%v", p.LastID, p.Retry, p.HasRetry, errKind(err))
			return b.String()
		}
		fmt.Fprintf(&b, "event type=%q id=%q data=%q\n", ev.Type, ev.ID, ev.Data)
	}
}

// errKind names an error for comparisons.
func errKind(err error) string {
	switch {
	case err == io.EOF:
		return "EOF"
	case errors.Is(err, errEventTooLarge):
		return "too large"
	}
	return err.Error()
}

func TestSSEParser(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one event", "data: hi\n\n",
			"event type=\"\" id=\"\" data=\"hi\"\nend id=\"\" retry=0s/false err=EOF"},
		{"data lines joined", "data: a\ndata:b\ndata:  c\n\n",
			"event type=\"\" id=\"\" data=\"a\\nb\\n c\"\nend id=\"\" retry=0s/false err=EOF"},
		{"CRLF", "event: message\r\nid: 7\r\ndata: x\r\n\r\n",
			"event type=\"message\" id=\"7\" data=\"x\"\nend id=\"7\" retry=0s/false err=EOF"},
		{"CR", "data: x\rdata: y\r\r",
			"event type=\"\" id=\"\" data=\"x\\ny\"\nend id=\"\" retry=0s/false err=EOF"},
		{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n",
			"event type=\"\" id=\"\" data=\"a\\nb\\nc\"\nend id=\"\" retry=0s/false err=EOF"},
		{"BOM", "\uFEFFdata: x\n\n",
			"event type=\"\" id=\"\" data=\"x\"\nend id=\"\" retry=0s/false err=EOF"},
		{"BOM only once", "\uFEFF\n\uFEFFdata: x\n\n",
			"end id=\"\" retry=0s/false err=EOF"},
		{"comments", ": hello\n:\ndata: x\n: between\n\n",
			"event type=\"\" id=\"\" data=\"x\"\nend id=\"\" retry=0s/false err=EOF"},
		{"priming event sets id and retry", "id: p1\nretry: 500\ndata: \n\n",
			"event type=\"\" id=\"p1\" data=\"\"\nend id=\"p1\" retry=500ms/true err=EOF"},
		{"id without data", "id: p1\n\n",
			"end id=\"p1\" retry=0s/false err=EOF"},
		{"id kept across events", "id: 1\ndata: a\n\ndata: b\n\n",
			"event type=\"\" id=\"1\" data=\"a\"\nevent type=\"\" id=\"1\" data=\"b\"\nend id=\"1\" retry=0s/false err=EOF"},
		{"empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\n",
			"event type=\"\" id=\"1\" data=\"a\"\nevent type=\"\" id=\"\" data=\"b\"\nend id=\"\" retry=0s/false err=EOF"},
		{"id with NUL ignored", "id: 1\n\nid: a\x00b\ndata: x\n\n",
			"event type=\"\" id=\"1\" data=\"x\"\nend id=\"1\" retry=0s/false err=EOF"},
		{"id of an unfinished event not kept", "id: 1\n\nid: 2\ndata: x\n",
			"end id=\"1\" retry=0s/false err=EOF"},
		{"bad retry ignored", "retry: 1s\nretry: -5\nretry:\nretry: 20\nretry: 3x\n\n",
			"end id=\"\" retry=20ms/true err=EOF"},
		{"huge retry capped", "retry: 99999999999999999999999\n\n",
			"end id=\"\" retry=596h31m23.648s/true err=EOF"},
		{"field without colon", "data\ndata\n\n",
			"event type=\"\" id=\"\" data=\"\\n\"\nend id=\"\" retry=0s/false err=EOF"},
		{"only one space dropped", "data:  x \n\n",
			"event type=\"\" id=\"\" data=\" x \"\nend id=\"\" retry=0s/false err=EOF"},
		{"unknown fields ignored", "foo: bar\ndata: x\nDATA: y\n\n",
			"event type=\"\" id=\"\" data=\"x\"\nend id=\"\" retry=0s/false err=EOF"},
		{"event type reset after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n",
			"event type=\"a\" id=\"\" data=\"1\"\nevent type=\"\" id=\"\" data=\"2\"\nend id=\"\" retry=0s/false err=EOF"},
		{"unfinished event dropped", "data: x\n\ndata: y\n",
			"event type=\"\" id=\"\" data=\"x\"\nend id=\"\" retry=0s/false err=EOF"},
		{"unfinished line dropped", "data: x",
			"end id=\"\" retry=0s/false err=EOF"},
		{"line too long", "data: " + strings.Repeat("x", 64+lineSlack) + "\n\n",
			"end id=\"\" retry=0s/false err=too large"},
		{"data one byte too long", strings.Repeat("data: 0123456789\n", 5) + "data: 0123456789\n\n",
			"end id=\"\" retry=0s/false err=too large"},
		{"data at the limit", strings.Repeat("data: 0123456789\n", 5) + "data: 012345678\n\n",
			"event type=\"\" id=\"\" data=\"0123456789\\n0123456789\\n0123456789\\n0123456789\\n0123456789\\n012345678\"\nend id=\"\" retry=0s/false err=EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseAll(strings.NewReader(tt.in), 64); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if got := parseAll(iotest.OneByteReader(strings.NewReader(tt.in)), 64); got != tt.want {
				t.Errorf("one byte at a time: got\n%s\nwant\n%s", got, tt.want)
			}
			if got := refParse([]byte(tt.in), 64); got != tt.want {
				t.Errorf("reference parser: got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestSSEParserReadError: a reading error other than EOF is returned,
// wrapped.
func TestSSEParserReadError(t *testing.T) {
	boom := errors.New("boom")
	p := newSSEParser(io.MultiReader(strings.NewReader("data: x\n\ndata: y\n"), iotest.ErrReader(boom)), 64)
	if ev, err := p.Next(); err != nil || string(ev.Data) != "x" {
		t.Fatalf("first = %q, %v", ev.Data, err)
	}
	if _, err := p.Next(); !errors.Is(err, boom) {
		t.Fatalf("second: %v, want boom", err)
	}
}

// TestSSEParserCRAtChunkEnd: a CR that ends one read and the LF that
// starts the next are one line ending, and the parser does not wait for
// the byte after a CR before returning the line.
func TestSSEParserCRAtChunkEnd(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	p := newSSEParser(pr, 64)
	got := make(chan string, 2)
	go func() {
		for {
			ev, err := p.Next()
			if err != nil {
				close(got)
				return
			}
			got <- string(ev.Data)
		}
	}()
	_, _ = io.WriteString(pw, "data: a\r\r") // the event is complete: no need to see more
	if d := within(t, got, 10*time.Second, "the event ending in CR"); d != "a" {
		t.Fatalf("first = %q", d)
	}
	_, _ = io.WriteString(pw, "\ndata: b\r")
	_, _ = io.WriteString(pw, "\n\r\n")
	if d := within(t, got, 10*time.Second, "the second event"); d != "b" {
		t.Fatalf("second = %q", d)
	}
	pw.Close()
}

// refParse is a second, simple reading of the event-stream format that
// works on the whole input at once, for comparison with sseParser.
func refParse(in []byte, max int) string {
	in = bytes.TrimPrefix(in, []byte("\uFEFF"))
	var lines [][]byte
	for len(in) > 0 {
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			break // an unfinished line is dropped (unless too long)
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var b strings.Builder
	var data []byte
	hasData := false
	typ, idBuf, lastID := "", "", ""
	var retry time.Duration
	hasRetry := false
	end := func(kind string) string {
		fmt.Fprintf(&b, "end id=%q retry=%v/%v err=%s", lastID, retry, hasRetry, kind)
		return b.String()
	}
	for _, line := range lines {
		if len(line) > max+lineSlack {
			return end("too large")
		}
		if len(line) == 0 {
			lastID = idBuf
			if hasData {
				d := bytes.TrimSuffix(data, []byte("\n"))
				fmt.Fprintf(&b, "event type=%q id=%q data=%q\n", typ, lastID, d)
			}
			data, hasData, typ = nil, false, ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "event":
			typ = string(value)
		case "data":
			data = append(append(data, value...), '\n')
			hasData = true
			if len(data) > max+1 {
				return end("too large")
			}
		case "id":
			if !bytes.Contains(value, []byte{0}) {
				idBuf = string(value)
			}
		case "retry":
			if ms, ok := parseDigits(value); ok {
				retry, hasRetry = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
	if len(in) > max+lineSlack {
		return end("too large")
	}
	return end("EOF")
}

// FuzzSSEParser checks the parser against the reference reading, whole and
// one byte at a time, with a small limit so that limits are hit too.
func FuzzSSEParser(f *testing.F) {
	for _, s := range []string{
		"data: hi\n\n",
		"\uFEFFid: 1\r\nretry: 500\r\ndata: \r\n\r\n",
		"event: message\rdata: {\"a\":\r\rdata: 1}\n\n",
		": comment\ndata\nid: x\x00y\n\n",
		"data: " + strings.Repeat("z", 80) + "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 48
		want := refParse(in, max)
		if got := parseAll(bytes.NewReader(in), max); got != want {
			t.Fatalf("input %q:\nparser\n%s\nreference\n%s", in, got, want)
		}
		if got := parseAll(iotest.OneByteReader(bytes.NewReader(in)), max); got != want {
			t.Fatalf("input %q, one byte at a time:\nparser\n%s\nreference\n%s", in, got, want)
		}
	})
}
