package idl

import (
	"fmt"
	"strings"
	"testing"
)

// TestOneErrorPerUnion checks that the object variants of a union that can
// never be chosen are reported in one error, at the first of them.
func TestOneErrorPerUnion(t *testing.T) {
	_, err := loadString(t, `types:
  A: {fields: {a: string}}
  B: {fields: {a: string}}
  C: {fields: {c?: string}}
  D: {fields: {d: string}}
  E: {fields: {a: string}}
  U: A | B | C | D | E
`)
	want := "t.yaml:8:10: object variant B of union U can never be chosen: A, listed before it, matches every object B matches and declares every member B declares; give B a required member that A does not declare, or remove B (E, listed later, can never be chosen either)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestRepeatedVariant checks that a type listed twice in a union is
// reported once, as such, and not as variants that cannot be told apart.
func TestRepeatedVariant(t *testing.T) {
	_, err := loadString(t, `types:
  A: {fields: {a: string}}
  B: {fields: {b: string}}
  U: A | B | A | B | A
`)
	want := "t.yaml:5:14: variant A is listed 3 times in union U (first at 5:6); list it once\n" +
		"t.yaml:5:18: variant B is listed twice in union U (first at 5:10); list it once"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestLongCycles checks that a long cycle is quoted with its middle left
// out, and reported once.
func TestLongCycles(t *testing.T) {
	var b strings.Builder
	b.WriteString("types:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "  A%d: A%d\n  R%d: {fields: {next: R%d}}\n", i, (i+1)%20, i, (i+1)%20)
	}
	_, err := loadString(t, b.String())
	want := "t.yaml:3:3: type A0 is defined only in terms of itself (A0 -> A1 -> A2 -> A3 -> A4 -> A5 -> ... 14 more ... -> A0); define one of them as a real type\n" +
		"t.yaml:42:18: type R0 contains itself through required fields (R0.next -> R1.next -> R2.next -> R3.next -> R4.next -> R5.next -> ... 13 more ... -> R19.next); make one of these fields optional or nullable"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestKindsOfNestedUnions checks that the JSON kinds of a union of unions
// are all found, however they were looked at before.
func TestKindsOfNestedUnions(t *testing.T) {
	_, err := loadString(t, `types:
  O: {fields: {o: string}}
  U1: boolean | O
  U2: U1 | string
  U3: U2 | integer
  U4: U3 | []string
  Clash: U4 | boolean
  Clash2: U4 | number
  Fine: U4 | null
`)
	want := "t.yaml:8:15: variants type U4 (union) and boolean of union Clash are both JSON booleans, so a reader could not tell them apart; add a discriminator: field, or merge them\n" +
		"t.yaml:9:16: variants type U4 (union) and number of union Clash2 are both JSON numbers, so a reader could not tell them apart; add a discriminator: field, or merge them"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
