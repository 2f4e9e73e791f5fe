package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/rpcgen/rpcgen/runtime/oauth"
)

// A client that authorizes its requests to an MCP server: the Transport
// registers itself, sends the user to the authorization page (here, by
// printing the URL and reading back the redirect the browser landed on)
// and keeps the token. Plug it into the HTTP client a transport uses,
// such as streamhttp.ClientOptions.HTTPClient.
func ExampleTransport() {
	tr := &oauth.Transport{
		ClientName:  "example client",
		RedirectURL: "http://localhost:8976/callback",
		Authorize: func(ctx context.Context, authURL string) (string, error) {
			fmt.Fprintln(os.Stderr, "open this page, then paste the address you are sent to:", authURL)
			var back string
			_, err := fmt.Fscanln(os.Stdin, &back)
			return back, err
		},
	}
	client := &http.Client{Transport: tr}
	_ = client // e.g. streamhttp.ClientOptions{HTTPClient: client}
}

// A service authenticating as itself with the client-credentials grant
// and a signed JWT.
func ExampleParsePrivateKey() {
	pemData, err := os.ReadFile("client-key.pem")
	if err != nil {
		fmt.Println(err)
		return
	}
	key, err := oauth.ParsePrivateKey(pemData)
	if err != nil {
		fmt.Println(err)
		return
	}
	client := &http.Client{Transport: &oauth.Transport{
		GrantType:  oauth.GrantClientCredentials,
		ClientID:   "my-service",
		PrivateKey: key,
	}}
	_ = client
}
