package framing_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

var update = flag.Bool("update", false, "rewrite RELIABILITY.md from the reliability cases")

// reliabilityFile is the golden file rendered from reliabilityCases.
const reliabilityFile = "RELIABILITY.md"

// reliabilityCase is one row of RELIABILITY.md: hostile or broken input
// for one framing, and what successive Reads must return.
type reliabilityCase struct {
	name string
	f    framing.Framing
	// in is the input. For inputs too large to keep in memory, src builds
	// it instead, and show describes it.
	in   string
	src  func() io.Reader
	show string
	// limits are the reader's limits; zero fields take the defaults.
	limits framing.Limits
	// want are the results of successive Reads; every error outcome
	// names the exact Reason.
	want []outcome
	// maxAlloc, when set, bounds the bytes allocated while reading.
	maxAlloc uint64
	// note explains the outcome further, for the table.
	note string
	// check, when set, checks more about the messages read.
	check func(t *testing.T, msgs [][]byte)
}

// Outcomes with the exact reason the *framing.Error must carry.
func tooLargeR(reason string) outcome       { return outcome{kind: tooLarge, reason: reason} }
func headerTooLargeR(reason string) outcome { return outcome{kind: headerTooLarge, reason: reason} }
func malformedR(reason string) outcome      { return outcome{kind: malformed, reason: reason} }
func unexpectedEOFR(reason string) outcome  { return outcome{kind: unexpectedEOF, reason: reason} }

const (
	headerTooBig = "header section exceeds 8192 bytes"
	eofInHeader  = "stream ended inside header section"
	eofInBody    = "stream ended inside body"
	noLength     = "missing Content-Length header"
	ndTooLong10  = "line exceeds limit of 10 bytes"
)

var (
	clF     = framing.ContentLength
	ndF     = framing.NDJSON
	limit10 = framing.Limits{MaxMessageSize: 10}
	oneKiB  = framing.Limits{MaxMessageSize: 1 << 10}
	ffBody  = "{\"s\":\"\xff\xfe\"}"
	nulBody = "{\"s\":\"a\x00b\"}"
)

