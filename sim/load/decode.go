package load

import (
	"sync"
	"sync/atomic"

	"github.com/drasim/drasim/sim/snapshot"
)

// Decoding the objects' JSON into the API types is most of a load's work,
// and each object's decoding depends on nothing but its JSON. So the loader
// reads the documents on its own goroutine and collects the objects' JSON
// in batches; each full batch is decoded on every core while the loader
// reads the next, and then added in input order on the loader's goroutine.
// Everything that depends on order (duplicate names, the order of the
// snapshot's lists, of errors and of warnings, the interned device maps,
// taking a file back) happens there, in the order a sequential load takes,
// so a load gives the same snapshot, errors and warnings on any number of
// cores. Any other problem recorded while a batch waits (errorf, warnf)
// first adds the objects before it (drain).

// defaultBatchBytes ends a batch: large enough that starting the workers
// costs nothing next to the decoding, small enough that two batches of
// JSON take little memory.
const defaultBatchBytes = 4 << 20

// maxBatchItems also ends a batch, for the objects decoded as they were
// read (ResourceSlices, see sliceDecoder), which add no JSON.
const maxBatchItems = 4096

// decodeBatch is a run of objects to decode, their JSON one after the
// other in buf.
type decodeBatch struct {
	buf   []byte
	items []pendingObject
	wg    sync.WaitGroup
}

// pendingObject is an object read and waiting to be decoded (out) and
// added.
type pendingObject struct {
	src        snapshot.Source
	display    string
	kind       *kindDecoder
	start, end int
	// ready is set when out was decoded as the object was read.
	ready bool
	out   decoded
}

// batch returns the batch being filled.
func (l *loader) batch() *decodeBatch {
	if l.filling == nil {
		if l.spare != nil {
			l.filling, l.spare = l.spare, nil
		} else {
			l.filling = &decodeBatch{}
		}
	}
	return l.filling
}

// batchFilled dispatches the batch being filled once it is full, after
// adding the one dispatched before.
func (l *loader) batchFilled() {
	if len(l.filling.buf) < l.batchBytes && len(l.filling.items) < maxBatchItems {
		return
	}
	// Problems recorded while adding the batch before find nothing to
	// drain: the full one comes after.
	full := l.filling
	l.filling = nil
	if l.decoding != nil {
		b := l.decoding
		l.decoding = nil
		b.wg.Wait()
		l.addBatch(b)
	}
	l.decoding = full
	full.start(l.workers)
}

// drain decodes and adds every object waiting, in order.
func (l *loader) drain() {
	decoding, filling := l.decoding, l.filling
	// Problems recorded while adding (errorf) find nothing to drain.
	l.decoding, l.filling = nil, nil
	if decoding != nil {
		decoding.wg.Wait()
		l.addBatch(decoding)
	}
	if filling != nil {
		filling.start(l.workers)
		filling.wg.Wait()
		l.addBatch(filling)
	}
}

// start decodes the batch's objects on workers goroutines; wg is done
// when all are decoded. With one worker, or one object, the caller
// decodes them.
func (b *decodeBatch) start(workers int) {
	workers = min(workers, len(b.items))
	if workers <= 1 {
		for i := range b.items {
			b.decode(i)
		}
		return
	}
	var next atomic.Int64
	b.wg.Add(workers)
	for range workers {
		go func() {
			defer b.wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(b.items) {
					return
				}
				b.decode(i)
			}
		}()
	}
}

func (b *decodeBatch) decode(i int) {
	if it := &b.items[i]; !it.ready {
		it.out = it.kind.decode(b.buf[it.start:it.end])
	}
}

// addBatch adds a decoded batch's objects in order, then keeps the batch
// for its buffers.
func (l *loader) addBatch(b *decodeBatch) {
	for i := range b.items {
		it := &b.items[i]
		it.kind.add(l, it.src, it.display, it.out)
		if it.ready {
			// The sliceDecoder shared its maps as it decoded it.
			l.interned = len(l.snap.ResourceSlices)
		}
		l.internNew()
	}
	clear(b.items)
	b.items, b.buf = b.items[:0], b.buf[:0]
	l.spare = b
}
