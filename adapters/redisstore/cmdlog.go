package redisstore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// LogFile is where the embedded Redis keeps, under DATA_DIR, every command
// that may have changed its data since the snapshot.
const LogFile = "redis.log"

// The command log is a header (logMagic, then the epoch of the snapshot it
// continues, 8 bytes big-endian), then one record per command:
//
//	length uint32 | crc32c(payload) uint32 | payload
//	payload: uvarint connection | varint unix nanoseconds | uvarint argc | (uvarint len, bytes) per argument
//
// A record is appended to a batch in memory before its command runs, so
// that the log's order is the commands' order; a syncer goroutine writes
// and fsyncs the batches (group commit), and an answer leaves only once the
// batch of the last command it may have seen is on disk.
const logMagic = "feria redis log\n"

const logHeaderLen = len(logMagic) + 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// logRecord is one logged command.
type logRecord struct {
	Conn uint64 // the connection it ran on (0: the log's own preamble)
	At   time.Time
	Args []string // the command's name, then its arguments
}

func appendRecord(buf []byte, r logRecord) []byte {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	buf = binary.AppendUvarint(buf, r.Conn)
	buf = binary.AppendVarint(buf, r.At.UnixNano())
	buf = binary.AppendUvarint(buf, uint64(len(r.Args)))
	for _, a := range r.Args {
		buf = binary.AppendUvarint(buf, uint64(len(a)))
		buf = append(buf, a...)
	}
	payload := buf[start+8:]
	binary.BigEndian.PutUint32(buf[start:], uint32(len(payload)))
	binary.BigEndian.PutUint32(buf[start+4:], crc32.Checksum(payload, castagnoli))
	return buf
}

func decodeRecord(p []byte) (logRecord, error) {
	var r logRecord
	bad := errors.New("malformed record")
	conn, n := binary.Uvarint(p)
	if n <= 0 {
		return r, bad
	}
	p = p[n:]
	at, n := binary.Varint(p)
	if n <= 0 {
		return r, bad
	}
	p = p[n:]
	argc, n := binary.Uvarint(p)
	if n <= 0 || argc == 0 || argc > uint64(len(p)) {
		return r, bad
	}
	p = p[n:]
	r.Conn, r.At, r.Args = conn, time.Unix(0, at), make([]string, argc)
	for i := range r.Args {
		l, n := binary.Uvarint(p)
		if n <= 0 || l > uint64(len(p)-n) {
			return r, bad
		}
		r.Args[i] = string(p[n : n+int(l)])
		p = p[n+int(l):]
	}
	if len(p) != 0 {
		return r, bad
	}
	return r, nil
}

// errDamagedLog is a log that cannot be read back whole but for a torn
// last record.
var errDamagedLog = errors.New("damaged command log")

// logState is what a start finds of the command log.
type logState int

const (
	logNone    logState = iota // no log: a new one starts
	logStale                   // a log the snapshot already holds (a crash in a compaction): a new one starts
	logCurrent                 // the log continuing the snapshot: replayed, then appended to
)

// readLog reads the log at path that continues the snapshot of snapEpoch,
// passing its records in order to fn. A torn last record (a crash while it
// was written) ends the log; good is the length of what was read whole,
// where appending goes on. Anything else that cannot be read is
// errDamagedLog.
func readLog(path string, snapEpoch uint64, fn func(logRecord) error) (good int64, state logState, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, logNone, nil
	}
	if err != nil {
		return 0, logNone, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, logNone, err
	}
	size := st.Size()
	r := bufio.NewReaderSize(f, 1<<16)
	head := make([]byte, logHeaderLen)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(logMagic)]) != logMagic {
		return 0, logNone, fmt.Errorf("%w: no header", errDamagedLog)
	}
	switch epoch := binary.BigEndian.Uint64(head[len(logMagic):]); {
	case epoch < snapEpoch:
		return 0, logStale, nil
	case epoch > snapEpoch:
		return 0, logNone, fmt.Errorf("%w: it continues snapshot %d, the snapshot is number %d", errDamagedLog, epoch, snapEpoch)
	}
	good = int64(logHeaderLen)
	var frame [8]byte
	var payload []byte
	for good < size {
		damaged := func(what string) (int64, logState, error) {
			return good, logCurrent, fmt.Errorf("%w: %s at byte %d of %d", errDamagedLog, what, good, size)
		}
		if size-good < 8 {
			return good, logCurrent, nil // a torn frame
		}
		if _, err := io.ReadFull(r, frame[:]); err != nil {
			return good, logCurrent, err
		}
		n := int64(binary.BigEndian.Uint32(frame[:4]))
		end := good + 8 + n
		if end > size {
			return good, logCurrent, nil // a torn payload
		}
		if int64(cap(payload)) < n {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(r, payload); err != nil {
			return good, logCurrent, err
		}
		if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(frame[4:]) {
			if end == size {
				return good, logCurrent, nil // the last record, written in part
			}
			return damaged("checksum")
		}
		rec, err := decodeRecord(payload)
		if err != nil {
			return damaged(err.Error())
		}
		if err := fn(rec); err != nil {
			return good, logCurrent, err
		}
		good = end
	}
	return good, logCurrent, nil
}

