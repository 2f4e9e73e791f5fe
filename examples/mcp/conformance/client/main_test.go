package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/oauth"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestApplyDefaults fills in the default of every omitted property that
// has one, of each kind, and keeps what was entered.
func TestApplyDefaults(t *testing.T) {
	var schema mcp.ElicitationSchema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"status":{"type":"string","enum":["active","inactive"],"default":"active"},
		"titled":{"type":"string","oneOf":[{"const":"a","title":"A"}],"default":"a"},
		"tags":{"type":"array","items":{"type":"string","enum":["x","y"]},"default":["y"]},
		"verified":{"type":"boolean","default":true},
		"nickname":{"type":"string"},
		"kept":{"type":"string","default":"unused"}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	got := applyDefaults(map[string]mcp.ElicitValue{"kept": mcp.NewElicitValue("typed")}, schema)
	want := map[string]mcp.ElicitValue{
		"name":     mcp.NewElicitValue("John Doe"),
		"age":      mcp.NewElicitValue(30.0),
		"score":    mcp.NewElicitValue(95.5),
		"status":   mcp.NewElicitValue("active"),
		"titled":   mcp.NewElicitValue("a"),
		"tags":     mcp.NewElicitValue([]string{"y"}),
		"verified": mcp.NewElicitValue(true),
		"kept":     mcp.NewElicitValue("typed"),
	}
	if !reflect.DeepEqual(got, want) {
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		t.Errorf("applyDefaults:\n got %s\nwant %s", gotJSON, wantJSON)
	}
}

// TestElicit accepts a form with its defaults and declines a URL.
func TestElicit(t *testing.T) {
	h := &handler{log: slog.New(slog.DiscardHandler)}
	var form mcp.ElicitRequestParams
	if err := json.Unmarshal([]byte(`{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"integer","default":3}}}}`), &form); err != nil {
		t.Fatal(err)
	}
	res, err := h.Elicit(t.Context(), &form)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.ElicitResult; r == nil || r.Action != mcp.ElicitActionAccept || !reflect.DeepEqual(r.Content["n"], mcp.NewElicitValue(3.0)) {
		t.Errorf("form: got %+v, want accept with n=3", res)
	}
	var u mcp.ElicitRequestParams
	if err := json.Unmarshal([]byte(`{"mode":"url","message":"m","url":"https://x.example","elicitationId":"e"}`), &u); err != nil {
		t.Fatal(err)
	}
	res, err = h.Elicit(t.Context(), &u)
	if err != nil || res.ElicitResult == nil || res.ElicitResult.Action != mcp.ElicitActionDecline {
		t.Errorf("url: got %+v %v, want decline", res, err)
	}
}

// TestLookup maps every scenario the suite has to steps, auth/ ones by
// prefix, and refuses others.
func TestLookup(t *testing.T) {
	for _, name := range []string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults", "auth/anything"} {
		if _, err := lookup(name); err != nil {
			t.Errorf("lookup(%q): %v", name, err)
		}
	}
	if _, err := lookup("no-such-scenario"); err == nil {
		t.Error("lookup of an unknown scenario succeeded")
	}
}

