package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTokenEndpointAuthMethods authenticates at the token endpoint the
// way the registration or the server's metadata says.
func TestTokenEndpointAuthMethods(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("registered-client:s%2Fcret"))
	for _, tc := range []struct {
		name               string
		methods            []string
		regMethod, secret  string
		wantRegMethod      string
		wantAuth           string
		wantBodyClientAuth bool
	}{
		{"basic from registration", []string{"client_secret_basic"}, "client_secret_basic", "s/cret", "client_secret_basic", basic, false},
		{"post from registration", []string{"client_secret_post"}, "client_secret_post", "s/cret", "client_secret_post", "", true},
		{"none", []string{"none"}, "none", "", "none", "", false},
		{"basic chosen from metadata", []string{"client_secret_basic", "client_secret_post"}, "", "s/cret", "client_secret_basic", basic, false},
		{"post chosen from metadata", []string{"client_secret_post"}, "", "s/cret", "client_secret_post", "", true},
		{"basic when metadata omits methods", nil, "", "s/cret", "client_secret_basic", basic, false},
		{"basic when no listed method fits a secret", []string{"private_key_jwt"}, "", "s/cret", "", basic, false},
		{"public when no secret issued", []string{"client_secret_basic"}, "", "", "client_secret_basic", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(f *fakeAS) {
				f.regMethod, f.regSecret = tc.regMethod, tc.secret
				f.methods = tc.methods
			})
			tr := testTransport(t, nil)
			if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
				t.Fatalf("got %d %v", status, err)
			}
			reg, _ := f.regs[0]["token_endpoint_auth_method"].(string)
			if reg != tc.wantRegMethod {
				t.Errorf("registration asked for %q, want %q", reg, tc.wantRegMethod)
			}
			if got := f.tokAuth[0]; got != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", got, tc.wantAuth)
			}
			q := f.tokReqs[0]
			if got := q.Has("client_secret"); got != tc.wantBodyClientAuth {
				t.Errorf("client_secret in body: %v, want %v", got, tc.wantBodyClientAuth)
			}
			if tc.wantAuth == "" && q.Get("client_id") != "registered-client" {
				t.Errorf("client_id %q in body, want registered-client", q.Get("client_id"))
			}
		})
	}
}

// TestClientCredentials obtains a token with the client-credentials grant,
// authenticating with a secret or with a signed assertion.
func TestClientCredentials(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("secret", func(t *testing.T) {
		f := newFake(t, func(f *fakeAS) { f.methods = []string{"client_secret_basic"}; f.challengeScope = "s1" })
		tr := testTransport(t, func(tr *Transport) {
			tr.GrantType, tr.ClientID, tr.ClientSecret, tr.Authorize = GrantClientCredentials, "cc-client", "pw", nil
		})
		if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
			t.Fatalf("got %d %v", status, err)
		}
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte("cc-client:pw"))
		if f.tokAuth[0] != want || f.tokReqs[0].Get("grant_type") != "client_credentials" || f.tokReqs[0].Get("scope") != "s1" {
			t.Errorf("token request %v with %q", f.tokReqs[0], f.tokAuth[0])
		}
		if len(f.authReqs)+len(f.regs) != 0 {
			t.Errorf("authorized or registered in a client-credentials grant")
		}
	})
	for name, key := range map[string]any{"ES256": ecKey, "RS256": rsaKey} {
		t.Run(name, func(t *testing.T) {
			der, err := x509.MarshalPKCS8PrivateKey(key)
			if err != nil {
				t.Fatal(err)
			}
			signer, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
			if err != nil {
				t.Fatal(err)
			}
			f := newFake(t, func(f *fakeAS) {
				f.methods = []string{"private_key_jwt"}
				f.clientKey = signer.Public()
			})
			tr := testTransport(t, func(tr *Transport) {
				tr.GrantType, tr.ClientID, tr.PrivateKey = GrantClientCredentials, "cc-client", signer
			})
			if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
				t.Fatalf("got %d %v", status, err)
			}
			if q := f.tokReqs[0]; q.Get("client_assertion_type") != clientAssertionType || q.Get("client_id") != "cc-client" {
				t.Errorf("token request %v", q)
			}
		})
	}
	t.Run("wrong key", func(t *testing.T) {
		other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		f := newFake(t, func(f *fakeAS) { f.clientKey = &ecKey.PublicKey })
		tr := testTransport(t, func(tr *Transport) {
			tr.GrantType, tr.ClientID, tr.PrivateKey = GrantClientCredentials, "cc-client", other
		})
		var oe *Error
		if _, _, err := post(t, tr, f, "{}"); !errors.As(err, &oe) || oe.Code != "invalid_client" || oe.Status != 401 || strings.Count(err.Error(), "oauth:") != 1 {
			t.Errorf("got %v, want invalid_client (401)", err)
		}
	})
	t.Run("no client id", func(t *testing.T) {
		f := newFake(t, nil)
		tr := testTransport(t, func(tr *Transport) { tr.GrantType = GrantClientCredentials })
		if _, _, err := post(t, tr, f, "{}"); err == nil || !strings.Contains(err.Error(), "Transport.ClientID") {
			t.Errorf("got %v, want an error naming ClientID", err)
		}
	})
}