// createLog writes a log of epoch holding preamble at path, atomically
// (a temporary file, fsynced, renamed over path, the directory fsynced),
// and opens it for appending.
func createLog(path string, epoch uint64, preamble []logRecord) (*os.File, int64, error) {
	buf := make([]byte, logHeaderLen, 4096)
	copy(buf, logMagic)
	binary.BigEndian.PutUint64(buf[len(logMagic):], epoch)
	for _, r := range preamble {
		buf = appendRecord(buf, r)
	}
	if err := writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf)
		return err
	}); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, 0, err
	}
	return f, int64(len(buf)), nil
}

// openLog opens the log at path for appending after its first good bytes,
// cutting a torn record off.
func openLog(path string, good int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// writeAtomic writes path through a temporary file beside it: fsynced,
// renamed over path, the directory fsynced, so that a crash leaves either
// the old file or the new one, whole.
func writeAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// batch is records appended together and made durable by one write and
// one fsync; done is closed once they are (or err says why not).
type batch struct {
	buf  []byte
	done chan struct{}
	err  error
}

func newBatch(buf []byte) *batch { return &batch{buf: buf[:0], done: make(chan struct{})} }

func (b *batch) durable() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// groupLog appends records to a file with group commit.
type groupLog struct {
	mu     sync.Mutex // cur, file, size, failed
	cur    *batch
	spare  []byte
	file   *os.File
	size   int64 // the file's length once every appended record is written
	failed error
	last   atomic.Pointer[batch] // the batch of the last record appended
	wake   chan struct{}
	stop   chan struct{}
	wg     sync.WaitGroup
	onFail func(error) // told of the first failure
}

func newGroupLog(f *os.File, size int64, onFail func(error)) *groupLog {
	l := &groupLog{cur: newBatch(nil), file: f, size: size, wake: make(chan struct{}, 1), stop: make(chan struct{}), onFail: onFail}
	l.wg.Add(1)
	go l.run()
	return l
}

// append adds r to the batch being filled and returns that batch; it
// fails once a write or fsync has failed (nothing after a failed write
// may reach the file, or it could not be read back).
func (l *groupLog) append(r logRecord) (*batch, error) {
	l.mu.Lock()
	if l.failed != nil {
		l.mu.Unlock()
		return nil, l.failed
	}
	n := len(l.cur.buf)
	l.cur.buf = appendRecord(l.cur.buf, r)
	l.size += int64(len(l.cur.buf) - n)
	b := l.cur
	l.last.Store(b)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return b, nil
}

// length is the log file's length once what was appended is written.
func (l *groupLog) length() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size
}

// run writes and fsyncs one batch after another.
func (l *groupLog) run() {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case <-l.wake:
		}
		l.mu.Lock()
		b := l.cur
		if len(b.buf) == 0 {
			l.mu.Unlock()
			continue
		}
		l.cur = newBatch(l.spare)
		f, failed := l.file, l.failed
		l.mu.Unlock()
		err := failed
		if err == nil {
			if _, err = f.Write(b.buf); err == nil {
				err = f.Sync()
			}
		}
		l.mu.Lock()
		first := err != nil && l.failed == nil
		if first {
			l.failed = fmt.Errorf("embedded redis: command log: %w", err)
		}
		b.err = l.failed
		l.spare = b.buf
		l.mu.Unlock()
		close(b.done)
		if first && l.onFail != nil {
			l.onFail(b.err)
		}
	}
}

// flush waits until every record appended so far is on disk.
func (l *groupLog) flush() error {
	b := l.last.Load()
	if b == nil {
		return nil
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-b.done
	return b.err
}

// replace makes f, of length size, the file later batches go to; the
// caller has flushed, and no record is appended meanwhile.
func (l *groupLog) replace(f *os.File, size int64) {
	l.mu.Lock()
	old := l.file
	l.file, l.size = f, size
	l.mu.Unlock()
	old.Close()
}

// fail makes every later append fail with err.
func (l *groupLog) fail(err error) {
	l.mu.Lock()
	first := l.failed == nil
	if first {
		l.failed = err
	}
	l.mu.Unlock()
	if first && l.onFail != nil {
		l.onFail(err)
	}
}

// close stops the syncer after what was appended is on disk.
func (l *groupLog) close() error {
	err := l.flush()
	close(l.stop)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if cerr := l.file.Close(); err == nil {
		err = cerr
	}
	return err
}
