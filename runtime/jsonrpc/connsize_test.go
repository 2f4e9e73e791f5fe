package jsonrpc

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// connSizeClass is the allocation size class a Conn must fit: Go rounds
// an allocation up to its class (..., 1024, 1152, 1280, 1408, ...), so a
// Conn a few bytes over it costs the whole step on every connection. An
// object over 512 bytes that holds pointers also carries an 8-byte
// header within its allocation: a 1,152-byte Conn took 1,280 bytes. It
// was 1,344 bytes (1,408 allocated) while it kept the whole Options, then
// 1,152; it is at most 1,272 now that it holds its two work queues
// (which were two allocations of 144 bytes and four closures beside it).
const connSizeClass = 1280

// TestConnSizeClass checks that a Conn's allocation fits connSizeClass,
// measured (its size plus any header, rounded up to its class): the least
// of three counts, since other goroutines may allocate meanwhile.
func TestConnSizeClass(t *testing.T) {
	const n = 2000
	conns := make([]*Conn, n)
	got := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range conns {
			conns[i] = new(Conn)
		}
		runtime.ReadMemStats(&after)
		got = min(got, (after.TotalAlloc-before.TotalAlloc)/n)
	}
	runtime.KeepAlive(conns)
	if got > connSizeClass {
		t.Errorf("a Conn (%d bytes) takes %d bytes, over the %d size class: the next class costs %d more bytes per connection; "+
			"keep what is read after NewConn only, and the small fields together", unsafe.Sizeof(Conn{}), got, connSizeClass, 1408-connSizeClass)
	}
}

// TestKeptOptions checks that every option a Conn keeps after NewConn
// (connOptions) is an Options field of the same name and type, and that
// kept copies each.
func TestKeptOptions(t *testing.T) {
	var o Options
	ov := reflect.ValueOf(&o).Elem()
	kt := reflect.TypeFor[connOptions]()
	for i := range kt.NumField() {
		f := kt.Field(i)
		of, ok := reflect.TypeFor[Options]().FieldByName(f.Name)
		if !ok || of.Type != f.Type {
			t.Fatalf("connOptions.%s (%s) is not an Options field of that type", f.Name, f.Type)
		}
		ov.FieldByName(f.Name).Set(nonZero(t, f.Type))
	}
	k := o.kept()
	kv := reflect.ValueOf(k)
	for i := range kt.NumField() {
		if kv.Field(i).IsZero() {
			t.Errorf("kept leaves connOptions.%s unset", kt.Field(i).Name)
		}
	}
}

// nonZero returns a value of type typ other than its zero value.
func nonZero(t *testing.T, typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.Slice:
		v.Set(reflect.MakeSlice(typ, 1, 1))
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint8:
		v.SetUint(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Func:
		v.Set(reflect.MakeFunc(typ, func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, typ.NumOut())
			for i := range out {
				out[i] = reflect.Zero(typ.Out(i))
			}
			return out
		}))
	case reflect.Pointer:
		v.Set(reflect.New(typ.Elem()))
	default:
		t.Fatalf("no non-zero value for %s", typ)
	}
	return v
}

// TestPendingMapMadeByFirstCall checks that a connection that has only
// answered (a server's, typically) holds no map of pending calls, and
// that one that calls after the other end finished, or after it ended,
// fails as before.
func TestPendingMapMadeByFirstCall(t *testing.T) {
	client, server := pair(t, Options{}, Options{Handler: relHandler})
	if err := client.Call(ctxLimit(t), "sum", []int{1, 2}, nil); err != nil {
		t.Fatal(err)
	}
	server.mu.Lock()
	made, calls := server.pending != nil, client.pending != nil
	server.mu.Unlock()
	if made || !calls {
		t.Errorf("pending map made: answering side %v (want false), calling side %v (want true)", made, calls)
	}
	server.Close()
	if err := server.Call(ctxLimit(t), "sum", []int{1, 2}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call on a closed connection: %v, want ErrClosed", err)
	}
}
