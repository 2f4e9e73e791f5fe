package idl

import (
	"fmt"
	"unicode/utf8"
)

// synonyms maps words authors often write to the IDL's own.
var synonyms = map[string]string{
	"description": "doc", "summary": "doc", "comment": "doc", "docs": "doc",
	"parameters": "params", "param": "params", "arguments": "params", "args": "params",
	"returns": "result", "response": "result", "results": "result",
	"direction": "from", "sender": "from", "by": "from",
	"type":       "kind",
	"properties": "fields", "props": "fields", "members": "fields",
	"enum": "values", "options": "values",
	"oneOf": "variants", "anyOf": "variants", "cases": "variants",
	"tag":     "discriminator",
	"imports": "include", "import": "include", "includes": "include",
	"int": "integer", "int32": "integer", "int64": "integer", "uint": "integer", "long": "integer",
	"float": "number", "double": "number", "float64": "number",
	"bool": "boolean", "str": "string", "unknown": "any",
	"Array": "array", "Record": "map",
	"error": "errors", "deadline": "timeout",
}

// suggest returns "; did you mean "x"?" for the closest candidate to s,
// or fallback when none is close.
func suggest(s string, candidates []string, fallback string) string {
	if best := closest(s, candidates); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return fallback
}

// closest returns the candidate nearest to s, or "" when none is near.
// The first of equally near candidates wins, so the answer is
// deterministic.
func closest(s string, candidates []string) string {
	if syn, ok := synonyms[s]; ok {
		for _, c := range candidates {
			if c == syn {
				return c
			}
		}
	}
	best, bestD := "", 0
	limit := max(1, len(s)/3)
	ls := lower(nil, s)
	var lc []rune
	var rows []int
	for _, c := range candidates {
		// The distance is at least the difference in length.
		if c == s || abs(utf8.RuneCountInString(c)-len(ls)) > limit {
			continue
		}
		lc = lower(lc[:0], c)
		if need := 2 * (len(lc) + 1); cap(rows) < need {
			rows = make([]int, need)
		}
		d := distance(ls, lc, rows)
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

func abs(n int) int { return max(n, -n) }

// lower appends the runes of s to buf, ASCII letters in lower case.
func lower(buf []rune, s string) []rune {
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		buf = append(buf, r)
	}
	return buf
}

// distance is the Levenshtein edit distance between a and b; rows, of
// at least 2*(len(b)+1) ints, is scratch space.
func distance(a, b []rune, rows []int) int {
	prev, cur := rows[:len(b)+1], rows[len(b)+1:2*(len(b)+1)]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
