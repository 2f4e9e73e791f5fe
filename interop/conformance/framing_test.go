package conformance_test

import (
	"strconv"
	"strings"
	"testing"
)

// TestFramingVariants sends bytes other implementations write that the
// plain framing of spec_test.go does not: extra headers and header case
// (LSP's base protocol allows Content-Type), non-ASCII bodies whose length
// in bytes differs from their length in characters, CR LF line ends and
// blank lines in NDJSON, several messages in one write and one message
// split over many writes.
func TestFramingVariants(t *testing.T) {
	const (
		ask   = `{"jsonrpc":"2.0","method":"get_data","id":"%s"}`
		reply = `{"jsonrpc":"2.0","result":["hello",5],"id":"%s"}`
	)
	get := func(id string) string { return strings.Replace(ask, "%s", id, 1) }
	got := func(id string) string { return strings.Replace(reply, "%s", id, 1) }
	nonASCII := `{"jsonrpc":"2.0","method":"sum","params":{"values":[1]},"id":"ünï-çødé-€-𝄞"}`
	nonASCIIReply := `{"jsonrpc":"2.0","result":1,"id":"ünï-çødé-€-𝄞"}`

	cases := map[string][]struct {
		name  string
		write []string // written one after another
		want  []string // the answers, in any order
	}{
		contentLength: {
			{"Content-Type after Content-Length",
				[]string{"Content-Length: 47\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + get("ct")},
				[]string{got("ct")}},
			{"Content-Type first",
				[]string{"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 47\r\n\r\n" + get("cf")},
				[]string{got("cf")}},
			{"header name in lower case",
				[]string{"content-length: 47\r\n\r\n" + get("lc")},
				[]string{got("lc")}},
			{"non-ASCII body, length in bytes",
				[]string{string(frame(contentLength, []byte(nonASCII)))},
				[]string{nonASCIIReply}},
			{"three messages in one write",
				[]string{string(frame(contentLength, []byte(get("a1")))) + string(frame(contentLength, []byte(get("a2")))) + string(frame(contentLength, []byte(get("a3"))))},
				[]string{got("a1"), got("a2"), got("a3")}},
			{"one message byte by byte",
				bytewise(string(frame(contentLength, []byte(nonASCII)))),
				[]string{nonASCIIReply}},
		},
		ndjson: {
			{"CR LF line end", []string{get("crlf") + "\r\n"}, []string{got("crlf")}},
			{"blank lines between messages", []string{"\n\r\n  \n" + get("blank") + "\n\n"}, []string{got("blank")}},
			{"non-ASCII message", []string{nonASCII + "\n"}, []string{nonASCIIReply}},
			{"three messages in one write",
				[]string{get("a1") + "\n" + get("a2") + "\n" + get("a3") + "\n"},
				[]string{got("a1"), got("a2"), got("a3")}},
			{"one message byte by byte", bytewise(nonASCII + "\n"), []string{nonASCIIReply}},
		},
	}
	for _, f := range []string{ndjson, contentLength} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			p := spawn(t, "specserver (generated specsvc)", f, bin.specserver, "-framing", f)
			for _, tc := range cases[f] {
				step := p.peer + " (" + f + "), step " + strconv.Quote(tc.name)
				for _, w := range tc.write {
					p.sendRaw([]byte(w))
				}
				var answers []string
				for range tc.want {
					answers = append(answers, string(p.recv(step)))
				}
				assertSameJSON(t, step, []byte("["+strings.Join(answers, ",")+"]"), "["+strings.Join(tc.want, ",")+"]")
			}
		})
	}
}

// bytewise splits s into single bytes (cutting multi-byte characters).
func bytewise(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}