// TestRefresh refreshes a token known to have expired before sending, and
// a token the server rejects, falling back to a new authorization when
// the refresh fails.
func TestRefresh(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	f := newFake(t, func(f *fakeAS) { f.refresh, f.expiresIn = true, 60 })
	tr := testTransport(t, func(tr *Transport) { tr.clock = clock })
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("first: %d %v", status, err)
	}
	tok := tr.Token()
	if tok.RefreshToken != "refresh-1" || !tok.Expiry.Equal(now.Add(time.Minute)) {
		t.Fatalf("token %+v: want refresh-1 expiring in a minute", tok)
	}
	now = now.Add(time.Hour)
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("after expiry: %d %v", status, err)
	}
	if n := len(f.tokReqs); n != 2 || f.tokReqs[1].Get("grant_type") != "refresh_token" || f.tokReqs[1].Get("refresh_token") != "refresh-1" {
		t.Fatalf("token requests %v: want a refresh with refresh-1", f.tokReqs)
	}
	if f.tokReqs[1].Get("resource") != f.rs.URL+"/mcp" {
		t.Errorf("refresh without resource: %v", f.tokReqs[1])
	}
	// Rejected while unexpired: refresh on the 401.
	f.mu.Lock()
	delete(f.tokens, "token-2")
	f.mu.Unlock()
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("after revocation: %d %v", status, err)
	}
	if last := f.tokReqs[len(f.tokReqs)-1]; last.Get("refresh_token") != "refresh-2" {
		t.Errorf("want a refresh with refresh-2, got %v", last)
	}
	// Refresh failing: a new authorization.
	f.refreshFail = true
	now = now.Add(time.Hour)
	f.mu.Lock()
	clear(f.tokens)
	f.mu.Unlock()
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("after failed refresh: %d %v", status, err)
	}
	if len(f.authReqs) != 2 {
		t.Errorf("%d authorizations, want 2", len(f.authReqs))
	}
}

// TestAuthorizationFailures covers each way the flow can fail; every one
// is an error, none a request sent without authorization.
func TestAuthorizationFailures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		configure func(f *fakeAS)
		transport func(tr *Transport)
		want      string
	}{
		{"no S256", func(f *fakeAS) { f.noS256 = true }, nil, "S256"},
		{"error redirect", func(f *fakeAS) { f.authError = "access_denied" }, nil, "access_denied: denied by test"},
		{"wrong state", func(f *fakeAS) { f.wrongState = true }, nil, "wrong state"},
		{"token endpoint error", func(f *fakeAS) { f.tokenStatus = 401 }, nil, "invalid_client: no such client (status 401)"},
		{"not a bearer token", func(f *fakeAS) { f.tokenType = "mac" }, nil, "not Bearer"},
		{"no Authorize", nil, func(tr *Transport) { tr.Authorize = nil }, "Transport.Authorize"},
		{"unknown grant", nil, func(tr *Transport) { tr.GrantType = "password" }, "unsupported grant type"},
		{"no registration endpoint", func(f *fakeAS) { f.noRegister = true }, nil, "neither dynamic client registration"},
		// Metadata only at the root for an issuer with a path: not found,
		// so the default endpoints, where nothing answers.
		{"registration fails", func(f *fakeAS) { f.prefix = "/x" }, nil, "registration failed (status 404)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.configure)
			tr := testTransport(t, tc.transport)
			_, _, err := post(t, tr, f, "{}")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if tr.Token() != nil {
				t.Errorf("kept a token after failing")
			}
		})
	}
}

