package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAS is an authorization server and protected resource for tests,
// one httptest server each, configured per test. Every request either
// receives is recorded as "METHOD path".
type fakeAS struct {
	t *testing.T

	// resource side
	prmPath     string // "" : no protected resource metadata
	prmInHeader bool   // name the PRM URL in WWW-Authenticate
	prmResource string // override of the PRM's resource member
	prmScopes   []string
	// challengeScope is put in the 401 challenge.
	challengeScope string
	// need returns the scopes a request to the resource needs (nil:
	// any valid token does).
	need func(r *http.Request) []string
	// resourceStatus, when set, answers every request carrying a token.
	resourceStatus int

	// authorization server side
	sameOrigin  bool   // the resource's origin serves the AS too (2025-03-26)
	prefix      string // issuer path, such as "/tenant1"
	metaPath    string // "" : no metadata document
	noS256      bool
	cimd        bool
	methods     []string // token_endpoint_auth_methods_supported
	noRegister  bool     // advertise no registration endpoint
	regMethod   string   // token_endpoint_auth_method the registration returns
	regSecret   string
	grantable   []string // nil: grant every scope asked for
	asScopes    []string // scopes_supported of the server's metadata
	assertion   string   // the JWT bearer grant's expected assertion
	tokenStatus int      // non-zero: the token endpoint fails with it
	tokenType   string   // "" : Bearer
	expiresIn   int
	refresh     bool // issue refresh tokens
	refreshFail bool // refresh_token grant fails
	clientKey   crypto.PublicKey
	authError   string // the authorization endpoint redirects with error
	wrongState  bool

	mu       sync.Mutex
	log      []string
	tokens   map[string][]string // access token -> scopes
	issued   int
	authReqs []url.Values
	tokReqs  []url.Values
	tokAuth  []string // Authorization header of each token request
	regs     []map[string]any
	bodies   []string          // bodies of resource requests with a valid token
	verifier map[string]string // code -> code_challenge

	rs, as *httptest.Server
}

func newFake(t *testing.T, configure func(f *fakeAS)) *fakeAS {
	f := &fakeAS{t: t, prmPath: "/.well-known/oauth-protected-resource/mcp", prmInHeader: true,
		metaPath: "/.well-known/oauth-authorization-server", methods: []string{"none"},
		tokens: map[string][]string{}, verifier: map[string]string{}}
	if configure != nil {
		configure(f)
	}
	f.as = httptest.NewServer(http.HandlerFunc(f.serveAS))
	f.rs = httptest.NewServer(http.HandlerFunc(f.serveRS))
	t.Cleanup(func() {
		f.rs.Close()
		f.as.Close()
	})
	return f
}

func (f *fakeAS) record(r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
}

// requests returns the recorded requests.
func (f *fakeAS) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

func (f *fakeAS) issuer() string {
	if f.sameOrigin {
		return f.rs.URL + f.prefix
	}
	return f.as.URL + f.prefix
}

