package streamhttp

import (
	"net"
	"testing"
)

func TestLocalURL(t *testing.T) {
	for _, tc := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080/mcp"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080/mcp"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 3000}, "http://[::1]:3000/mcp"},
		{&net.TCPAddr{Port: 3000}, "http://127.0.0.1:3000/mcp"},
		{&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 80}, "http://192.0.2.7:80/mcp"},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 443}, "http://[2001:db8::1]:443/mcp"},
	} {
		if got := LocalURL(tc.addr, "/mcp"); got != tc.want {
			t.Errorf("LocalURL(%v) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}