// reliabilityCases are the framing rows of the reliability table.
var reliabilityCases = []reliabilityCase{
	// Content-Length: the length header.
	{name: "missing Content-Length", f: clF, in: "Content-Type: x\r\n\r\n{}", want: []outcome{malformedR(noLength)}},
	{name: "negative Content-Length", f: clF, in: "Content-Length: -1\r\n\r\n{}", want: []outcome{malformedR(`negative Content-Length "-1"`)}},
	{name: "non-numeric Content-Length", f: clF, in: "Content-Length: abc\r\n\r\n{}", want: []outcome{malformedR(`invalid Content-Length "abc"`)}},
	{name: "empty Content-Length", f: clF, in: "Content-Length:\r\n\r\n{}", want: []outcome{malformedR("empty Content-Length value")}},
	{
		name: "Content-Length over int64", f: clF, in: "Content-Length: 9223372036854775808\r\n\r\n{}",
		want: []outcome{malformedR(`Content-Length "9223372036854775808" overflows int64`)},
	},
	{
		name: "Content-Length of max int64", f: clF, in: "Content-Length: 9223372036854775807\r\n\r\n{}", limits: oneKiB,
		want:     []outcome{unexpectedEOFR(eofInBody)},
		maxAlloc: 64 << 10,
		note:     "over the limit, so the body is discarded through the read buffer until the stream ends",
	},
	{
		name: "duplicate conflicting Content-Length", f: clF, in: "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
		want: []outcome{malformedR("conflicting Content-Length headers: 2 and 3")},
	},
	{
		name: "duplicate equal Content-Length", f: clF, in: "Content-Length: 2\r\ncontent-length: 02\r\n\r\n{}",
		want: []outcome{msg(`{}`), wantEOF},
	},
	{
		name: "length above the maximum then valid", f: clF, limits: oneKiB,
		src: func() io.Reader {
			return io.MultiReader(
				strings.NewReader("Content-Length: 67108864\r\n\r\n"),
				io.LimitReader(zeroReader{}, 64<<20),
				strings.NewReader(cl(`{}`)),
			)
		},
		show:     "`Content-Length: 67108864`, 64 MiB of body, then a valid frame; limit 1 KiB",
		want:     []outcome{tooLargeR("body of 67108864 bytes exceeds limit of 1024"), msg(`{}`), wantEOF},
		maxAlloc: 256 << 10,
		note:     "the body is discarded through the 4 KiB read buffer, never allocated",
	},
	{
		name: "length above the maximum, stream ends", f: clF, limits: oneKiB,
		in:       "Content-Length: 1099511627776\r\n\r\n" + strings.Repeat("x", 100),
		show:     "`Content-Length: 1099511627776` (1 TiB) and 100 body bytes; limit 1 KiB",
		want:     []outcome{unexpectedEOFR(eofInBody)},
		maxAlloc: 64 << 10,
	},
	{
		name: "large length within the maximum, little sent", f: clF, limits: framing.Limits{MaxMessageSize: 1 << 30},
		in:       "Content-Length: 1073741824\r\n\r\n" + strings.Repeat("x", 100),
		show:     "`Content-Length: 1073741824` (1 GiB) and 100 body bytes; limit 1 GiB",
		want:     []outcome{unexpectedEOFR(eofInBody)},
		maxAlloc: 512 << 10,
		note:     "the body buffer starts at 64 KiB and grows only as bytes arrive",
	},
	{
		name: "large length within the maximum, 1 MiB sent", f: clF, limits: framing.Limits{MaxMessageSize: 1 << 30},
		src: func() io.Reader {
			return io.MultiReader(strings.NewReader("Content-Length: 1073741824\r\n\r\n"), io.LimitReader(zeroReader{}, 1<<20))
		},
		show:     "`Content-Length: 1073741824` (1 GiB) and 1 MiB of body; limit 1 GiB",
		want:     []outcome{unexpectedEOFR(eofInBody)},
		maxAlloc: 8<<20 + 128<<10,
		note:     "the body buffer grows to at most eight times what has arrived",
	},
	{
		name: "default maximum announced, one byte sent", f: clF,
		in:       fmt.Sprintf("Content-Length: %d\r\n\r\n{", framing.DefaultMaxMessageSize),
		want:     []outcome{unexpectedEOFR(eofInBody)},
		maxAlloc: 512 << 10,
	},

	// Content-Length: line ends and the header section.
	{name: "LF-only line ends", f: clF, in: "Content-Length: 2\n\n{}Content-Length: 1\n\n1", want: []outcome{msg(`{}`), msg(`1`), wantEOF}, note: "decided: a bare LF ends a header line"},
	{name: "mixed CRLF and LF", f: clF, in: "Content-Type: x\nContent-Length: 2\r\n\n{}", want: []outcome{msg(`{}`), wantEOF}},
	{
		name: "header without line end, stream ends", f: clF, in: "Content-Length: 2{}",
		want: []outcome{unexpectedEOFR(eofInHeader)},
	},
	{
		name: "CR-only line ends", f: clF, in: "Content-Length: 2\r\r{}",
		want: []outcome{unexpectedEOFR(eofInHeader)},
		note: "a lone CR does not end a line, so the header never ends",
	},
	{
		name: "headers without line ends, stream continues", f: clF,
		in:   strings.Repeat("Content-Length: 2 {}", 500),
		show: "`Content-Length: 2 {}` 500 times, no line end",
		want: []outcome{headerTooLargeR(headerTooBig)},
	},
	{
		name: "endless header line", f: clF,
		src:      func() io.Reader { return io.MultiReader(strings.NewReader("X-Long: "), repeatReader('a')) },
		show:     "`X-Long: ` and then `a` forever",
		want:     []outcome{headerTooLargeR(headerTooBig)},
		maxAlloc: 64 << 10,
		note:     "reading stops at the limit",
	},
	{
		name: "header line over the limit", f: clF,
		in:   "X-Long: " + strings.Repeat("a", 9000) + "\r\n" + cl(`{}`),
		show: "`X-Long:` with a 9000-byte value, then a valid frame",
		want: []outcome{headerTooLargeR(headerTooBig)},
	},
	{
		name: "long header line within the limit", f: clF,
		in:   "X-Long: " + strings.Repeat("a", 6000) + "\r\n" + cl(`{}`),
		show: "`X-Long:` with a 6000-byte value, then a valid frame",
		want: []outcome{msg(`{}`), wantEOF},
	},
	{
		name: "too many headers", f: clF,
		in:   strings.Repeat("X: y\r\n", 2000) + cl(`{}`),
		show: "2000 lines `X: y`, then a valid frame",
		want: []outcome{headerTooLargeR(headerTooBig)},
		note: "decided: no separate header count; the 8 KiB header-section limit bounds it",
	},
	{
		name: "header section one byte over a set limit", f: clF, limits: framing.Limits{MaxHeaderSize: 36},
		in:   "Content-Length: 2\r\nX: " + strings.Repeat("a", 11) + "\r\n\r\n{}",
		show: "a 37-byte header section; header limit 36",
		want: []outcome{headerTooLargeR("header section exceeds 36 bytes")},
	},
	{
		name: "non-ASCII header name", f: clF, in: "Content-Typé: x\r\nContent-Length: 2\r\n\r\n{}",
		want: []outcome{malformedR("non-ASCII byte in header section")},
	},
	{
		name: "non-ASCII header value", f: clF, in: "Content-Length: ２\r\n\r\n{}",
		want: []outcome{malformedR("non-ASCII byte in header section")},
	},
	{
		name: "unknown headers", f: clF, in: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Other:\r\nContent-Length: 2\r\n\r\n{}",
		want: []outcome{msg(`{}`), wantEOF},
		note: "ignored",
	},
	{name: "header line without colon", f: clF, in: "Content-Length 2\r\n\r\n{}", want: []outcome{malformedR(`header line without colon: "Content-Length 2"`)}},
	{name: "empty header name", f: clF, in: ": 2\r\nContent-Length: 2\r\n\r\n{}", want: []outcome{malformedR("header line with empty name")}},
	{
		name: "NUL byte in Content-Length value", f: clF, in: "Content-Length: 2\x00\r\n\r\n{}",
		want: []outcome{malformedR(`invalid Content-Length "2\x00"`)},
	},
	{
		name: "NUL bytes before the header", f: clF, in: "\x00\x00Content-Length: 2\r\n\r\n{}",
		want: []outcome{malformedR(noLength)},
		note: "`\\x00\\x00Content-Length` is an unknown header name",
	},
	{
		name: "stray blank line between frames", f: clF, in: cl(`{}`) + "\r\n" + cl(`1`),
		want: []outcome{msg(`{}`), malformedR(noLength)},
		note: "a blank line ends an empty header section",
	},

	// Content-Length: the stream ends early, or the body is mis-sized.
	{name: "EOF inside a header line", f: clF, in: "Content-Len", want: []outcome{unexpectedEOFR(eofInHeader)}},
	{name: "EOF after the header lines", f: clF, in: "Content-Length: 2\r\n", want: []outcome{unexpectedEOFR(eofInHeader)}},
	{name: "EOF before the body", f: clF, in: "Content-Length: 2\r\n\r\n", want: []outcome{unexpectedEOFR(eofInBody)}},
	{name: "EOF inside the body", f: clF, in: cl(`1`) + "Content-Length: 5\r\n\r\n{}", want: []outcome{msg(`1`), unexpectedEOFR(eofInBody)}},
	{
		name: "body shorter than declared, next frame follows", f: clF, in: "Content-Length: 4\r\n\r\n{}" + cl(`1`),
		want: []outcome{msg(`{}Co`), malformedR(noLength)},
		note: "the body swallows the next frame's first 2 bytes; `ntent-Length: 1` is then an unknown header and the blank line ends a header section without a length",
	},
	{
		name: "body longer than declared by a newline", f: clF, in: "Content-Length: 2\r\n\r\n{}\r\n" + cl(`1`),
		want: []outcome{msg(`{}`), malformedR(noLength)},
		note: "the extra CRLF is read as an empty header section",
	},
	{
		name: "body longer than declared by garbage", f: clF, in: "Content-Length: 2\r\n\r\n{}xx" + cl(`1`),
		want: []outcome{msg(`{}`), malformedR(noLength)},
		note: "`xxContent-Length: 1` is an unknown header",
	},
	{
		name: "body longer than declared by garbage with a colon", f: clF, in: "Content-Length: 2\r\n\r\n{}:" + cl(`1`),
		want: []outcome{msg(`{}`), malformedR("header line with empty name")},
	},

	// Content-Length: the body's bytes.
	{
		name: "invalid UTF-8 in a body", f: clF, in: cl(ffBody),
		want:  []outcome{msg(ffBody), wantEOF},
		note:  "bytes passed through unchanged",
		check: checkInvalidUTF8,
	},
	{name: "NUL byte in a body", f: clF, in: cl(nulBody), want: []outcome{msg(nulBody), wantEOF}, note: "bytes passed through unchanged"},
	{name: "empty body", f: clF, in: cl(``) + cl(`1`), want: []outcome{msg(``), msg(`1`), wantEOF}},

	// Content-Length: garbage before a valid frame.
	{
		name: "garbage line then a valid frame", f: clF, in: "garbage\r\n" + cl(`{}`),
		want: []outcome{malformedR(`header line without colon: "garbage"`)},
		note: "out of sync; no resynchronisation is attempted",
	},
	{
		name: "binary garbage then a valid frame", f: clF, in: "\xff\xfe\x00\x01\r\n" + cl(`{}`),
		want: []outcome{malformedR("non-ASCII byte in header section")},
	},
	{
		name: "header-like garbage then a valid frame", f: clF, in: "garbage: 1\r\n" + cl(`{}`),
		want: []outcome{msg(`{}`), wantEOF},
		note: "the garbage is an unknown header of the valid frame",
	},
	{
		name: "endless garbage without newline then a valid frame", f: clF,
		in:   strings.Repeat("a", 20000) + "\r\n" + cl(`{}`),
		show: "20000 bytes `a`, CRLF, then a valid frame",
		want: []outcome{headerTooLargeR(headerTooBig)},
	},

	// NDJSON.
	{name: "LF and CRLF line ends", f: ndF, in: "1\n[2]\r\n", want: []outcome{msg(`1`), msg(`[2]`), wantEOF}},
	{
		name: "CR-only line ends", f: ndF, in: "1\r2\r",
		want: []outcome{msg("1\r2"), wantEOF},
		note: "a lone CR does not end a line; only the final CR is stripped",
	},
	{
		name: "line over the limit then valid", f: ndF, limits: oneKiB,
		src: func() io.Reader {
			return io.MultiReader(io.LimitReader(repeatReader('7'), 64<<20), strings.NewReader("\n{}\n"))
		},
		show:     "a 64 MiB line, then `{}`; limit 1 KiB",
		want:     []outcome{tooLargeR("line exceeds limit of 1024 bytes"), msg(`{}`), wantEOF},
		maxAlloc: 256 << 10,
		note:     "the line is discarded through the 4 KiB read buffer",
	},
	{
		name: "endless line, stream ends without newline", f: ndF, limits: oneKiB,
		src:      func() io.Reader { return io.LimitReader(repeatReader('7'), 64<<20) },
		show:     "64 MiB of `7`, no newline; limit 1 KiB",
		want:     []outcome{tooLargeR("line exceeds limit of 1024 bytes"), wantEOF},
		maxAlloc: 256 << 10,
	},
	{
		name: "line one byte over the limit then valid", f: ndF, limits: limit10, in: "\"123456789\"\r\n{}\n",
		want: []outcome{tooLargeR(ndTooLong10), msg(`{}`), wantEOF},
	},
	{
		name: "final line over the limit without newline", f: ndF, limits: limit10, in: "{}\n\"123456789\"",
		want: []outcome{msg(`{}`), tooLargeR(ndTooLong10), wantEOF},
	},
	{
		name: "EOF inside a line", f: ndF, in: "{}\n{\"a\":",
		want: []outcome{msg(`{}`), msg(`{"a":`), wantEOF},
		note: "decided: an unterminated final line is a message; NDJSON never reports io.ErrUnexpectedEOF",
	},
	{name: "blank lines", f: ndF, in: "\n\r\n   \n\t \r\n1\n\n\n2\r\n \n", want: []outcome{msg(`1`), msg(`2`), wantEOF}, note: "skipped"},
	{
		name: "invalid UTF-8 in a line", f: ndF, in: ffBody + "\n",
		want:  []outcome{msg(ffBody), wantEOF},
		note:  "bytes passed through unchanged",
		check: checkInvalidUTF8,
	},
	{name: "NUL byte in a line", f: ndF, in: nulBody + "\n", want: []outcome{msg(nulBody), wantEOF}, note: "bytes passed through unchanged"},
	{name: "NUL-only line", f: ndF, in: "\x00\n{}\n", want: []outcome{msg("\x00"), msg(`{}`), wantEOF}, note: "NUL is not blank"},
	{
		name: "garbage line then a valid line", f: ndF, in: "garbage\n{}\n",
		want: []outcome{msg(`garbage`), msg(`{}`), wantEOF},
	},
	{
		name: "binary garbage then a valid line", f: ndF, in: "\xff\xfe\x00\x01\n{}\n",
		want: []outcome{msg("\xff\xfe\x00\x01"), msg(`{}`), wantEOF},
	},
	{
		name: "Content-Length frame sent to NDJSON", f: ndF, in: "Content-Length: 2\r\n\r\n{}\n",
		want: []outcome{msg(`Content-Length: 2`), msg(`{}`), wantEOF},
		note: "a peer using the wrong framing: its header is one non-JSON line",
	},
}

