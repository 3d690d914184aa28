package fidelity

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/internal/regfile"

	"github.com/pocketeval/pocketeval/runtime"
)

// magic is the first line of a reference logits file.
const magic = "pocketeval-logits 1\n"

// Encoding names how positions are stored.
const Encoding = "u16-logprob (llama-perplexity kl-divergence-base: 16 bits over the 16 nats below the top token)"

// Header describes a reference logits file; it is the file's second line,
// as JSON. The body follows: per sequence a little-endian uint32 token
// count n and uint32 From, n int32 tokens, then n-1-From position records
// of RecordLen uint16 each (float32 scale, float32 minimum log-probability,
// one value per vocabulary entry, padded to even).
type Header struct {
	Encoding  string            `json:"encoding"`
	Model     runtime.Info      `json:"model"`
	Vocab     runtime.VocabInfo `json:"vocab"`
	Source    Source            `json:"source"`
	Sequences int               `json:"sequences"`
	Positions int               `json:"positions"`
	Tokens    int               `json:"tokens"`
	RecordLen int               `json:"record_len"`
	// BytesPerPosition is what one saved position costs.
	BytesPerPosition int `json:"bytes_per_position"`
}

// Source says what the sequences were made of.
type Source struct {
	// Kind is "text" (CorpusSequences) or "prompts" (PromptSequences).
	Kind string `json:"kind"`
	// Path and SHA256 identify the text file or the run directory.
	Path   string `json:"path,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// NCtx is the chunk (or maximum prompt) length in tokens, Chunks the
	// number of chunks asked for (0: all).
	NCtx   int `json:"n_ctx"`
	Chunks int `json:"chunks,omitempty"`
}

// Cost is what computing one side of a comparison took.
type Cost struct {
	// Tokens the model evaluated, Positions compared, in Seconds.
	Tokens       int     `json:"tokens"`
	Positions    int     `json:"positions"`
	Seconds      float64 `json:"seconds"`
	TokensPerSec float64 `json:"tokens_per_sec"`
	// Bytes of the reference file and per saved position.
	Bytes            int64 `json:"bytes,omitempty"`
	BytesPerPosition int   `json:"bytes_per_position,omitempty"`
}

// Progress is told the number of sequences done after each one.
type Progress func(done, total int)

// SumPath is where the sha256 of a reference file is recorded, in
// sha256sum's format.
func SumPath(path string) string { return path + ".sha256" }

// WriteReference evaluates seqs with the reference model and writes its
// log-probabilities to path, then the file's sha256 to SumPath(path). The
// file is written under a temporary name and renamed when complete, so an
// interrupted run never leaves a file that looks whole.
func WriteReference(ctx context.Context, rt runtime.Logitser, info runtime.Info, src Source, seqs []Sequence, path string, progress Progress) (*Header, Cost, error) {
	v := rt.Vocab()
	h := &Header{Encoding: Encoding, Model: info, Vocab: v, Source: src, Sequences: len(seqs), RecordLen: recordLen(v.Size), BytesPerPosition: BytesPerPosition(v.Size)}
	for _, s := range seqs {
		h.Positions += s.scored()
		h.Tokens += len(s.Tokens)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, Cost{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return nil, Cost{}, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	sum := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, sum), 1<<20)
	hj, _ := json.Marshal(h)
	w.WriteString(magic)
	w.Write(hj)
	w.WriteByte('\n')
	rec := make([]uint16, h.RecordLen)
	buf := make([]byte, 2*h.RecordLen)
	start := time.Now()
	for i, s := range seqs {
		if err := writeSeqHead(w, s); err != nil {
			return nil, Cost{}, err
		}
		last := len(s.Tokens) - 2
		err := rt.Logits(ctx, s.Tokens, s.From, func(pos int, logits []float32) error {
			if pos > last {
				return nil
			}
			if len(logits) != v.Size {
				return fmt.Errorf("%d logits, the vocabulary has %d", len(logits), v.Size)
			}
			encode(logits, rec, int(s.Tokens[pos+1]))
			for k, x := range rec {
				binary.LittleEndian.PutUint16(buf[2*k:], x)
			}
			_, err := w.Write(buf)
			return err
		})
		if err != nil {
			return nil, Cost{}, fmt.Errorf("sequence %d: %w", i+1, err)
		}
		if progress != nil {
			progress(i+1, len(seqs))
		}
	}
	secs := time.Since(start).Seconds()
	if err := w.Flush(); err != nil {
		return nil, Cost{}, err
	}
	if err := tmp.Sync(); err != nil {
		return nil, Cost{}, err
	}
	if err := tmp.Close(); err != nil {
		return nil, Cost{}, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, Cost{}, err
	}
	hexSum := hex.EncodeToString(sum.Sum(nil))
	if err := os.WriteFile(SumPath(path), []byte(hexSum+"  "+filepath.Base(path)+"\n"), 0o644); err != nil {
		return nil, Cost{}, err
	}
	fi, _ := os.Stat(path)
	c := Cost{Tokens: h.Tokens, Positions: h.Positions, Seconds: secs, BytesPerPosition: h.BytesPerPosition}
	if fi != nil {
		c.Bytes = fi.Size()
	}
	if secs > 0 {
		c.TokensPerSec = float64(h.Tokens) / secs
	}
	return h, c, nil
}

func writeSeqHead(w io.Writer, s Sequence) error {
	b := make([]byte, 8+4*len(s.Tokens))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(s.Tokens)))
	binary.LittleEndian.PutUint32(b[4:], uint32(s.From))
	for i, t := range s.Tokens {
		binary.LittleEndian.PutUint32(b[8+4*i:], uint32(t))
	}
	_, err := w.Write(b)
	return err
}

// Reference is an open reference logits file, read one sequence at a time.
type Reference struct {
	Header Header
	// SHA256 is the file's checksum, verified against SumPath.
	SHA256 string
	Path   string
	Bytes  int64
	f      *os.File
	r      *bufio.Reader
	read   int
}

// OpenReference opens a reference file after checking its sha256 against
// the one recorded beside it.
func OpenReference(path string) (*Reference, error) {
	want, err := regfile.ReadFile(SumPath(path), regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("reference %s: its checksum file: %w", path, err)
	}
	fields := strings.Fields(string(want))
	if len(fields) == 0 || len(fields[0]) != 64 {
		return nil, fmt.Errorf("%s: line 1: not a sha256 line", SumPath(path))
	}
	f, err := regfile.Open(path, os.O_RDONLY, 0, false)
	if err != nil {
		return nil, err
	}
	sum := sha256.New()
	n, err := io.Copy(sum, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	got := hex.EncodeToString(sum.Sum(nil))
	if got != fields[0] {
		f.Close()
		return nil, fmt.Errorf("reference %s: sha256 %s, but %s records %s: the file changed or is incomplete", path, got, SumPath(path), fields[0])
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	ref := &Reference{SHA256: got, Path: path, Bytes: n, f: f, r: bufio.NewReaderSize(f, 1<<20)}
	line, err := ref.r.ReadString('\n')
	if err != nil || line != magic {
		f.Close()
		return nil, fmt.Errorf("%s: line 1: not a pocketeval reference logits file (want %q)", path, strings.TrimSpace(magic))
	}
	hl, err := ref.r.ReadBytes('\n')
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: line 2: %w", path, err)
	}
	if err := json.Unmarshal(hl, &ref.Header); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: line 2: header: %w", path, err)
	}
	if ref.Header.RecordLen != recordLen(ref.Header.Vocab.Size) || ref.Header.Vocab.Size <= 0 {
		f.Close()
		return nil, fmt.Errorf("%s: line 2: record_len %d does not fit a vocabulary of %d", path, ref.Header.RecordLen, ref.Header.Vocab.Size)
	}
	return ref, nil
}

// Close closes the file.
func (r *Reference) Close() error { return r.f.Close() }

// next reads the next sequence and its position records (io.EOF after
// the last).
func (r *Reference) next() (Sequence, []uint16, error) {
	if r.read == r.Header.Sequences {
		return Sequence{}, nil, io.EOF
	}
	r.read++
	var hd [8]byte
	if _, err := io.ReadFull(r.r, hd[:]); err != nil {
		return Sequence{}, nil, r.truncated(err)
	}
	n, from := int(binary.LittleEndian.Uint32(hd[0:])), int(binary.LittleEndian.Uint32(hd[4:]))
	if n < 1 || n > 1<<24 || from >= n || int64(4*n) > r.Bytes {
		return Sequence{}, nil, regfile.Unusable(r.Path, fmt.Errorf("%s: sequence %d: %d tokens from %d", r.Path, r.read, n, from))
	}
	b := make([]byte, 4*n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return Sequence{}, nil, r.truncated(err)
	}
	s := Sequence{Tokens: make([]int32, n), From: from}
	for i := range s.Tokens {
		s.Tokens[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		if s.Tokens[i] < 0 || int(s.Tokens[i]) >= r.Header.Vocab.Size {
			return Sequence{}, nil, regfile.Unusable(r.Path, fmt.Errorf("%s: sequence %d: token %d outside the vocabulary", r.Path, r.read, s.Tokens[i]))
		}
	}
	if int64(2*s.scored())*int64(r.Header.RecordLen) > r.Bytes { // a lying header, not an allocation
		return Sequence{}, nil, r.truncated(io.ErrUnexpectedEOF)
	}
	recs := make([]uint16, s.scored()*r.Header.RecordLen)
	b = make([]byte, 2*len(recs))
	if _, err := io.ReadFull(r.r, b); err != nil {
		return Sequence{}, nil, r.truncated(err)
	}
	for i := range recs {
		recs[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return s, recs, nil
}

func (r *Reference) truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return regfile.Unusable(r.Path, fmt.Errorf("%s: ends inside sequence %d of %d", r.Path, r.read, r.Header.Sequences))
	}
	return err
}
