package golang

import (
	"bytes"
	"go/format"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// groupImports groups the imports of a rendered file (see
// [regroupImports]) and formats it with [formatSource].
func groupImports(src []byte) ([]byte, error) {
	return formatSource(regroupImports(src))
}

// regroupImports splits the import block of a rendered file into standard
// library imports, then the others, as goimports does.
func regroupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	body := start + len("\nimport (\n")
	end := bytes.Index(src[body:], []byte("\n)\n"))
	if end < 0 {
		return src
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
	return out.Bytes()
}

// chunkSize is the size of the pieces [formatSource] cuts a large source
// into.
const chunkSize = 256 << 10

// formatSource formats src as go/format does. A large src is cut into
// pieces at blank lines followed by a line that starts at column 0 (see
// [cutTopLevel]), formatted at the same time, and joined: see
// [formatPieces].
func formatSource(src []byte) ([]byte, error) {
	if out, ok := formatPieces(cutTopLevel(src, chunkSize)); ok {
		return out, nil
	}
	return format.Source(src)
}

// formatPieces formats each piece of a cut source at the same time as the
// others (after a package clause of its own, but for the first) and joins
// them by a blank line. That gives the bytes that formatting the source
// whole gives when every cut lies between two top-level declarations:
// gofmt keeps one blank line between declarations that have one, and
// aligns columns only within a run of lines without a blank one. A cut
// anywhere else (inside a function body, a literal or a comment) leaves a
// piece that does not parse (the piece ending at the first such cut
// starts at the top level and ends inside something unclosed): then, or
// with fewer than two pieces, ok is false.
func formatPieces(pieces [][]byte) (out []byte, ok bool) {
	if len(pieces) < 2 {
		return nil, false
	}
	const clause = "package p\n\n"
	formatted := make([][]byte, len(pieces))
	failed := make([]bool, len(pieces))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, piece := range pieces {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if i == 0 {
				f, err := format.Source(piece)
				formatted[i], failed[i] = f, err != nil
				return
			}
			f, err := format.Source(append([]byte(clause), piece...))
			f, cut := bytes.CutPrefix(f, []byte(clause))
			formatted[i], failed[i] = f, err != nil || !cut
		})
	}
	wg.Wait()
	if slices.Contains(failed, true) {
		return nil, false
	}
	return bytes.Join(formatted, []byte("\n")), true
}

// cutTopLevel cuts src into pieces of size bytes or more, each cut at a
// blank line followed by a line that starts with a letter or a slash
// (where a top-level declaration or its doc comment may start): the piece
// before keeps its last newline, the blank line goes, so that the pieces
// joined by a newline are src.
func cutTopLevel(src []byte, size int) [][]byte {
	var pieces [][]byte
	for len(src) > 2*size {
		at := -1
		for j := size; at < 0; {
			k := bytes.Index(src[j:], []byte("\n\n"))
			if k < 0 {
				break
			}
			if c := j + k + 2; c < len(src) && (src[c] == '/' || 'a' <= src[c] && src[c] <= 'z' || 'A' <= src[c] && src[c] <= 'Z') {
				at = j + k
			}
			j += k + 1
		}
		if at < 0 {
			break
		}
		pieces = append(pieces, src[:at+1])
		src = src[at+2:]
	}
	return append(pieces, src)
}

// formatSlots bounds how many parts of files (see [startPart]) are
// formatted at once.
var formatSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// part is one rendered part of a file (see [file.flush]), formatted on its
// own while the generator builds the next ones.
type part struct {
	// raw is the part as rendered, kept for [joinParts]'s fallback
	// when it does not format on its own.
	raw []byte
	// done is closed once out and ok are set.
	done chan struct{}
	// out is the part formatted, its doc comments linked; ok is false
	// when it did not format on its own.
	out []byte
	ok  bool
	// scanned, when the part was started to be scanned, holds what
	// [scanDecls] finds in out, its offsets counted from the package
	// clause formatPart put before it; scanErr is why not.
	scanned srcDecls
	scanErr error
}

// startPart starts formatting raw, a part of a file that starts and ends
// between two top-level declarations, with its doc comments linked; with
// scan, the formatted part is scanned for [splitScanned] too.
func startPart(raw []byte, links linkSet, scan bool) *part {
	p := &part{raw: raw, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		formatSlots <- struct{}{}
		defer func() { <-formatSlots }()
		var file []byte
		linked := linkComments(raw, links)
		file, p.out, p.ok = formatPart(linked)
		if p.ok {
			p.raw = nil
		} else {
			p.raw = linked
		}
		if scan && p.ok && p.out != nil {
			p.scanned, p.scanErr = scanDecls(file)
		}
	}()
	return p
}

// partClause is the package clause [formatPart] formats a part after.
const partClause = "package p\n\n"

// formatPart formats src, declarations without a package clause, as
// [formatPieces] formats a piece after the first: nothing when src is
// blank. file is the part formatted after partClause, out the part alone.
func formatPart(src []byte) (file, out []byte, ok bool) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil, true
	}
	file, err := format.Source(append([]byte(partClause), src...))
	out, cut := bytes.CutPrefix(file, []byte(partClause))
	return file, out, err == nil && cut
}

// joinParts returns the formatted file made of head (its header, package
// clause and imports) and parts, in order, joined by a blank line: the
// bytes formatting them whole gives, for the reasons [formatPieces]
// gives, as every part starts and ends between two declarations with a
// blank line between them. When a part did not format on its own, the
// file is joined (each part formatted, or linked as rendered when it did
// not format) and formatted whole with format.
//
// When the parts were started to be scanned and all were, top is what
// [scanDecls] finds in the file (the head is scanned here); otherwise nil.
func joinParts(head []byte, parts []*part, links linkSet, format func([]byte) ([]byte, error)) (src []byte, top *srcDecls, err error) {
	head = regroupImports(linkComments(head, links))
	out, err := formatSource(head)
	ok := err == nil
	size := len(out)
	for _, p := range parts {
		<-p.done
		ok = ok && p.ok
		size += len(p.out) + 1
	}
	if !ok {
		src := head
		for _, p := range parts {
			if p.ok && p.out != nil {
				src = append(append(src, '\n'), p.out...)
			} else {
				src = append(src, p.raw...)
			}
		}
		src, err = format(src)
		return src, nil, err
	}
	scanned, err := scanDecls(out)
	if err != nil {
		top = nil
	} else {
		top = &scanned
	}
	out = append(make([]byte, 0, size), out...)
	for _, p := range parts {
		if p.out == nil {
			continue
		}
		out = append(out, '\n')
		if top != nil && p.scanErr == nil && p.scanned.decls != nil {
			// p.out starts at len(out), p.scanned's offsets at the
			// clause before it.
			shift := len(out) - len(partClause)
			for _, d := range p.scanned.decls {
				d.end += shift
				top.decls = append(top.decls, d)
			}
		} else {
			top = nil
		}
		out = append(out, p.out...)
	}
	return out, top, nil
}