// checkInvalidUTF8 checks what the connection's JSON handling makes of
// the invalid UTF-8 body: json.Valid accepts it, and encoding/json
// decodes each bad byte to U+FFFD.
func checkInvalidUTF8(t *testing.T, msgs [][]byte) {
	t.Helper()
	if !json.Valid(msgs[0]) {
		t.Fatalf("json.Valid(%q) = false", msgs[0])
	}
	var v struct{ S string }
	if err := json.Unmarshal(msgs[0], &v); err != nil || v.S != "\ufffd\ufffd" {
		t.Fatalf("Unmarshal(%q) = %q, %v; want two U+FFFD", msgs[0], v.S, err)
	}
}

// testName is the name `go test` gives the subtest of c.
func (c reliabilityCase) testName() string {
	return "TestFramingReliability/" + c.f.Name() + "/" + strings.ReplaceAll(c.name, " ", "_")
}

// TestFramingReliability runs every reliability case, reading its input
// whole and (when it is small) one byte at a time, then renders the cases
// into RELIABILITY.md, or with -update rewrites that file.
func TestFramingReliability(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range reliabilityCases {
		if seen[c.testName()] {
			t.Fatalf("bad test: duplicate case %s", c.testName())
		}
		seen[c.testName()] = true
		t.Run(c.f.Name()+"/"+c.name, func(t *testing.T) {
			if t.Name() != c.testName() {
				t.Fatalf("bad test: subtest %s, table says %s", t.Name(), c.testName())
			}
			for _, w := range c.want {
				if w.kind != okMsg && w.kind != eof && w.reason == "" {
					t.Fatalf("bad test: an error outcome without its reason")
				}
			}
			variants := []bool{false}
			if c.src == nil && len(c.in) < 1<<16 {
				variants = append(variants, true)
			}
			for _, oneByte := range variants {
				name := "whole"
				if oneByte {
					name = "one-byte"
				}
				t.Run(name, func(t *testing.T) {
					var src io.Reader
					if c.src != nil {
						src = c.src()
					} else {
						src = strings.NewReader(c.in)
					}
					if oneByte {
						src = iotest.OneByteReader(src)
					}
					r := c.f.NewReader(src, c.limits)
					var before, after runtime.MemStats
					if c.maxAlloc > 0 && !oneByte {
						runtime.ReadMemStats(&before)
					}
					checkOutcomes(t, c.f, r, c.want)
					if c.maxAlloc > 0 && !oneByte {
						runtime.ReadMemStats(&after)
						if got := after.TotalAlloc - before.TotalAlloc; got > c.maxAlloc {
							t.Errorf("allocated %d bytes, want at most %d", got, c.maxAlloc)
						}
					}
				})
			}
			if c.check != nil {
				var msgs [][]byte
				for _, w := range c.want {
					if w.kind == okMsg {
						msgs = append(msgs, []byte(w.msg))
					}
				}
				c.check(t, msgs)
			}
		})
	}

	got := renderReliability()
	if *update {
		if err := os.WriteFile(reliabilityFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(reliabilityFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestFramingReliability -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the reliability cases; run go test -run TestFramingReliability -update and review the diff", reliabilityFile)
	}
}

// renderReliability renders the reliability cases as Markdown.
func renderReliability() []byte {
	var b bytes.Buffer
	b.WriteString(`# Framing reliability

<!-- Generated by TestFramingReliability from reliabilityCases in
reliability_test.go; edit the cases and run
go test ./runtime/framing -run TestFramingReliability -update -->

What the readers of ` + "`runtime/framing`" + ` return for hostile or broken
byte streams. Each row is a test case: its input is read whole and (when
small) one byte at a time, and successive ` + "`Reader.Read`" + ` calls must
give exactly the outcomes listed, never a panic. An error outcome is a
` + "`*framing.Error`" + ` with the quoted ` + "`Reason`" + `. Rows with an
allocation bound also check the bytes allocated while reading
(` + "`runtime.MemStats.TotalAlloc`" + `): an announced length is never
allocated before its bytes arrive.

Limits (defaults): message 32 MiB, Content-Length header section 8 KiB
(all header lines with their line ends; there is no separate count of
header lines, so the section limit also bounds "too many headers").

What a ` + "`jsonrpc.Conn`" + ` does with each outcome (that side is
` + "`runtime/jsonrpc`" + `'s, tested there and in its
[table](../jsonrpc/RELIABILITY.md), not here):

- **message**: framing passes the bytes through unchanged, whatever they
  are. A message that is not valid JSON (garbage, NUL bytes, a truncated
  line) is answered with -32700 Parse error, id null, and the connection
  continues. ` + "`json.Valid`" + ` accepts invalid UTF-8 inside strings, and
  ` + "`encoding/json`" + ` decodes each invalid byte to U+FFFD, so such a
  message is handled as if it held U+FFFD.
- **recoverable** (` + "`Recoverable`" + ` true, wrapping ` + "`ErrTooLarge`" + `): the
  oversized frame was skipped without being allocated and the reader is at
  the next frame; the connection answers -32600 Invalid Request, id null,
  logs a warning and reads on.
- **non-recoverable** (` + "`Recoverable`" + ` false): the stream is out of sync
  (Content-Length framing does not try to resynchronise) or ended inside a
  frame (wrapping ` + "`io.ErrUnexpectedEOF`" + `). Every later Read returns the same
  error; the connection closes, pending calls fail, and the reason is in
  ` + "`Conn.Err`" + ` and logged.
- **io.EOF**: a clean end between frames; the connection answers what the
  peer sent and closes.
`)
	sections := []struct {
		title string
		f     framing.Framing
	}{{"Content-Length", clF}, {"NDJSON", ndF}}
	for _, s := range sections {
		n := 0
		for _, c := range reliabilityCases {
			if c.f == s.f {
				n++
			}
		}
		fmt.Fprintf(&b, "\n## %s (%d cases)\n\n", s.title, n)
		b.WriteString("| case | input | outcome | proved by |\n|---|---|---|---|\n")
		for _, c := range reliabilityCases {
			if c.f != s.f {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` |\n", cell(c.name), cell(c.input()), cell(c.outcomeText()), c.testName())
		}
	}
	return b.Bytes()
}

// input describes the case's input for the table.
func (c reliabilityCase) input() string {
	s := c.show
	if s == "" {
		s = "`" + strconv.Quote(c.in) + "`"
	}
	if c.limits.MaxMessageSize != 0 && c.show == "" {
		s += fmt.Sprintf("; limit %d bytes", c.limits.MaxMessageSize)
	}
	return s
}

// outcomeText describes what successive Reads return, then the note and
// the allocation bound.
func (c reliabilityCase) outcomeText() string {
	var parts []string
	for _, w := range c.want {
		var s string
		switch w.kind {
		case okMsg:
			s = "message `" + strconv.Quote(w.msg) + "`"
			if !json.Valid([]byte(w.msg)) {
				s += " (not JSON: -32700)"
			}
		case eof:
			s = "`io.EOF`"
		case tooLarge:
			s = "recoverable `ErrTooLarge` " + strconv.Quote(w.reason) + ", frame skipped"
		case headerTooLarge:
			s = "non-recoverable `ErrTooLarge` " + strconv.Quote(w.reason)
		case malformed:
			s = "non-recoverable " + strconv.Quote(w.reason)
		case unexpectedEOF:
			s = "non-recoverable `io.ErrUnexpectedEOF` " + strconv.Quote(w.reason)
		}
		parts = append(parts, s)
	}
	s := strings.Join(parts, "; then ")
	if c.note != "" {
		s += " — " + c.note
	}
	if c.maxAlloc > 0 {
		s += fmt.Sprintf("; at most %d KiB allocated", c.maxAlloc>>10)
	}
	return s
}

// cell escapes s for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
