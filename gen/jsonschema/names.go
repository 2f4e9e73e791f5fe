package jsonschema

import (
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// MethodFileNames returns, for the wire name of each method of p, the
// file-safe name its schema files start with. The name is the wire name
// with every run of characters other than ASCII letters, digits, '-' and
// '_' replaced by one '_', and '_' and '-' trimmed from both ends ("tools/call"
// gives "tools_call", "$/cancelRequest" gives "cancelRequest",
// "autohand.prompt" gives "autohand_prompt"); a name left empty becomes
// "method". Names are then made unique in method order, comparing them
// without regard to case (for case-insensitive file systems): a name
// already taken gets the first free suffix "_2", "_3", ...
func MethodFileNames(p *idl.Protocol) map[string]string {
	out := make(map[string]string, len(p.Methods))
	taken := map[string]bool{}
	for _, m := range p.Methods {
		if _, done := out[m.Name]; done {
			continue
		}
		base := fileSafe(m.Name)
		name := base
		for n := 2; taken[strings.ToLower(name)]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		taken[strings.ToLower(name)] = true
		out[m.Name] = name
	}
	return out
}

// fileSafe is the file-safe form of a wire name, before it is made unique.
func fileSafe(s string) string {
	var b strings.Builder
	gap := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			if gap {
				b.WriteByte('_')
				gap = false
			}
			b.WriteByte(c)
			continue
		}
		gap = true
	}
	name := strings.Trim(b.String(), "_-")
	if name == "" {
		return "method"
	}
	return name
}
