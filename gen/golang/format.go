package golang

import (
	"bytes"
	"go/format"
	"strings"
)

// groupImports splits the import block of a rendered file into standard
// library imports, then the others, as goimports does, and formats the
// file with go/format.
func groupImports(src []byte) ([]byte, error) {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return format.Source(src)
	}
	body := start + len("\nimport (\n")
	end := bytes.Index(src[body:], []byte("\n)\n"))
	if end < 0 {
		return format.Source(src)
	}
	var std, other []string
	for _, line := range strings.Split(string(src[body:body+end]), "\n") {
		path := line
		if i := strings.IndexByte(line, '"'); i >= 0 {
			path = line[i+1:]
		}
		first, _, _ := strings.Cut(path, "/")
		if strings.Contains(first, ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	block := strings.Join(std, "\n")
	if len(std) > 0 && len(other) > 0 {
		block += "\n\n"
	}
	block += strings.Join(other, "\n")
	var out bytes.Buffer
	out.Write(src[:body])
	out.WriteString(block)
	out.Write(src[body+end:])
	return format.Source(out.Bytes())
}
