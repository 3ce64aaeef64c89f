package load

import (
	"io"
	"os"
	"strings"
)

// A file is read in chunks that end after a line that is exactly "---",
// where one document ends and the next begins, so that a load holds one
// chunk of a large file's text at a time instead of all of it (a
// 50,000-node dump is 1 GB of YAML, and the whole text would also double
// the heap the collector lets grow). The fast reader reads the chunks of a
// file as it reads the whole text: every bare "---" line ends a document
// there too. If it gives up, yaml.v3 reads the file again from its start.

// chunkReader gives a file's text in chunks.
type chunkReader interface {
	// next returns the next chunk, and whether more follow.
	next() (text string, more bool)
}

// textChunks gives a text in one chunk.
type textChunks struct{ text string }

func (c *textChunks) next() (string, bool) { return c.text, false }

// defaultChunkBytes is how much of a file a chunk reads at least.
const defaultChunkBytes = 16 << 20

// docMarker is a line that is exactly "---", with the line break before it.
const docMarker = "\n---\n"

// fileChunks reads a file in chunks of at least size bytes that end after
// a document marker (or at the end of the file). err is the first read
// error; the chunk it cuts short is the last.
type fileChunks struct {
	r    io.Reader
	size int
	// rest is what followed the last chunk's marker.
	rest string
	err  error
}

func (c *fileChunks) next() (string, bool) {
	text := c.rest
	for want := c.size; ; want = max(c.size, len(text)) {
		var b strings.Builder
		b.Grow(len(text) + want)
		b.WriteString(text)
		_, err := io.CopyN(&b, c.r, int64(want))
		text = b.String()
		if err != nil {
			c.rest = ""
			if err != io.EOF {
				c.err = err
			}
			return text, false
		}
		if i := strings.LastIndex(text, docMarker); i >= 0 {
			end := i + len(docMarker)
			c.rest = text[end:]
			return text[:end], true
		}
		// A document longer than a chunk: read on.
	}
}

// readErr remembers the first error of reading r.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// addPath loads the file at path, as addFile loads its text, reading one
// chunk at a time. It returns the error of opening or reading the file.
func (l *loader) addPath(name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		// A pipe, say, cannot be read twice: read it whole.
		defer f.Close()
		text, err := readText(f, 0)
		if err == nil {
			l.addFile(name, text)
		}
		return err
	}
	chunks := &fileChunks{r: f, size: l.chunkBytes}
	ok := l.addFileFast(name, chunks)
	f.Close()
	if chunks.err != nil || ok {
		return chunks.err
	}
	if f, err = os.Open(path); err != nil {
		return err
	}
	defer f.Close()
	r := &readErr{r: f}
	l.addFileYAML(name, r)
	return r.err
}
