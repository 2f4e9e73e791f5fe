package streamhttp

import (
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"
)

// idleTrace is a RoundTripper that reports each connection its requests
// return to the idle pool (httptrace's PutIdleConn with no error).
type idleTrace struct {
	base http.RoundTripper
	idle chan struct{}
}

func (it idleTrace) RoundTrip(req *http.Request) (*http.Response, error) {
	trace := &httptrace.ClientTrace{PutIdleConn: func(err error) {
		if err == nil {
			it.idle <- struct{}{}
		}
	}}
	return it.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}

// TestClientReusesConnectionAfterAnswer has the server end a POST's event
// stream only after the client has the answer: the client reads the
// stream to its end, so that the connection goes back to the pool for a
// later request instead of being closed (a new TCP connection per call).
func TestClientReusesConnectionAfterAnswer(t *testing.T) {
	end := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if mcpBasics(w, r, h) {
			return
		}
		startSSE(w, nil)
		sse(w, "id: 1\ndata: "+result(h.Msg.ID, `"ok"`)+"\n\n")
		<-end // the stream ends once the client has the answer
	})
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	idle := make(chan struct{}, 100)
	c, _ := connect(t, ts, ClientOptions{HTTPClient: &http.Client{Transport: idleTrace{tr, idle}}}, nil)
	for range 3 { // after the handshake, the notification and the GET (405)
		within(t, idle, 10*time.Second, "a connection back in the idle pool")
	}
	if out := within(t, callAsync(c, "tools/call", nil), 10*time.Second, "the answer"); out.err != nil || string(out.res) != `"ok"` {
		t.Fatalf("answer %s, %v", out.res, out.err)
	}
	close(end)
	within(t, idle, 10*time.Second, "the POST's connection back in the idle pool")
}