func (f *fakeAS) serveRS(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	if f.prmPath != "" && r.Method == http.MethodGet && r.URL.Path == f.prmPath {
		resource := f.rs.URL + "/mcp"
		if f.prmResource != "" {
			resource = f.prmResource
		}
		writeJSON(w, 200, map[string]any{"resource": resource,
			"authorization_servers": []string{f.issuer()}, "scopes_supported": f.prmScopes})
		return
	}
	if r.URL.Path != "/mcp" {
		if f.sameOrigin {
			f.serveAS(w, r)
			return
		}
		http.NotFound(w, r)
		return
	}
	challenge := func(status int, extra string) {
		parts := []string{}
		if extra != "" {
			parts = append(parts, extra)
		}
		if f.prmInHeader && f.prmPath != "" {
			parts = append(parts, fmt.Sprintf("resource_metadata=%q", f.rs.URL+f.prmPath))
		}
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(parts, ", "))
		w.WriteHeader(status)
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	scopes, valid := f.tokens[tok]
	f.mu.Unlock()
	if !ok || !valid {
		extra := `error="invalid_token"`
		if f.challengeScope != "" {
			extra += fmt.Sprintf(", scope=%q", f.challengeScope)
		}
		challenge(http.StatusUnauthorized, extra)
		return
	}
	if f.resourceStatus != 0 {
		w.WriteHeader(f.resourceStatus)
		return
	}
	if f.need != nil {
		if need := f.need(r); !containsAll(scopes, need) {
			challenge(http.StatusForbidden, fmt.Sprintf(`error="insufficient_scope", scope=%q`, strings.Join(need, " ")))
			return
		}
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	_, _ = io.WriteString(w, "ok")
}

func (f *fakeAS) serveAS(w http.ResponseWriter, r *http.Request) {
	if !f.sameOrigin {
		f.record(r)
	}
	p := r.URL.Path
	switch {
	case f.metaPath != "" && p == f.metaPath:
		m := map[string]any{
			"issuer":                                f.issuer(),
			"authorization_endpoint":                f.issuer() + "/authorize",
			"token_endpoint":                        f.issuer() + "/token",
			"registration_endpoint":                 f.issuer() + "/register",
			"token_endpoint_auth_methods_supported": f.methods,
			"response_types_supported":              []string{"code"},
		}
		if f.asScopes != nil {
			m["scopes_supported"] = f.asScopes
		}
		if f.noRegister {
			delete(m, "registration_endpoint")
		}
		if !f.noS256 {
			m["code_challenge_methods_supported"] = []string{"S256"}
		}
		if f.cimd {
			m["client_id_metadata_document_supported"] = true
		}
		writeJSON(w, 200, m)
	case p == f.prefix+"/authorize" || (f.metaPath == "" && p == "/authorize"):
		q := r.URL.Query()
		f.mu.Lock()
		f.authReqs = append(f.authReqs, q)
		f.mu.Unlock()
		back, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || q.Get("redirect_uri") == "" {
			http.Error(w, "bad redirect_uri", 400)
			return
		}
		bq := url.Values{}
		state := q.Get("state")
		if f.wrongState {
			state = "forged"
		}
		bq.Set("state", state)
		if f.authError != "" {
			bq.Set("error", f.authError)
			bq.Set("error_description", "denied by test")
		} else {
			code := fmt.Sprintf("code-%d", len(f.authReqs))
			f.mu.Lock()
			f.verifier[code] = q.Get("code_challenge") + " " + q.Get("scope")
			f.mu.Unlock()
			bq.Set("code", code)
		}
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case p == f.prefix+"/token" || (f.metaPath == "" && p == "/token"):
		f.token(w, r)
	case p == f.prefix+"/register" || (f.metaPath == "" && p == "/register"):
		var meta map[string]any
		if err := json.NewDecoder(r.Body).Decode(&meta); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		f.mu.Lock()
		f.regs = append(f.regs, meta)
		f.mu.Unlock()
		resp := map[string]any{"client_id": "registered-client"}
		if f.regSecret != "" {
			resp["client_secret"] = f.regSecret
		}
		if f.regMethod != "" {
			resp["token_endpoint_auth_method"] = f.regMethod
		}
		writeJSON(w, 201, resp)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", 400)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokReqs = append(f.tokReqs, r.PostForm)
	f.tokAuth = append(f.tokAuth, r.Header.Get("Authorization"))
	if f.tokenStatus != 0 {
		writeJSON(w, f.tokenStatus, map[string]any{"error": "invalid_client", "error_description": "no such client"})
		return
	}
	var scopes []string
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		entry, ok := f.verifier[code]
		delete(f.verifier, code)
		challenge, scope, _ := strings.Cut(entry, " ")
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
			return
		}
		scopes = strings.Fields(scope)
	case "refresh_token":
		if f.refreshFail || !strings.HasPrefix(r.PostForm.Get("refresh_token"), "refresh-") {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
			return
		}
	case "client_credentials":
		if f.clientKey != nil {
			if err := verifyAssertion(r.PostForm.Get("client_assertion"), f.clientKey, f.issuer()); err != nil {
				writeJSON(w, 401, map[string]any{"error": "invalid_client", "error_description": err.Error()})
				return
			}
		}
		scopes = strings.Fields(r.PostForm.Get("scope"))
	case GrantJWTBearer:
		if f.assertion == "" || r.PostForm.Get("assertion") != f.assertion {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
			return
		}
	default:
		writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	if f.grantable != nil {
		scopes = slices.DeleteFunc(scopes, func(s string) bool { return !slices.Contains(f.grantable, s) })
	}
	f.issued++
	tok := fmt.Sprintf("token-%d", f.issued)
	f.tokens[tok] = scopes
	resp := map[string]any{"access_token": tok, "token_type": "Bearer"}
	if f.tokenType != "" {
		resp["token_type"] = f.tokenType
	}
	if f.expiresIn != 0 {
		resp["expires_in"] = f.expiresIn
	}
	if f.refresh {
		resp["refresh_token"] = fmt.Sprintf("refresh-%d", f.issued)
	}
	writeJSON(w, 200, resp)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// testTransport returns a Transport for f with a client transport of its
// own (closed at the end of the test) and headless authorization.
func testTransport(t *testing.T, configure func(tr *Transport)) *Transport {
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	tr := &Transport{
		Base:        base,
		RedirectURL: "http://localhost:3000/callback",
		ClientName:  "test client",
		Authorize:   HeadlessAuthorize(&http.Client{Transport: base}),
	}
	if configure != nil {
		configure(tr)
	}
	return tr
}

// post sends body to f's resource through tr and returns the status and
// the answer's body.
func post(t *testing.T, tr *Transport, f *fakeAS, body string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.rs.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), nil
}

// verifyAssertion checks a private_key_jwt client assertion: its
// signature with key, and its iss, sub, aud and exp claims.
func verifyAssertion(jwt string, key crypto.PublicKey, audience string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return errors.New("not a JWS")
	}
	var header struct{ Alg string }
	var claims struct {
		Iss, Sub, Aud, Jti string
		Exp, Iat           int64
	}
	for i, v := range []any{&header, &claims} {
		data, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return err
		}
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if header.Alg != "ES256" || len(sig) != 64 ||
			!ecdsa.Verify(k, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return errors.New("bad ES256 signature")
		}
	case *rsa.PublicKey:
		if header.Alg != "RS256" || rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig) != nil {
			return errors.New("bad RS256 signature")
		}
	default:
		return fmt.Errorf("key %T", key)
	}
	switch {
	case claims.Iss != "cc-client" || claims.Sub != "cc-client":
		return fmt.Errorf("iss %q sub %q", claims.Iss, claims.Sub)
	case claims.Aud != audience:
		return fmt.Errorf("aud %q, want %q", claims.Aud, audience)
	case claims.Exp <= time.Now().Unix() || claims.Jti == "":
		return errors.New("expired or no jti")
	}
	return nil
}
