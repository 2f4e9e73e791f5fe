package oauth

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestDiscoveryLocations checks which metadata locations the Transport
// tries, in order, for each way a server can publish them: the protected
// resource metadata named in the challenge, path-aware or at the root,
// or absent (2025-03-26); the authorization server's metadata at RFC
// 8414's or OpenID Connect's location, with an issuer path inserted or
// appended, or absent (default endpoints at the origin).
func TestDiscoveryLocations(t *testing.T) {
	for _, tc := range []struct {
		name      string
		configure func(f *fakeAS)
		want      []string // requests before the authorization request
	}{
		{"named in challenge", nil, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-authorization-server",
			"POST /register"}},
		{"path-aware, openid", func(f *fakeAS) {
			f.prmInHeader, f.metaPath = false, "/.well-known/openid-configuration"
		}, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-authorization-server",
			"GET /.well-known/openid-configuration",
			"POST /register"}},
		{"root, issuer path inserted", func(f *fakeAS) {
			f.prmInHeader, f.prmPath = false, "/.well-known/oauth-protected-resource"
			f.prefix, f.metaPath = "/tenant1", "/.well-known/oauth-authorization-server/tenant1"
		}, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-protected-resource",
			"GET /.well-known/oauth-authorization-server/tenant1",
			"POST /tenant1/register"}},
		{"custom location, openid path inserted", func(f *fakeAS) {
			f.prmPath = "/custom/metadata.json"
			f.prefix, f.metaPath = "/tenant1", "/.well-known/openid-configuration/tenant1"
		}, []string{
			"POST /mcp",
			"GET /custom/metadata.json",
			"GET /.well-known/oauth-authorization-server/tenant1",
			"GET /.well-known/openid-configuration/tenant1",
			"POST /tenant1/register"}},
		{"openid path appended", func(f *fakeAS) {
			f.prefix, f.metaPath = "/tenant1", "/tenant1/.well-known/openid-configuration"
		}, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-authorization-server/tenant1",
			"GET /.well-known/openid-configuration/tenant1",
			"GET /tenant1/.well-known/openid-configuration",
			"POST /tenant1/register"}},
		{"no resource metadata (2025-03-26)", func(f *fakeAS) {
			f.prmPath, f.sameOrigin, f.prefix = "", true, ""
		}, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-protected-resource",
			"GET /.well-known/oauth-authorization-server",
			"POST /register"}},
		{"no resource metadata, issuer with a path (2025-03-26)", func(f *fakeAS) {
			f.prmPath, f.sameOrigin, f.prefix = "", true, "/oauth"
		}, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-protected-resource",
			"GET /.well-known/oauth-authorization-server",
			"POST /oauth/register"}},
		{"no metadata at all (2025-03-26 defaults)", func(f *fakeAS) {
			f.prmPath, f.sameOrigin, f.metaPath = "", true, ""
		}, []string{
			"POST /mcp",
			"GET /.well-known/oauth-protected-resource/mcp",
			"GET /.well-known/oauth-protected-resource",
			"GET /.well-known/oauth-authorization-server",
			"GET /.well-known/openid-configuration",
			"POST /register"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.configure)
			tr := testTransport(t, nil)
			if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
				t.Fatalf("got %d %v", status, err)
			}
			got := f.requests()
			i := slices.IndexFunc(got, func(s string) bool { return strings.HasSuffix(s, "/authorize") })
			if i < 0 || !slices.Equal(got[:i], tc.want) {
				t.Fatalf("requests:\n got %q\nwant %q then the authorization", got, tc.want)
			}
			if f.prmPath == "" && f.authReqs[0].Has("resource") {
				t.Errorf("resource %q sent without protected resource metadata", f.authReqs[0].Get("resource"))
			}
		})
	}
}

// TestMetadataURLs covers the URL construction on its own, trailing
// slashes included.
func TestMetadataURLs(t *testing.T) {
	u := func(s string) *url.URL {
		v, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"https://rs.example", []string{"https://rs.example/.well-known/oauth-protected-resource"}},
		{"https://rs.example/", []string{"https://rs.example/.well-known/oauth-protected-resource"}},
		{"https://rs.example/a/mcp/?x=1", []string{
			"https://rs.example/.well-known/oauth-protected-resource/a/mcp",
			"https://rs.example/.well-known/oauth-protected-resource"}},
	} {
		if got := resourceMetadataURLs(u(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("resourceMetadataURLs(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := serverMetadataURLs(u("https://as.example/")), []string{
		"https://as.example/.well-known/oauth-authorization-server",
		"https://as.example/.well-known/openid-configuration"}; !slices.Equal(got, want) {
		t.Errorf("serverMetadataURLs(root) = %q, want %q", got, want)
	}
}

// TestResourceMismatch refuses metadata that describes another resource.
func TestResourceMismatch(t *testing.T) {
	for _, resource := range []string{"https://elsewhere.example/mcp", "RELATIVE", "%"} {
		f := newFake(t, func(f *fakeAS) { f.prmResource = resource })
		tr := testTransport(t, nil)
		if _, _, err := post(t, tr, f, "{}"); err == nil || !strings.Contains(err.Error(), "protected resource metadata") {
			t.Errorf("resource %q: got %v, want a protected resource metadata error", resource, err)
		}
		if len(f.authReqs) != 0 {
			t.Errorf("resource %q: authorized anyway", resource)
		}
	}
	// A parent of the endpoint on the same origin is fine.
	f := newFake(t, nil)
	f.prmResource = f.rs.URL
	tr := testTransport(t, nil)
	if status, _, err := post(t, tr, f, "{}"); err != nil || status != 200 {
		t.Errorf("parent resource: %d %v", status, err)
	}
}

// TestPathWithin is the resource check's path rule.
func TestPathWithin(t *testing.T) {
	for _, tc := range []struct {
		parent, child string
		want          bool
	}{
		{"", "/mcp", true}, {"/", "/mcp", true}, {"/mcp", "/mcp", true}, {"/mcp/", "/mcp", true},
		{"/mc", "/mcp", false}, {"/a", "/a/b", true}, {"/a/b", "/a", false},
	} {
		if got := pathWithin(tc.parent, tc.child); got != tc.want {
			t.Errorf("pathWithin(%q, %q) = %v", tc.parent, tc.child, got)
		}
	}
}
