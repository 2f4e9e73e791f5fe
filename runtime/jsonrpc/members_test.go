package jsonrpc

import (
	"reflect"
	"testing"
)

func TestMembersAPI(t *testing.T) {
	var m Members[int]
	m.Set("b", 1)
	m.Set("a", 2)
	m.Set("b", 3)
	if want := (Members[int]{{"b", 3}, {"a", 2}}); !reflect.DeepEqual(m, want) {
		t.Fatalf("after Set: %v, want %v", m, want)
	}
	if v, ok := m.Get("a"); !ok || v != 2 {
		t.Errorf("Get(a) = %d, %v", v, ok)
	}
	if _, ok := m.Get("c"); ok {
		t.Error("Get(c) found a member")
	}
	m = append(m, Member[int]{"b", 4})
	if v, _ := m.Get("b"); v != 4 {
		t.Errorf("Get of a name kept twice = %d, want the last, 4", v)
	}
	m.Delete("b")
	if want := (Members[int]{{"a", 2}}); !reflect.DeepEqual(m, want) {
		t.Errorf("after Delete: %v, want %v", m, want)
	}
}
