package idl

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Load reads the IDL file at path, and the files it includes, and returns
// the resolved protocol. When anything is wrong it returns a nil Protocol
// and an [Errors] holding every problem found, each with its position;
// only an unreadable root file gives another error.
func Load(path string) (*Protocol, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse is like [Load] for a file whose contents are src. Included files
// are read from disk, relative to the directory of filename.
func Parse(filename string, src []byte) (*Protocol, error) {
	return parse(filename, src, os.ReadFile)
}

// ParseFunc is like [Parse], reading included files with read instead of
// from disk; read gets each included file's path joined to the directory
// of the file including it, as [Load] would open it. rpcgen breaking uses
// it to load a protocol as it was at a git revision.
func ParseFunc(filename string, src []byte, read func(path string) ([]byte, error)) (*Protocol, error) {
	return parse(filename, src, read)
}

// parse is Parse reading included files with read.
func parse(filename string, src []byte, read func(string) ([]byte, error)) (*Protocol, error) {
	l := &loader{errs: &errorList{}, loaded: map[string]bool{}, read: read}
	l.load(filepath.Clean(filename), src, true)
	var p *Protocol
	if n := len(l.files); n > 0 && l.files[n-1].spec.path == filepath.Clean(filename) {
		p = resolve(l.files, l.errs)
	}
	if errs := l.errs.sorted(); errs != nil {
		return nil, errs
	}
	return p, nil
}

// loadedFile is one decoded file and its converter, for positions inside
// strings.
type loadedFile struct {
	spec *fileSpec
	dec  *decoder
}

// loader reads a file and its includes, depth first: included files come
// before the file that includes them.
type loader struct {
	errs   *errorList
	read   func(string) ([]byte, error)
	files  []loadedFile
	loaded map[string]bool // by absolute path
	stack  []string        // absolute paths of the files being loaded
	names  []string        // display paths matching stack
}

// identity returns the key under which path is remembered.
func identity(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// load decodes the file at path (whose contents are src) and, first, the
// files it includes. root is true for the file given to Load.
func (l *loader) load(path string, src []byte, root bool) {
	id := identity(path)
	l.loaded[id] = true
	l.stack = append(l.stack, id)
	l.names = append(l.names, path)
	defer func() {
		l.stack = l.stack[:len(l.stack)-1]
		l.names = l.names[:len(l.names)-1]
	}()
	conv := &converter{file: path, errs: l.errs}
	n := parseYAML(path, src, l.errs, conv)
	if n == nil {
		return
	}
	d := &decoder{conv: conv, errs: l.errs}
	spec := d.decodeFile(path, n, root)
	seen := map[string]Pos{}
	for _, ref := range spec.includes {
		target := ref.name
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		tid := identity(target)
		if first, dup := seen[tid]; dup {
			l.errs.add(ref.pos, "%q is included twice (first at line %d); remove one", ref.name, first.Line)
			continue
		}
		seen[tid] = ref.pos
		if i := indexOf(l.stack, tid); i >= 0 {
			chain := ""
			for _, name := range l.names[i:] {
				chain += name + " -> "
			}
			l.errs.add(ref.pos, "include cycle: %s%s; remove one of these includes", chain, filepath.Clean(target))
			continue
		}
		if l.loaded[tid] {
			continue
		}
		data, err := l.read(target)
		if err != nil {
			why := "cannot be read"
			switch {
			case errors.Is(err, fs.ErrNotExist):
				why = "does not exist"
			case errors.Is(err, fs.ErrPermission):
				why = "is not readable"
			}
			l.errs.add(ref.pos, "included file %q %s (looked for %s); include paths are relative to the including file", ref.name, why, filepath.Clean(target))
			continue
		}
		l.load(filepath.Clean(target), data, false)
	}
	l.files = append(l.files, loadedFile{spec: spec, dec: d})
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
