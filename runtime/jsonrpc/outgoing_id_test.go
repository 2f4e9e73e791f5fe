package jsonrpc

import (
	"context"
	"testing"
)

// TestOutgoingMiddlewareSeesID checks that outgoing middleware sees the id
// a request goes out with, in both id styles, and no id on a notification.
func TestOutgoingMiddlewareSeesID(t *testing.T) {
	for _, style := range []IDStyle{IntegerIDs, StringIDs} {
		seen := make(chan *Request, 4)
		server := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			seen <- req
			return "ok", nil
		})
		var ids []ID
		var notes []bool
		record := func(next SendFunc) SendFunc {
			return func(ctx context.Context, out *Outgoing) error {
				ids = append(ids, out.ID)
				notes = append(notes, out.Notification)
				return next(ctx, out)
			}
		}
		client, _ := pair(t, Options{Outgoing: []OutgoingMiddleware{record}, IDs: style}, Options{Handler: server})
		ctx := context.Background()
		for range 2 {
			if err := client.Call(ctx, "m", nil, nil); err != nil {
				t.Fatal(err)
			}
			if req := <-seen; req.ID != ids[len(ids)-1] {
				t.Errorf("style %d: middleware saw id %s, the request went out with %s", style, ids[len(ids)-1], req.ID)
			}
		}
		if err := client.Notify(ctx, "n", nil); err != nil {
			t.Fatal(err)
		}
		if req := <-seen; !req.ID.IsZero() {
			t.Errorf("notification went out with id %s", req.ID)
		}
		if ids[0] == ids[1] || ids[0].IsZero() {
			t.Errorf("style %d: ids %v: want two distinct ids", style, ids[:2])
		}
		if !ids[2].IsZero() || !notes[2] {
			t.Errorf("style %d: notification seen with id %q", style, ids[2])
		}
	}
}
