package oauth

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestAuthorizationCodeFlow follows the whole first authorization: a 401
// naming the resource metadata, discovery, dynamic registration, PKCE
// (checked by the server), the token request, and the retried request
// with its body.
func TestAuthorizationCodeFlow(t *testing.T) {
	f := newFake(t, nil)
	tr := testTransport(t, nil)
	status, body, err := post(t, tr, f, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if err != nil || status != 200 || body != "ok" {
		t.Fatalf("got %d %q %v, want 200 ok", status, body, err)
	}
	want := []string{
		"POST /mcp",
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /.well-known/oauth-authorization-server",
		"POST /register",
		"GET /authorize",
		"POST /token",
		"POST /mcp",
	}
	if got := f.requests(); !slices.Equal(got, want) {
		t.Fatalf("requests:\n got %q\nwant %q", got, want)
	}
	if got := f.bodies; len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("resource saw bodies %q, want the request's body replayed", got)
	}
	reg := f.regs[0]
	if reg["client_name"] != "test client" || reg["token_endpoint_auth_method"] != "none" {
		t.Errorf("registration %v: want client_name and token_endpoint_auth_method none", reg)
	}
	a := f.authReqs[0]
	for k, v := range map[string]string{"response_type": "code", "client_id": "registered-client",
		"code_challenge_method": "S256", "redirect_uri": tr.RedirectURL, "resource": f.rs.URL + "/mcp"} {
		if a.Get(k) != v {
			t.Errorf("authorization request %s = %q, want %q", k, a.Get(k), v)
		}
	}
	if a.Has("scope") {
		t.Errorf("scope %q sent though nothing names one", a.Get("scope"))
	}
	tq := f.tokReqs[0]
	if tq.Get("client_id") != "registered-client" || tq.Get("resource") != f.rs.URL+"/mcp" || tq.Get("redirect_uri") != tr.RedirectURL {
		t.Errorf("token request %v lacks client_id, resource or redirect_uri", tq)
	}
	if tok := tr.Token(); tok == nil || tok.AccessToken != "token-1" {
		t.Errorf("Token() = %+v, want token-1", tok)
	}
	// A second request uses the token without asking again.
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("second request: %d %v", status, err)
	}
	if n := len(f.requests()); n != len(want)+1 {
		t.Errorf("second request made %d requests, want 1", n-len(want))
	}
}

// TestRegistrationOnce reuses the registered client for a new
// authorization at the same server.
func TestRegistrationOnce(t *testing.T) {
	f := newFake(t, nil)
	tr := testTransport(t, nil)
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	tr.SetToken(&Token{AccessToken: "revoked"})
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	if len(f.regs) != 1 || len(f.authReqs) != 2 {
		t.Errorf("%d registrations, %d authorizations: want 1 and 2", len(f.regs), len(f.authReqs))
	}
}

// TestClientIDMetadataDocument uses the metadata document URL as client
// id where the server accepts it, and registers where it does not.
func TestClientIDMetadataDocument(t *testing.T) {
	const doc = "https://client.example/metadata.json"
	for _, supported := range []bool{true, false} {
		f := newFake(t, func(f *fakeAS) { f.cimd = supported })
		tr := testTransport(t, func(tr *Transport) { tr.ClientMetadataURL = doc })
		if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
			t.Fatalf("supported=%v: %d %v", supported, status, err)
		}
		got := f.authReqs[0].Get("client_id")
		if supported && (got != doc || len(f.regs) != 0) {
			t.Errorf("supported: client_id %q after %d registrations, want %q and none", got, len(f.regs), doc)
		}
		if !supported && (got != "registered-client" || len(f.regs) != 1) {
			t.Errorf("unsupported: client_id %q after %d registrations, want the registered one", got, len(f.regs))
		}
	}
}

// TestPreRegisteredClient uses ClientID and ClientSecret without
// registering.
func TestPreRegisteredClient(t *testing.T) {
	f := newFake(t, func(f *fakeAS) { f.methods = []string{"client_secret_post"} })
	tr := testTransport(t, func(tr *Transport) { tr.ClientID, tr.ClientSecret = "mine", "s3cret" })
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	if len(f.regs) != 0 || f.authReqs[0].Get("client_id") != "mine" {
		t.Errorf("registered %d times, client_id %q", len(f.regs), f.authReqs[0].Get("client_id"))
	}
	if q := f.tokReqs[0]; q.Get("client_id") != "mine" || q.Get("client_secret") != "s3cret" {
		t.Errorf("token request %v: want client_secret_post credentials", q)
	}
}

// TestConcurrentUnauthorized shares one authorization among requests
// that meet a 401 together.
func TestConcurrentUnauthorized(t *testing.T) {
	f := newFake(t, nil)
	tr := testTransport(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("request failed: %v", err)
	}
	if len(f.authReqs) != 1 || len(f.regs) != 1 {
		t.Errorf("%d authorizations and %d registrations, want 1 each", len(f.authReqs), len(f.regs))
	}
}

