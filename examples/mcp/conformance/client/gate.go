package main

import (
	"net/http"
	"sync"
)

// getFirst holds back POSTs that follow the first accepted notification
// (MCP's notifications/initialized) until the server has answered the
// client's first GET, the stream for messages the server starts.
//
// The client transport opens that stream right after the notification is
// accepted, but concurrently with the next POST (it orders POSTs among
// themselves, not the GET with them); a server that sends a request of its
// own on the stream while handling that POST (the
// elicitation-sep1034-client-defaults scenario's server does) drops the
// request when the stream is not open yet. Waiting for the GET's answer,
// or its failure, orders the two however slow the machine is.
type getFirst struct {
	base http.RoundTripper

	once    sync.Once
	done    chan struct{} // closed when the first GET was answered or failed
	mu      sync.Mutex
	armed   bool // a notification was accepted: later POSTs wait for done
	started bool // the first GET was sent

	// onWait, when set, is called as a POST starts waiting (tests).
	onWait func()
}

func newGetFirst(base http.RoundTripper) *getFirst {
	return &getFirst{base: base, done: make(chan struct{})}
}

// RoundTrip implements http.RoundTripper.
func (g *getFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet:
		g.mu.Lock()
		first := !g.started
		g.started = true
		g.mu.Unlock()
		resp, err := g.base.RoundTrip(req)
		if first {
			g.once.Do(func() { close(g.done) })
		}
		return resp, err
	case http.MethodPost:
		g.mu.Lock()
		armed := g.armed
		g.mu.Unlock()
		if armed {
			if g.onWait != nil {
				select {
				case <-g.done:
				default:
					g.onWait()
				}
			}
			select {
			case <-g.done:
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
		}
		resp, err := g.base.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusAccepted {
			g.mu.Lock()
			g.armed = true
			g.mu.Unlock()
		}
		return resp, err
	}
	return g.base.RoundTrip(req)
}