// TestAuthorizer configures the oauth.Transport from the scenario and its
// context.
func TestAuthorizer(t *testing.T) {
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	ctxJSON := func(v map[string]string) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	if rt, err := authorizer("initialize", "", base); err != nil || rt != http.RoundTripper(base) {
		t.Errorf("initialize: got %v %v, want the base transport", rt, err)
	}
	for _, tc := range []struct {
		name, ctx, grant, fail string
	}{
		{"auth/metadata-default", "", "", ""},
		{"auth/pre-registration", ctxJSON(map[string]string{"name": "auth/pre-registration", "client_id": "c", "client_secret": "s"}), "", ""},
		{"auth/client-credentials-basic", ctxJSON(map[string]string{"name": "auth/client-credentials-basic", "client_id": "c", "client_secret": "s"}), oauth.GrantClientCredentials, ""},
		{"auth/client-credentials-jwt", ctxJSON(map[string]string{"name": "auth/client-credentials-jwt", "client_id": "c", "private_key_pem": keyPEM}), oauth.GrantClientCredentials, ""},
		{"auth/cross-app-access-complete-flow", ctxJSON(map[string]string{"name": "auth/cross-app-access-complete-flow", "client_id": "c", "client_secret": "s"}), oauth.GrantJWTBearer, ""},
		{"auth/client-credentials-jwt", ctxJSON(map[string]string{"name": "auth/client-credentials-jwt", "client_id": "c", "private_key_pem": "junk"}), "", "no PEM block"},
		{"auth/client-credentials-basic", ctxJSON(map[string]string{"name": "auth/client-credentials-basic"}), "", "needs client credentials"},
		{"auth/client-credentials-basic", ctxJSON(map[string]string{"name": "auth/other"}), "", "is for scenario"},
		{"auth/client-credentials-basic", "{", "", "not a JSON object"},
	} {
		rt, err := authorizer(tc.name, tc.ctx, base)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%s %s: got %v, want an error containing %q", tc.name, tc.ctx, err, tc.fail)
			}
			continue
		}
		tr, ok := rt.(*oauth.Transport)
		if err != nil || !ok {
			t.Errorf("%s: got %T %v, want an oauth.Transport", tc.name, rt, err)
			continue
		}
		if tr.GrantType != tc.grant || tr.ClientMetadataURL != cimdURL || tr.RedirectURL != redirectURL || tr.Authorize == nil {
			t.Errorf("%s: transport %+v", tc.name, tr)
		}
		if (tc.grant == oauth.GrantJWTBearer) != (tr.Assertion != nil) {
			t.Errorf("%s: Assertion set: %v", tc.name, tr.Assertion != nil)
		}
	}
}

// TestExchangeIDToken trades the ID token for an identity assertion grant
// with an RFC 8693 request, and fails on a refusal or another token type.
func TestExchangeIDToken(t *testing.T) {
	issued := tokenTypeIDJAG
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f := r.PostForm
		if f.Get("grant_type") != grantTokenExchange || f.Get("subject_token") != "id-token" ||
			f.Get("subject_token_type") != tokenTypeIDToken || f.Get("requested_token_type") != tokenTypeIDJAG ||
			f.Get("audience") != "https://as.example" || f.Get("resource") != "https://rs.example/mcp" || f.Get("client_id") != "idp-client" {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":"invalid_request"}`)
			return
		}
		_, _ = io.WriteString(w, `{"access_token":"jag","issued_token_type":"`+issued+`","token_type":"N_A"}`)
	}))
	defer idp.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	sc := scenarioContext{IDPTokenEndpoint: idp.URL, IDPIDToken: "id-token", IDPClientID: "idp-client"}
	got, err := exchangeIDToken(t.Context(), base, sc, "https://as.example", "https://rs.example/mcp")
	if err != nil || got != "jag" {
		t.Fatalf("got %q %v, want jag", got, err)
	}
	if _, err := exchangeIDToken(t.Context(), base, sc, "https://other.example", "https://rs.example/mcp"); err == nil || !strings.Contains(err.Error(), "invalid_request") {
		t.Errorf("refused exchange: got %v", err)
	}
	issued = "urn:ietf:params:oauth:token-type:access_token"
	if _, err := exchangeIDToken(t.Context(), base, sc, "https://as.example", "https://rs.example/mcp"); err == nil || !strings.Contains(err.Error(), "not an identity assertion grant") {
		t.Errorf("wrong token type: got %v", err)
	}
	if _, err := exchangeIDToken(t.Context(), base, scenarioContext{}, "a", "r"); err == nil {
		t.Error("exchange without an identity provider succeeded")
	}
}
