package load

import (
	"strings"
	"sync"

	"github.com/drasim/drasim/sim/snapshot"
)

// Reading the documents into trees is most of what the loader's goroutine
// does, and a document's tree depends on nothing but its text: the fast
// reader ends a document at every line that is exactly "---", whatever
// came before it (fastread.go). So the text of a file is cut at such lines
// into pieces of whole documents, read on every core into trees of their
// own, and the loader adds the pieces' documents in file order, as a
// sequential read would: everything that depends on order (duplicates,
// the order of lists, errors and warnings, interning, taking a file back)
// stays on the loader's goroutine. A piece knows the number of its first
// line (the lines before it are counted), and its documents are numbered
// on from those of the pieces before it.
//
// Reading alone, on the loader's goroutine, was the load's critical path
// on two cores: about 70 % of its CPU time, while the decoding workers
// waited. Reading a few pieces ahead on a goroutine of their own (one
// reader) gained nothing, since the reading itself is the bound.

// defaultPieceBytes is the least text of a piece: small enough that the
// pieces of a 16 MB chunk keep every core busy, large enough that handing
// one over costs nothing next to reading it.
const defaultPieceBytes = 1 << 20

// piece is a run of whole documents of a file's text.
type piece struct {
	text string
	line int // the number of its first line in the file
	// first is set on the file's first piece, which may begin with what
	// precedes the first document; more when text follows it.
	first, more bool

	// What the reader found: the documents with content, in tree; how
	// many documents were read (empty ones too); failed when the reader
	// gave up on the document after them. done is closed once read.
	tree   *docTree
	docs   []treeDoc
	n      int
	failed bool
	done   chan struct{}
}

// treeDoc is a document with content: its number in its piece and its root
// in the piece's tree.
type treeDoc struct {
	doc  int
	root int32
}

// read reads the piece's documents into tree.
func (p *piece) read(tree *docTree) {
	defer close(p.done)
	tree.reset()
	r := &fastReader{s: p.text, line: p.line, started: !p.first, more: p.more, keep: true, tree: *tree}
	for {
		root, empty, ok, eof := r.next()
		if eof {
			break
		}
		if !ok {
			p.failed = true
			break
		}
		if !empty {
			p.docs = append(p.docs, treeDoc{doc: p.n, root: root})
		}
		p.n++
	}
	*tree = r.tree
	p.tree = tree
}

// addFileFast loads a file with the fast reader, its pieces read in
// parallel (see above) and added in order. If the reader gives up on a
// document, it takes back everything it loaded from the file and reports
// false: yaml.v3 must read the file from the start, since it may judge the
// documents before that one differently (it reads ahead, and fails a
// document whose successor it cannot read). When it returns, nothing reads
// chunks any more.
func (l *loader) addFileFast(name string, chunks chunkReader) bool {
	mark := l.mark()
	readers := max(1, l.workers)
	// ordered holds the pieces handed to the readers, in file order; its
	// capacity bounds the pieces (and trees) alive at once.
	ordered := make(chan *piece, 2*readers)
	work := make(chan *piece, readers)
	stop := make(chan struct{})
	// trees keeps the spent pieces' trees for the next pieces: at most
	// one per piece alive at once (ordered, work, being read or added).
	trees := make(chan *docTree, cap(ordered)+cap(work)+readers+1)
	var wg sync.WaitGroup
	wg.Add(readers)
	for range readers {
		go func() {
			defer wg.Done()
			for p := range work {
				select {
				case <-stop:
					close(p.done) // the loader is no longer adding
					continue
				default:
				}
				var t *docTree
				select {
				case t = <-trees:
				default:
					t = &docTree{}
				}
				p.read(t)
			}
		}()
	}
	go l.splitPieces(chunks, work, ordered, stop)

	ok := true
	doc := 0
	for p := range ordered {
		<-p.done
		if ok {
			if p.failed {
				ok = false
				close(stop)
			} else {
				for _, d := range p.docs {
					l.addTreeDocument(snapshot.Source{File: name, Doc: doc + d.doc, Item: -1}, p.tree, d.root)
				}
				doc += p.n
			}
		}
		if p.tree != nil {
			select {
			case trees <- p.tree:
			default:
			}
		}
	}
	wg.Wait()
	if !ok {
		l.rollback(mark)
	}
	return ok
}

// splitPieces cuts the chunks' text into pieces of at least
// l.pieceBytes that end after a "---" line (or at the end of the file),
// hands each to the readers (work) and then to the loader (ordered), and
// closes both after the last, or once stop is closed.
func (l *loader) splitPieces(chunks chunkReader, work, ordered chan<- *piece, stop <-chan struct{}) {
	defer close(ordered)
	defer close(work)
	line, first := 1, true
	for {
		select {
		case <-stop:
			return
		default:
		}
		text, more := chunks.next()
		for {
			end := len(text)
			if len(text) > l.pieceBytes {
				if i := strings.Index(text[l.pieceBytes-1:], docMarker); i >= 0 {
					end = l.pieceBytes - 1 + i + len(docMarker)
				}
			}
			p := &piece{text: text[:end], line: line, first: first, more: more || end < len(text), done: make(chan struct{})}
			// A piece handed to the readers is always handed to the
			// loader, which waits for it: the readers close done even
			// after stop.
			select {
			case work <- p:
			case <-stop:
				return
			}
			ordered <- p
			line += strings.Count(p.text, "\n")
			first = false
			if text = text[end:]; text == "" {
				break
			}
		}
		if !more {
			return
		}
	}
}
