package oauth

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBodyWithoutGetBody replays a body the request cannot re-create by
// buffering it.
func TestBodyWithoutGetBody(t *testing.T) {
	f := newFake(t, nil)
	tr := testTransport(t, nil)
	req, err := http.NewRequest(http.MethodPost, f.rs.URL+"/mcp", io.NopCloser(strings.NewReader("payload")))
	if err != nil {
		t.Fatal(err)
	}
	if req.GetBody != nil {
		t.Fatal("test needs a request without GetBody")
	}
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	if len(f.bodies) != 1 || f.bodies[0] != "payload" {
		t.Errorf("resource saw %q, want the body replayed", f.bodies)
	}
}

// TestBadDocuments fails on metadata and token answers that are broken:
// a server error, an oversized or malformed document, a bad expires_in.
func TestBadDocuments(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		status     int
		body       string
		want       string
	}{
		{"metadata 500", "/.well-known/oauth-authorization-server", 500, "", "status 500"},
		{"metadata oversized", "/.well-known/oauth-authorization-server", 200, `{"issuer":"` + strings.Repeat("x", maxDocument) + `"}`, "exceeds"},
		{"metadata malformed", "/.well-known/oauth-authorization-server", 200, `{`, "decoding body"},
		{"resource metadata 503", "/.well-known/oauth-protected-resource/mcp", 503, "", "status 503"},
		{"no token endpoint", "/.well-known/oauth-authorization-server", 200, `{"issuer":"ISSUER"}`, "no token_endpoint"},
		{"another issuer", "/.well-known/oauth-authorization-server", 200, `{"issuer":"https://evil.example","token_endpoint":"https://evil.example/token"}`, `is for issuer "https://evil.example"`},
		{"negative expires_in", "/token", 200, `{"access_token":"a","token_type":"bearer","expires_in":-1}`, "expires_in"},
		{"no access token", "/token", 200, `{"token_type":"bearer"}`, "no access_token"},
		{"token not JSON", "/token", 200, `<html>`, "decoding body"},
		{"registration without client_id", "/register", 201, `{}`, "no client_id"},
		{"registration not JSON", "/register", 201, `nope`, "decoding body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, nil)
			override := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == tc.path {
					w.WriteHeader(tc.status)
					_, _ = io.WriteString(w, strings.ReplaceAll(tc.body, "ISSUER", f.issuer()))
					return
				}
				if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
					f.serveRS(w, r)
					return
				}
				f.serveAS(w, r)
			}))
			defer override.Close()
			// Route both sides through the overriding server.
			f.as.Config.Handler = override.Config.Handler
			f.rs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == tc.path {
					override.Config.Handler.ServeHTTP(w, r)
					return
				}
				f.serveRS(w, r)
			})
			tr := testTransport(t, nil)
			if _, _, err := post(t, tr, f, "{}"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestMetadataRedirect follows a redirect to the metadata document.
func TestMetadataRedirect(t *testing.T) {
	f := newFake(t, func(f *fakeAS) { f.metaPath = "/moved" })
	inner := f.as.Config.Handler
	f.as.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-authorization-server" {
			http.Redirect(w, r, "/moved", http.StatusMovedPermanently)
			return
		}
		inner.ServeHTTP(w, r)
	})
	tr := testTransport(t, nil)
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("got %d %v", status, err)
	}
}

// TestRequestUnchanged leaves the caller's request as it was, body
// included, when it buffers the body for a retry.
func TestRequestUnchanged(t *testing.T) {
	f := newFake(t, nil)
	tr := testTransport(t, nil)
	body := io.NopCloser(strings.NewReader("payload"))
	req, err := http.NewRequest(http.MethodPost, f.rs.URL+"/mcp", body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Body != body || req.Header.Get("Authorization") != "" {
		t.Errorf("the request changed: body %v, Authorization %q", req.Body, req.Header.Get("Authorization"))
	}
}

// TestOtherScheme leaves a 401 that challenges only for another scheme
// alone, and treats a 401 without any challenge as OAuth's.
func TestOtherScheme(t *testing.T) {
	for _, tc := range []struct {
		header string
		auth   bool
	}{{`Basic realm="x"`, false}, {"", true}} {
		f := newFake(t, nil)
		inner := f.rs.Config.Handler
		f.rs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/mcp" && r.Header.Get("Authorization") == "" {
				if tc.header != "" {
					w.Header().Set("WWW-Authenticate", tc.header)
				}
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
		tr := testTransport(t, nil)
		status, _, err := post(t, tr, f, "{}")
		if err != nil {
			t.Fatal(err)
		}
		if authorized := len(f.authReqs) > 0; authorized != tc.auth || (tc.auth && status != 200) || (!tc.auth && status != 401) {
			t.Errorf("challenge %q: status %d after %d authorizations", tc.header, status, len(f.authReqs))
		}
	}
}
