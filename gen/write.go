package gen

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Write writes files below dir, creating directories as needed. A file
// that already holds the bytes it would get is left alone, modification
// time included, so that regenerating an unchanged protocol rewrites
// nothing. Files are written a few at a time; the error returned is that
// of the first file, in order, that could not be written.
func Write(dir string, files []File) error {
	w := NewWriter(dir)
	w.Write(files)
	return w.Close()
}

// A Writer writes files below a directory as [Write] does, in the
// background, as they are handed to it: a generator's files are written
// while the other generators still run.
type Writer struct {
	dir    string
	next   chan writeJob
	wg     sync.WaitGroup
	closed sync.Once

	mu    sync.Mutex
	n     int             // the files handed over so far
	made  map[string]bool // the directories created or found
	names map[string]map[string]bool
	errs  map[int]error // by the order the files were handed over
	paths []string      // the path of each file handed over, in order
}

// writeJob is one file to write: its place in the order files were
// handed over, its path and content, and whether a file of that name was
// there before this Writer wrote any.
type writeJob struct {
	i       int
	path    string
	content []byte
	exists  bool
}

// NewWriter returns a Writer writing below dir. Its Close must be called.
func NewWriter(dir string) *Writer {
	w := &Writer{
		dir:   dir,
		next:  make(chan writeJob, writers),
		made:  map[string]bool{},
		names: map[string]map[string]bool{},
		errs:  map[int]error{},
	}
	for range writers {
		w.wg.Go(func() {
			buf := make([]byte, 64<<10)
			for j := range w.next {
				if err := writeFile(j.path, j.content, j.exists, buf); err != nil {
					w.mu.Lock()
					w.errs[j.i] = err
					w.mu.Unlock()
				}
			}
		})
	}
	return w
}

// Write starts writing files; where two of them have the same path, the
// later one wins. The caller must not change their contents until Close
// returns, nor hand over again a path of an earlier call.
func (w *Writer) Write(files []File) {
	last := make(map[string]int, len(files))
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(w.dir, filepath.FromSlash(f.Path))
		last[paths[i]] = i
	}
	for i, f := range files {
		if last[paths[i]] != i {
			continue
		}
		w.mu.Lock()
		n := w.n
		w.n++
		err := w.prepare(filepath.Dir(paths[i]))
		exists := w.names[filepath.Dir(paths[i])][filepath.Base(paths[i])]
		if err != nil {
			w.errs[n] = err
		}
		w.paths = append(w.paths, f.Path)
		w.mu.Unlock()
		if err == nil {
			w.next <- writeJob{i: n, path: paths[i], content: f.Content, exists: exists}
		}
	}
}

// prepare creates dir, the first time a file goes there, and lists the
// names it holds. w.mu is held.
func (w *Writer) prepare(dir string) error {
	if w.made[dir] {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	w.made[dir] = true
	// A name not listed is created without first reading what is there;
	// without a listing, every file is read first.
	if d, err := os.Open(dir); err == nil {
		names, err := d.Readdirnames(-1)
		d.Close()
		if err == nil {
			set := make(map[string]bool, len(names))
			for _, n := range names {
				set[n] = true
			}
			w.names[dir] = set
		}
	}
	return nil
}

// Close waits for every file handed over to be written, and returns the
// error of the first one, in the order they were handed over, that could
// not be written. Calling it again returns the same.
func (w *Writer) Close() error {
	w.closed.Do(func() { close(w.next) })
	w.wg.Wait()
	first := -1
	for i := range w.errs {
		if first < 0 || i < first {
			first = i
		}
	}
	if first >= 0 {
		return w.errs[first]
	}
	return nil
}

// Written returns the paths, as handed over, of the files written (or
// found holding their content). It is called after Close.
func (w *Writer) Written() []string {
	var paths []string
	for i, p := range w.paths {
		if w.errs[i] == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// writers is how many files a Writer writes at the same time: writing is
// mostly waiting for the file system.
const writers = 8

// writeFile writes content to path unless path already holds it; exists
// false says there was no file of that name, buf is scratch space for the
// comparison.
func writeFile(path string, content []byte, exists bool, buf []byte) error {
	if exists && holds(path, content, buf) {
		return nil
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return nil
}

// holds reports whether the regular file at path holds exactly content,
// reading it through buf.
func holds(path string, content, buf []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(content)) {
		return false
	}
	for {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(content)+1)])
		if n > len(content) || !bytes.Equal(buf[:n], content[:n]) {
			return false // longer than its size said, or different
		}
		content = content[n:]
		if err != nil {
			// EOF or ErrUnexpectedEOF: the file ended; anything else is
			// no proof that it holds content.
			return len(content) == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF)
		}
	}
}
