package full_test

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
)

// TestValueSwitch checks that Value returns the variant a decoded union
// holds, as a value a type switch takes, for a union told apart by a
// discriminator, one told apart by JSON kind and members, and one with a
// catch-all.
func TestValueSwitch(t *testing.T) {
	var block full.Block
	if err := json.Unmarshal([]byte(`{"type":"text","text":"hi"}`), &block); err != nil {
		t.Fatal(err)
	}
	switch v := block.Value().(type) {
	case full.TextBlock:
		if v.Text != "hi" {
			t.Errorf("text block holds %q, want hi", v.Text)
		}
	default:
		t.Errorf("Block.Value() = %T, want full.TextBlock", v)
	}

	for in, want := range map[string]string{`true`: "bool", `{}`: "HoverOptions", `{"documentSelector":null}`: "HoverRegistrationOptions"} {
		var p full.HoverProvider
		if err := json.Unmarshal([]byte(in), &p); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := ""
		switch v := p.Value().(type) {
		case bool:
			if v {
				got = "bool"
			}
		case full.HoverOptions:
			got = "HoverOptions"
		case full.HoverRegistrationOptions:
			got = "HoverRegistrationOptions"
		}
		if got != want {
			t.Errorf("%s: Value() = %#v, want a %s", in, p.Value(), want)
		}
	}

	var progress full.ProgressValue
	if err := json.Unmarshal([]byte(`[1, 2]`), &progress); err != nil {
		t.Fatal(err)
	}
	if raw, ok := progress.Value().(json.RawMessage); !ok || string(raw) != `[1, 2]` {
		t.Errorf("catch-all Value() = %#v, want the raw JSON", progress.Value())
	}
}

// TestValueNil checks that Value is nil on an absent optional union and
// on a union holding nothing, so that a test of one variant needs no nil
// check first.
func TestValueNil(t *testing.T) {
	var params full.HoverShowParams
	if err := json.Unmarshal([]byte(`{"contents":"x"}`), &params); err != nil {
		t.Fatal(err)
	}
	if v := params.Provider.Value(); v != nil {
		t.Errorf("absent provider: Value() = %#v, want nil", v)
	}
	if b, _ := params.Provider.Value().(bool); b {
		t.Error("absent provider reads as true")
	}
	var none full.HoverProvider
	if v := none.Value(); v != nil {
		t.Errorf("empty union: Value() = %#v, want nil", v)
	}
}

// TestGenericConstructor checks that New<Union> puts its argument in the
// field of its type, untyped constants taking their default type.
func TestGenericConstructor(t *testing.T) {
	p := full.NewHoverProvider(true)
	if p.Boolean == nil || !*p.Boolean || p.HoverOptions != nil {
		t.Errorf("NewHoverProvider(true) = %+v", p)
	}
	if b, _ := p.Value().(bool); !b {
		t.Errorf("NewHoverProvider(true).Value() = %#v", p.Value())
	}
	o := full.NewHoverProvider(full.HoverOptions{})
	if o.HoverOptions == nil || o.Boolean != nil {
		t.Errorf("NewHoverProvider(HoverOptions{}) = %+v", o)
	}
	id := full.NewID(int64(4))
	if v, _ := id.Value().(int64); v != 4 {
		t.Errorf("NewID(int64(4)).Value() = %#v", id.Value())
	}
	raw := full.NewProgressValue(json.RawMessage(`"x"`))
	if out, err := json.Marshal(raw); err != nil || string(out) != `"x"` {
		t.Errorf("catch-all encodes as %s (%v)", out, err)
	}
	b := full.NewBlock(full.TextBlock{Text: "hi"})
	if out, err := json.Marshal(b); err != nil || string(out) != `{"type":"text","text":"hi"}` {
		t.Errorf("NewBlock encodes as %s (%v)", out, err)
	}
}

var sinkProvider full.HoverProvider

// BenchmarkUnionConstructor compares the generic constructor with the
// struct literal a per-variant constructor would return: both allocate
// the variant once.
func BenchmarkUnionConstructor(b *testing.B) {
	b.Run("generic/bool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkProvider = full.NewHoverProvider(true)
		}
	})
	b.Run("literal/bool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := true
			sinkProvider = full.HoverProvider{Boolean: &v}
		}
	})
	b.Run("generic/object", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkProvider = full.NewHoverProvider(full.HoverOptions{})
		}
	})
	b.Run("literal/object", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := full.HoverOptions{}
			sinkProvider = full.HoverProvider{HoverOptions: &v}
		}
	})
}
