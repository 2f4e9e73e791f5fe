package golang

import (
	"regexp"
	"strings"
	"testing"
)

// methodComment returns the doc comment of the interface method name in
// the generated source out, its "//" lines joined by spaces.
func methodComment(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`((?:\t//[^\n]*\n)+)\t` + name + `\(`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no documented method %s in:\n%s", name, out)
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(m[1], "//", "")), " ")
}

// TestTimeoutDocOnce checks that the protocol's default timeout is said
// once, in the package doc, and that a method's doc speaks of its timeout
// only where it differs: another length, another action, or none.
func TestTimeoutDocOnce(t *testing.T) {
	src := header + `  cancellation: mcp
  timeout: 30s
  on_timeout: {cancel: true}
methods:
  usual: {from: client, kind: request}
  slow: {from: client, kind: request, timeout: 2m}
  closing: {from: client, kind: request, on_timeout: {action: close}}
  endless: {from: client, kind: request, timeout: none}
`
	out := generateAll(t, src)
	if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(out, "//", "")), " "), "A caller waits 30s for the response to a request, then sends the cancellation notification, unless the method's doc says otherwise.") {
		t.Error("the package doc does not state the default timeout")
	}
	for name, want := range map[string]string{
		"Usual":   "",
		"Slow":    "The caller waits 2m for the response, then sends the cancellation notification.",
		"Closing": "The caller waits 30s for the response, then closes the connection.",
		"Endless": "It has no timeout: the caller waits for the response until its context ends.",
	} {
		c := methodComment(t, out, name)
		switch {
		case want == "" && strings.Contains(c, "waits"):
			t.Errorf("%s, with the default timeout, repeats it: %q", name, c)
		case want != "" && !strings.Contains(c, want):
			t.Errorf("%s: doc %q lacks %q", name, c, want)
		}
	}
}

// TestLeadSentences checks the docs of types the IDL leaves undocumented:
// a union leads with its variants rather than a sentence naming them, and
// an object a method takes or gives says so instead of listing its members.
func TestLeadSentences(t *testing.T) {
	src := header + `types:
  Options2: {fields: {a: string}}
  U: "boolean | Options2"
  Query: {fields: {q: string, limit?: integer}}
  Answer: {fields: {hits: integer}}
methods:
  search: {from: client, kind: request, params: Query, result: Answer}
`
	out := generateAll(t, src)
	for _, want := range []string{
		"// U holds exactly one of these variants, in its field; on the wire it is that\n// variant alone, and the variants are told apart by the kind of JSON value\n// they are:\n//   - Boolean: boolean\n//   - Options2: [Options2]\ntype U struct",
		"// Query holds the params of search.\ntype Query struct",
		"// Answer is the result of search.\ntype Answer struct",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the generated package lacks %q", want)
		}
	}
	for _, filler := range []string{"U is one of", "Query is an object with", "Answer is an object with"} {
		if strings.Contains(out, filler) {
			t.Errorf("the generated package still says %q", filler)
		}
	}
}

// TestLinkNames checks that a declared name of several words becomes a doc
// link at its first plain mention in a paragraph, but not where it starts
// the comment (the name documented), nor inside a link, code, quotes or a
// URL, nor in a list item; a paragraph whose lines the unformatted source
// indents unlike is filled again as one.
func TestLinkNames(t *testing.T) {
	links := linkSet{spans: map[string]string{"Answer": "[Answer]"}, bare: map[string]bool{"ListToolsResult": true, "ConnectServer": true}}
	src := strings.Join([]string{
		"// ListToolsResult is a page; ListToolsResult again, and (ConnectServer's)",
		"// result, see https://example.com/ListToolsResult and `ConnectServer`.",
		"//",
		"// ConnectServer serves; a ListToolsResult.",
		"//   - ListToolsResult in a list",
		"type ListToolsResult struct{}",
		"",
		"// Other answers with a ListToolsResult, once: ListToolsResult.",
		"var Other int",
		"",
		"const (",
		"// Code is the error (-32003 \"ConnectServer failed\") of a",
		" // ConnectServer.",
		"Code = 1",
		")",
	}, "\n")
	want := strings.Join([]string{
		"// ListToolsResult is a page; ListToolsResult again, and ([ConnectServer]'s)",
		"// result, see https://example.com/ListToolsResult and `ConnectServer`.",
		"//",
		"// ConnectServer serves; a ListToolsResult.",
		"//   - ListToolsResult in a list",
		"type ListToolsResult struct{}",
		"",
		"// Other answers with a [ListToolsResult], once: ListToolsResult.",
		"var Other int",
		"",
		"const (",
		"// Code is the error (-32003 \"ConnectServer failed\") of a [ConnectServer].",
		"Code = 1",
		")",
	}, "\n")
	if got := string(linkComments([]byte(src), links)); got != want {
		t.Errorf("linkComments:\n got %s\nwant %s", got, want)
	}
}
