package idl

import (
	"testing"
)

func TestIntegerLiteralUnions(t *testing.T) {
	p, err := loadString(t, `types:
  Level: 1 | 2 | -3
  Maybe: 0 | 1 | null
  Grouped: "[](7 | 8)?"
  Named:
    type: enum
    values:
      - {value: 1, name: Low}
      - 2
  Two: "2"
  Neg: "-0042?"
  Yes: "true"
  No: "false"
`)
	if err != nil {
		t.Fatal(err)
	}
	values := func(name string) [][3]any {
		var out [][3]any
		for _, v := range mustType(t, p, name).Type.Values {
			out = append(out, [3]any{v.Value, v.Name, v.GoName})
		}
		return out
	}
	level := mustType(t, p, "Level")
	eq(t, "Level", [3]any{level.Type.Kind, level.Type.EnumBase, level.Type.String()}, [3]any{KindEnum, KindInteger, "1 | 2 | -3"})
	eq(t, "Level values", values("Level"), [][3]any{{int64(1), "1", "N1"}, {int64(2), "2", "N2"}, {int64(-3), "-3", "Minus3"}})
	maybe := mustType(t, p, "Maybe").Type
	eq(t, "Maybe", [2]any{maybe.Kind, maybe.Nullable}, [2]any{KindEnum, true})
	grouped := mustType(t, p, "Grouped").Type
	eq(t, "Grouped", [3]any{grouped.Kind, grouped.Elem.Ref.Name, grouped.Elem.Nullable}, [3]any{KindArray, "GroupedItem", true})
	eq(t, "GroupedItem", mustType(t, p, "GroupedItem").Type.String(), "7 | 8")
	// Names written in the long form win; the others are derived.
	eq(t, "Named values", values("Named"), [][3]any{{int64(1), "Low", "Low"}, {int64(2), "2", "N2"}})

	for name, want := range map[string][4]any{
		"Two": {KindInteger, "2", false, "2"},
		"Neg": {KindInteger, "-42", true, "-42 | null"},
		"Yes": {KindBoolean, "true", false, "true"},
		"No":  {KindBoolean, "false", false, "false"},
	} {
		ty := mustType(t, p, name).Type
		eq(t, name, [4]any{ty.Kind, string(ty.Const.JSON), ty.Nullable, ty.String()}, want)
	}
}

func TestLiteralErrors(t *testing.T) {
	for _, tc := range []struct{ typ, want string }{
		{`"'a' | 1"`, "t.yaml:3:13: a union cannot mix string and integer literals; the values of an enum are all strings or all integers"},
		{`1 | 'a'`, "t.yaml:3:10: a union cannot mix integer and string literals; the values of an enum are all strings or all integers"},
		{`1 | integer`, "t.yaml:3:6: a union cannot mix integer literals with other types; declare the literals as a named enum under types: and use its name here"},
		{`true | false`, "t.yaml:3:6: boolean literals cannot make an enum; write boolean for true or false, or a single literal for a constant"},
		{`1 | 0.5`, "t.yaml:3:10: 0.5 is not an integer literal; for a constant number write {type: number, const: 0.5}"},
		{`1 | 2 | 1`, "t.yaml:3:14: enum value 1 is listed twice (first at line 3); remove one"},
		{`"-x"`, "t.yaml:3:7: unexpected character '-' in type"},
		{`7`, "t.yaml:3:6: 7 is not a type; for the constant 7, quote it (\"7\") or write {const: 7}"},
	} {
		_, err := loadString(t, "types:\n  A: "+tc.typ+"\n")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.typ, err, tc.want)
		}
	}
}
