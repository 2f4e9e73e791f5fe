package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// message is a request carrying a string of n bytes; utf8 makes a third
// of its characters Cyrillic or CJK.
func message(n int, utf8 bool) []byte {
	var sb strings.Builder
	for sb.Len() < n {
		if utf8 && sb.Len()%3 == 0 {
			sb.WriteString("ж世")
		} else {
			sb.WriteString("func main() { x := 42 }\n"[:8])
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "echo", "params": map[string]string{"text": sb.String()}})
	return b
}

func BenchmarkValid(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
		utf8 bool
	}{{"1KiB", 1 << 10, false}, {"64KiB", 64 << 10, false}, {"100KB-utf8", 100_000, true}} {
		msg := message(size.n, size.utf8)
		b.Run("size="+size.name+"/impl=encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if !json.Valid(msg) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("size="+size.name+"/impl=jsonscan", func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if !Valid(msg) {
					b.Fatal("invalid")
				}
			}
		})
		text := msg[strings.Index(string(msg), `"text":`)+7 : len(msg)-2]
		b.Run("size="+size.name+"/impl=unquote", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := UnquoteString(text); !ok {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("size="+size.name+"/impl=skip", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if SkipString(text, 0) != len(text) {
					b.Fatal("wrong end")
				}
			}
		})
	}
}

// BenchmarkSkipJSONText skips a string holding JSON text, as a tool's
// text content repeats its structured content: an escaped quote every few
// bytes.
func BenchmarkSkipJSONText(b *testing.B) {
	hits := make([]map[string]any, 5)
	for i := range hits {
		hits[i] = map[string]any{"id": 4000 + i*37, "title": "memory leak in the reader", "state": "open", "score": 0.5}
	}
	inner, _ := json.Marshal(map[string]any{"query": "memory leak in the reader", "sort": "relevance", "hits": hits})
	text, _ := json.Marshal(string(inner))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if SkipString(text, 0) != len(text) {
			b.Fatal("wrong end")
		}
	}
}