// TestHeadlessAuthorizeNeedsRedirect fails when the endpoint does not
// redirect.
func TestHeadlessAuthorizeNeedsRedirect(t *testing.T) {
	f := newFake(t, nil)
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	_, err := HeadlessAuthorize(&http.Client{Transport: base})(t.Context(), f.as.URL+"/nowhere")
	if err == nil || !strings.Contains(err.Error(), "without a redirect") {
		t.Errorf("got %v, want a missing-redirect error", err)
	}
}

// TestParsePrivateKey accepts the PEM forms of P-256 and RSA keys and
// rejects others.
func TestParsePrivateKey(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	sec1, _ := x509.MarshalECPrivateKey(ec)
	p384, _ := x509.MarshalPKCS8PrivateKey(ec384)
	enc := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }
	for name, tc := range map[string]struct {
		pem  []byte
		fail string
	}{
		"sec1":    {enc("EC PRIVATE KEY", sec1), ""},
		"pkcs1":   {enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rk)), ""},
		"p384":    {enc("PRIVATE KEY", p384), "P-256"},
		"garbage": {enc("PRIVATE KEY", []byte("junk")), "parsing"},
		"no pem":  {[]byte("nothing"), "no PEM"},
	} {
		_, err := ParsePrivateKey(tc.pem)
		if (tc.fail == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.fail)) {
			t.Errorf("%s: got %v, want failure %q", name, err, tc.fail)
		}
	}
}

// TestJWTBearerGrant presents the assertion Transport.Assertion obtains
// for the server's issuer and the resource.
func TestJWTBearerGrant(t *testing.T) {
	f := newFake(t, func(f *fakeAS) { f.methods = []string{"client_secret_basic"} })
	f.assertion = "grant-for " + f.issuer() + " " + f.rs.URL + "/mcp"
	tr := testTransport(t, func(tr *Transport) {
		tr.GrantType, tr.ClientID, tr.ClientSecret = GrantJWTBearer, "xaa", "pw"
		tr.Assertion = func(_ context.Context, issuer, resource string) (string, error) {
			return "grant-for " + issuer + " " + resource, nil
		}
	})
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Fatalf("got %d %v", status, err)
	}
	if q := f.tokReqs[0]; q.Get("grant_type") != GrantJWTBearer || !strings.HasPrefix(f.tokAuth[0], "Basic ") {
		t.Errorf("token request %v with %q", q, f.tokAuth[0])
	}
	for name, configure := range map[string]func(tr *Transport){
		"no Assertion": func(tr *Transport) { tr.Assertion = nil },
		"Assertion fails": func(tr *Transport) {
			tr.Assertion = func(context.Context, string, string) (string, error) { return "", errors.New("idp down") }
		},
		"no client id": func(tr *Transport) { tr.ClientID = "" },
	} {
		tr := testTransport(t, func(tr *Transport) {
			tr.GrantType, tr.ClientID = GrantJWTBearer, "xaa"
			tr.Assertion = func(context.Context, string, string) (string, error) { return "x", nil }
			configure(tr)
		})
		if _, _, err := post(t, tr, f, "{}"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestOfflineAccess asks for offline_access with the other scopes when the
// authorization server lists it, and not otherwise.
func TestOfflineAccess(t *testing.T) {
	for _, tc := range []struct {
		as        []string
		challenge string
		want      string
	}{
		{[]string{"mcp:basic", "offline_access"}, "mcp:basic", "mcp:basic offline_access"},
		{[]string{"mcp:basic"}, "mcp:basic", "mcp:basic"},
		{[]string{"offline_access"}, "", ""},
	} {
		f := newFake(t, func(f *fakeAS) { f.asScopes, f.challengeScope = tc.as, tc.challenge })
		tr := testTransport(t, nil)
		if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
			t.Fatalf("got %d %v", status, err)
		}
		if got := f.authReqs[0].Get("scope"); got != tc.want {
			t.Errorf("server scopes %q, challenge %q: scope %q, want %q", tc.as, tc.challenge, got, tc.want)
		}
	}
}
