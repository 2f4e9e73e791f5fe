package idl

import "testing"

// TestFullNumbers checks how full.yaml's integer widths, bounds and open
// enums resolve.
func TestFullNumbers(t *testing.T) {
	p := loadFull(t)
	bounds := func(ty *Type) [2]string {
		var b [2]string
		if ty.Minimum != nil {
			b[0] = string(ty.Minimum.JSON)
		}
		if ty.Maximum != nil {
			b[1] = string(ty.Maximum.JSON)
		}
		return b
	}
	ratio := p.Type("Ratio").Type
	eq(t, "Ratio", [2]any{ratio.Kind, bounds(ratio)}, [2]any{KindNumber, [2]string{"0", "1"}})
	eq(t, "Line", [2]any{p.Type("Line").Type.Kind, p.Type("Line").Type.Width}, [2]any{KindInteger, Uint32})
	off := p.Type("Offset").Type
	eq(t, "Offset", [2]any{off.Width, bounds(off)}, [2]any{Int32, [2]string{"-1000", ""}})

	mark := p.Type("Mark").Type
	col := mark.Field("column").Type
	eq(t, "column", [3]any{col.Width, bounds(col), mark.Field("column").Since}, [3]any{Uint32, [2]string{"", "1000"}, "1.2.0"})
	eq(t, "delta", mark.Field("delta").Type.Width, Int32)
	eq(t, "weight", bounds(mark.Field("weight").Type), [2]string{"0", "1"})
	eq(t, "offsets items", bounds(mark.Field("offsets").Type.Elem), [2]string{"-5", "5"})
	eq(t, "note proposed", mark.Field("note").Proposed, true)

	kind := p.Type("ActionKind")
	eq(t, "ActionKind", [4]any{kind.Type.Open, kind.Type.EnumBase, kind.Since, kind.Type.Values[1].Since}, [4]any{true, KindString, "1.1.0", "1.2.0"})
	level := p.Type("Level").Type
	eq(t, "Level", [4]any{level.Open, level.EnumBase, level.Width, level.Values[1].Proposed}, [4]any{true, KindInteger, Uint32, true})
	eq(t, "Severity stays closed", p.Type("Severity").Type.Open, false)

	eq(t, "Mark meta", [2]any{p.Type("Mark").Since, p.Type("Mark").Proposed}, [2]any{"1.2.0", true})
	m := p.Method("marks/set")
	eq(t, "marks/set meta", [2]any{m.Since, m.Proposed}, [2]any{"1.2.0", true})
	eq(t, "NotReady since", p.Error("NotReady").Since, "1.1.0")
	eq(t, "String", [3]string{col.String(), mark.Field("delta").Type.String(), ratio.String()}, [3]string{"uint32", "int32", "number"})
}
