package oauth

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	type c = Challenge
	type m = map[string]string
	for _, tc := range []struct {
		in   []string
		want []Challenge
	}{
		{[]string{`Bearer`}, []c{{"Bearer", m{}}}},
		{[]string{`Bearer realm="mcp", error="invalid_token", error_description="The token \"x\" expired"`},
			[]c{{"Bearer", m{"realm": "mcp", "error": "invalid_token", "error_description": `The token "x" expired`}}}},
		{[]string{`Bearer scope="a b", resource_metadata="https://rs/.well-known/oauth-protected-resource/mcp", error=insufficient_scope`},
			[]c{{"Bearer", m{"scope": "a b", "resource_metadata": "https://rs/.well-known/oauth-protected-resource/mcp", "error": "insufficient_scope"}}}},
		{[]string{`Basic realm="x", Bearer Scope="s"`}, []c{{"Basic", m{"realm": "x"}}, {"Bearer", m{"scope": "s"}}}},
		{[]string{`Basic abc==, Bearer error="e"`}, []c{{"Basic", m{}}, {"Bearer", m{"error": "e"}}}},
		{[]string{`Negotiate`, `Bearer  ,  , scope = "x" ,`}, []c{{"Negotiate", m{}}, {"Bearer", m{"scope": "x"}}}},
		{[]string{`Bearer scope="unterminated`}, []c{{"Bearer", m{"scope": "unterminated"}}}},
		{[]string{`Bearer scope="a", scope="b"`}, []c{{"Bearer", m{"scope": "a"}}}},
		{[]string{`, @@, Bearer error="e" junk, x=1`}, []c{{"Bearer", m{"error": "e", "x": "1"}}}},
		{[]string{``, ` `}, nil},
	} {
		if got := ParseChallenges(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseChallenges(%q)\n got %#v\nwant %#v", tc.in, got, tc.want)
		}
	}
}

// TestParseChallengesBounded keeps a hostile header from producing
// unbounded challenges or parameters.
func TestParseChallengesBounded(t *testing.T) {
	many := strings.Repeat("Bearer, ", 10000)
	if got := len(ParseChallenges([]string{many})); got != maxChallenges {
		t.Errorf("%d challenges, want at most %d", got, maxChallenges)
	}
	var b strings.Builder
	b.WriteString("Bearer ")
	for i := range 10000 {
		b.WriteString("p")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteString(`="v", `)
	}
	for _, c := range ParseChallenges([]string{b.String()}) {
		if len(c.Params) > maxChallenges {
			t.Errorf("%d params, want at most %d", len(c.Params), maxChallenges)
		}
	}
}

func TestBearerChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	if _, ok := bearerChallenge(h); ok {
		t.Error("found a Bearer challenge in a Basic one")
	}
	h.Add("WWW-Authenticate", `bearer scope="s"`)
	if c, ok := bearerChallenge(h); !ok || c.Params["scope"] != "s" {
		t.Errorf("got %v %v, want the bearer challenge", c, ok)
	}
}

// FuzzParseChallenges: no panic, and every result within bounds.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{`Bearer`, `Bearer realm="a\"b", scope="x y"`, `Basic abc==, Bearer error=e`, `"`, `,=,`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs := ParseChallenges([]string{s})
		if len(cs) > maxChallenges {
			t.Fatalf("%d challenges", len(cs))
		}
		for _, c := range cs {
			if c.Scheme == "" || len(c.Params) > maxChallenges {
				t.Fatalf("challenge %#v", c)
			}
			for k, v := range c.Params {
				if k == "" || len(k)+len(v) > len(s) {
					t.Fatalf("param %q=%q from %q", k, v, s)
				}
			}
		}
	})
}