// TestScopeSelection asks for the challenge's scope, else the
// configured scopes, else the resource's scopes_supported, else none.
func TestScopeSelection(t *testing.T) {
	for _, tc := range []struct {
		name      string
		challenge string
		supported []string
		scopes    []string
		want      string // "-": no scope parameter
	}{
		{"challenge", "mcp:basic", []string{"a", "b"}, []string{"x"}, "mcp:basic"},
		{"configured", "", []string{"a", "b"}, []string{"x", "y"}, "x y"},
		{"supported", "", []string{"a", "b", "c"}, nil, "a b c"},
		{"omitted", "", nil, nil, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(f *fakeAS) { f.challengeScope, f.prmScopes = tc.challenge, tc.supported })
			tr := testTransport(t, func(tr *Transport) { tr.Scopes = tc.scopes })
			if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
				t.Fatalf("%d %v", status, err)
			}
			q := f.authReqs[0]
			got := q.Get("scope")
			if !q.Has("scope") {
				got = "-"
			}
			if got != tc.want {
				t.Errorf("scope %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStepUp answers a 403 insufficient_scope by authorizing again for
// the scopes held and those the challenge names.
func TestStepUp(t *testing.T) {
	f := newFake(t, func(f *fakeAS) {
		f.challengeScope = "mcp:basic"
		f.need = func(r *http.Request) []string {
			if r.URL.Query().Get("op") == "write" {
				return []string{"mcp:basic", "mcp:write"}
			}
			return []string{"mcp:basic"}
		}
	})
	tr := testTransport(t, nil)
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("read: %d %v", status, err)
	}
	req, _ := http.NewRequest(http.MethodPost, f.rs.URL+"/mcp?op=write", strings.NewReader("{}"))
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("write: %v %v", resp, err)
	}
	resp.Body.Close()
	if len(f.authReqs) != 2 {
		t.Fatalf("%d authorizations, want 2", len(f.authReqs))
	}
	if got := f.authReqs[1].Get("scope"); got != "mcp:basic mcp:write" {
		t.Errorf("step-up scope %q, want %q", got, "mcp:basic mcp:write")
	}
	if len(f.regs) != 1 {
		t.Errorf("%d registrations, want 1", len(f.regs))
	}
}

// TestStepUpRefused gives up, returning the 403, once it has asked for
// every scope the challenge names and the server still refuses.
func TestStepUpRefused(t *testing.T) {
	f := newFake(t, func(f *fakeAS) {
		f.challengeScope = "mcp:admin"
		f.need = func(*http.Request) []string { return []string{"mcp:admin", "never-granted"} }
		f.grantable = []string{"mcp:admin"}
	})
	tr := testTransport(t, nil)
	status, _, err := post(t, tr, f, "{}")
	if err != nil || status != http.StatusForbidden {
		t.Fatalf("got %d %v, want the 403 back", status, err)
	}
	if n := len(f.authReqs); n != 2 {
		t.Errorf("%d authorizations, want 2 (first, one step-up)", n)
	}
}

// TestForbiddenWithoutInsufficientScope passes other 403s through.
func TestForbiddenWithoutInsufficientScope(t *testing.T) {
	f := newFake(t, func(f *fakeAS) { f.resourceStatus = http.StatusForbidden })
	tr := testTransport(t, nil)
	tr.SetToken(nil)
	status, _, err := post(t, tr, f, "{}")
	if err != nil || status != http.StatusForbidden || len(f.authReqs) != 1 {
		t.Fatalf("got %d %v after %d authorizations, want 403 after 1", status, err, len(f.authReqs))
	}
}

// TestMaxAuthorizations stops after MaxAuthorizations tokens when the
// server keeps rejecting them, and returns its last answer.
func TestMaxAuthorizations(t *testing.T) {
	f := newFake(t, func(f *fakeAS) { f.resourceStatus = http.StatusUnauthorized })
	for _, max := range []int{0, 1} {
		before := len(f.authReqs)
		tr := testTransport(t, func(tr *Transport) { tr.MaxAuthorizations = max })
		status, _, err := post(t, tr, f, "{}")
		if err != nil || status != http.StatusUnauthorized {
			t.Fatalf("max %d: got %d %v, want the 401 back", max, status, err)
		}
		want := max
		if want == 0 {
			want = DefaultMaxAuthorizations
		}
		if n := len(f.authReqs) - before; n != want {
			t.Errorf("max %d: %d authorizations, want %d", max, n, want)
		}
	}
}

// TestOtherStatusPassesThrough leaves answers other than 401 and 403
// alone.
func TestOtherStatusPassesThrough(t *testing.T) {
	f := newFake(t, nil)
	tr := testTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, f.rs.URL+"/elsewhere", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	if len(f.authReqs) != 0 {
		t.Errorf("authorized for a 404")
	}
}
