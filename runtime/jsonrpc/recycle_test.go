package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// recycleResult is a result type decoded by reflection.
type recycleResult struct {
	Text string          `json:"text"`
	Raw  json.RawMessage `json:"raw"`
	Any  any             `json:"any"`
}

// TestRecycledFramesKeepResults makes calls whose response frames go back
// to the reader for reuse, keeping every decoded result and error, and
// checks at the end that later frames overwrote none of them: decoders
// copy what they keep, and error data is never recycled.
func TestRecycledFramesKeepResults(t *testing.T) {
	const calls = 200
	text := func(i int) string { return fmt.Sprintf("%d:%s", i, strings.Repeat(string(rune('a'+i%26)), i%50)) }
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			server := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
				var args [1]int
				if err := json.Unmarshal(req.Params, &args); err != nil {
					return nil, err
				}
				i := args[0]
				if i%7 == 0 {
					return nil, NewError(1, "seventh", text(i))
				}
				s := text(i)
				return recycleResult{Text: s, Raw: json.RawMessage(`"` + s + `"`), Any: s}, nil
			})
			client, _ := pair(t, Options{Framing: f}, Options{Framing: f, Handler: server})
			ctx := context.Background()
			var (
				structs []recycleResult
				raws    []json.RawMessage
				errs    []*Error
			)
			for i := range calls {
				var s recycleResult
				var raw json.RawMessage
				err := client.Call(ctx, "r", []int{i}, &s)
				if err == nil {
					err = client.Call(ctx, "r", []int{i}, &raw)
				}
				var rpcErr *Error
				switch {
				case i%7 == 0 && errors.As(err, &rpcErr):
					errs = append(errs, rpcErr)
				case err != nil:
					t.Fatalf("call %d: %v", i, err)
				default:
					structs = append(structs, s)
					raws = append(raws, raw)
				}
			}
			n := 0
			for i := range calls {
				if i%7 == 0 {
					continue
				}
				want := text(i)
				got := structs[n]
				if got.Text != want || string(got.Raw) != `"`+want+`"` || got.Any != want {
					t.Errorf("result %d changed after later calls: %+v, want %q", i, got, want)
				}
				var fromRaw recycleResult
				if err := json.Unmarshal(raws[n], &fromRaw); err != nil || fromRaw.Text != want {
					t.Errorf("raw result %d changed after later calls: %s", i, raws[n])
				}
				n++
			}
			for k, e := range errs {
				if want, _ := json.Marshal(text(7 * k)); string(e.Data) != string(want) {
					t.Errorf("error data %d changed after later calls: %s, want %s", k, e.Data, want)
				}
			}
		})
	}
}

// TestRetainedParamsKeepTheirBytes has handlers keep the raw params of
// every request and notification, past their return, and checks at the
// end that later frames overwrote none of them: a frame whose params a
// handler may still hold is never handed back to the reader.
func TestRetainedParamsKeepTheirBytes(t *testing.T) {
	const messages = 200
	text := func(i int) string { return fmt.Sprintf(`[%d,"%s"]`, i, strings.Repeat(string(rune('a'+i%26)), i%50)) }
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			var requests, notes [messages]json.RawMessage
			lastNote := make(chan struct{})
			server := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
				var args [2]any
				if err := json.Unmarshal(req.Params, &args); err != nil {
					return nil, err
				}
				i := int(args[0].(float64))
				if req.IsNotification() {
					notes[i] = req.Params // notifications run one at a time
					if i == messages-1 {
						close(lastNote)
					}
					return nil, nil
				}
				requests[i] = req.Params // each index is written by one handler
				return i, nil
			})
			client, _ := pair(t, Options{Framing: f}, Options{Framing: f, Handler: server})
			ctx := context.Background()
			for i := range messages {
				if err := client.Call(ctx, "r", json.RawMessage(text(i)), nil); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if err := client.Notify(ctx, "n", json.RawMessage(text(i))); err != nil {
					t.Fatalf("notification %d: %v", i, err)
				}
			}
			select {
			case <-lastNote:
			case <-time.After(waitLimit):
				t.Fatal("the last notification was never handled")
			}
			for i := range messages {
				if string(requests[i]) != text(i) {
					t.Errorf("params of request %d changed after later messages: %s, want %s", i, requests[i], text(i))
				}
				if string(notes[i]) != text(i) {
					t.Errorf("params of notification %d changed after later messages: %s, want %s", i, notes[i], text(i))
				}
			}
		})
	}
}
