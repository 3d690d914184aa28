package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// LockFile is the name of the trust-on-first-use pin file in a data dir.
const LockFile = "pocketeval.lock.json"

// Status of one file in a data directory.
type Status string

const (
	OK       Status = "ok"
	Missing  Status = "missing"
	Mismatch Status = "checksum mismatch"
	Unpinned Status = "present, not pinned"
)

// FileStatus is the verification result of one file.
type FileStatus struct {
	Dataset string `json:"dataset"`
	Path    string `json:"path"`
	Status  Status `json:"status"`
	Want    string `json:"want_sha256,omitempty"`
	Got     string `json:"got_sha256,omitempty"`
	// Optional files do not fail verification when missing.
	Optional bool `json:"optional,omitempty"`
}

// ChecksumError reports a download or file whose digest is wrong.
type ChecksumError struct {
	Path, Want, Got string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: sha256 %s, want %s (the file was not kept)", e.Path, e.Got, e.Want)
}

// Verify checks every file of the datasets in dir.
func Verify(dir string, ds []Dataset) ([]FileStatus, error) {
	lock, err := readLock(dir)
	if err != nil {
		return nil, err
	}
	var out []FileStatus
	for _, d := range ds {
		for _, f := range d.Files {
			st := FileStatus{Dataset: d.Name, Path: f.Path, Optional: f.Optional, Want: f.SHA256}
			if st.Want == "" {
				st.Want = lock[f.Path]
			}
			got, err := hashFile(filepath.Join(dir, f.Path))
			switch {
			case errors.Is(err, os.ErrNotExist):
				st.Status = Missing
			case err != nil:
				return nil, err
			case st.Want == "":
				st.Status, st.Got = Unpinned, got
			case got != st.Want:
				st.Status, st.Got = Mismatch, got
			default:
				st.Status = OK
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// Failed reports whether any status fails verification.
func Failed(sts []FileStatus) bool {
	for _, s := range sts {
		if s.Status == Mismatch || (s.Status == Missing && !s.Optional) {
			return true
		}
	}
	return false
}

// FetchOptions configure Download.
type FetchOptions struct {
	Client *http.Client // nil: a client with sane timeouts
	// Mirror, when set, replaces each file's URL with Mirror + "/" + Path
	// (an internal mirror laid out like the data directory).
	Mirror string
	// Optional includes optional files.
	Optional bool
	// Force re-downloads files that verify already.
	Force bool
	// Progress is told about bytes received (may be nil).
	Progress func(path string, done, total int64)
	// Retries per file on transient errors (0: 3).
	Retries int
	// Backoff is the first retry delay, growing quadratically (0: 500ms).
	Backoff time.Duration
}

// Download fetches every missing or wrong file of the datasets into dir,
// verifying each against its sha256 before it appears under its final name.
// Files without a known digest are pinned in the lock file.
func Download(ctx context.Context, dir string, ds []Dataset, o FetchOptions) ([]FileStatus, error) {
	o = o.withDefaults(30 * time.Minute)
	var mu sync.Mutex
	lock, err := readLock(dir)
	if err != nil {
		return nil, err
	}
	var out []FileStatus
	for _, d := range ds {
		for _, f := range d.Files {
			if f.Optional && !o.Optional {
				continue
			}
			want := f.SHA256
			if want == "" {
				want = lock[f.Path]
			}
			dst := filepath.Join(dir, f.Path)
			if !o.Force && want != "" {
				if got, err := hashFile(dst); err == nil && got == want {
					out = append(out, FileStatus{Dataset: d.Name, Path: f.Path, Status: OK, Want: want})
					continue
				}
			}
			url := f.URL
			if o.Mirror != "" {
				url = strings.TrimRight(o.Mirror, "/") + "/" + f.Path
			}
			got, err := fetchVerified(ctx, o, url, dst, want)
			if err != nil {
				return out, fmt.Errorf("download %s: %w", f.Path, err)
			}
			if want == "" {
				mu.Lock()
				lock[f.Path] = got
				mu.Unlock()
				if err := writeLock(dir, lock); err != nil {
					return out, err
				}
			}
			out = append(out, FileStatus{Dataset: d.Name, Path: f.Path, Status: OK, Want: got})
		}
	}
	return out, nil
}

// FetchFile downloads one URL to dst, verifying sha256 when want is not
// empty, atomically; it returns the digest. Used for model files too.
func FetchFile(ctx context.Context, o FetchOptions, url, dst, want string) (string, error) {
	return fetchVerified(ctx, o.withDefaults(6*time.Hour), url, dst, want)
}

// withDefaults fills the zero fields: a client with the given timeout, 3
// retries, a 500 ms first backoff.
func (o FetchOptions) withDefaults(timeout time.Duration) FetchOptions {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: timeout}
	}
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.Backoff == 0 {
		o.Backoff = 500 * time.Millisecond
	}
	return o
}

// HashFile returns the hex sha256 of a file.
func HashFile(path string) (string, error) { return hashFile(path) }

// fetchVerified downloads url to dst through a temporary file, checking the
// digest; on any failure nothing is left at dst or in the temporary file.
func fetchVerified(ctx context.Context, o FetchOptions, url, dst, want string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	var lastErr error
	for attempt := 0; attempt <= o.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * o.Backoff):
			}
		}
		got, err, retry := fetchOnce(ctx, o, url, dst, want)
		if err == nil {
			return got, nil
		}
		lastErr = err
		if !retry {
			break
		}
	}
	return "", lastErr
}

func fetchOnce(ctx context.Context, o FetchOptions, url, dst, want string) (string, error, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err, false
	}
	req.Header.Set("User-Agent", "pocketeval")
	resp, err := o.Client.Do(req)
	if err != nil {
		return "", err, ctx.Err() == nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return "", fmt.Errorf("GET %s: %s", url, resp.Status), retry
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".part-*")
	if err != nil {
		return "", err, false
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	var body io.Reader = resp.Body
	if o.Progress != nil {
		body = &progressReader{r: resp.Body, path: dst, total: resp.ContentLength, fn: o.Progress}
	}
	if _, err := io.Copy(io.MultiWriter(tmp, h), body); err != nil {
		tmp.Close()
		return "", fmt.Errorf("GET %s: %w", url, err), true
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err, false
	}
	tmp.Close()
	got := hex.EncodeToString(h.Sum(nil))
	if want != "" && got != want {
		return "", &ChecksumError{Path: dst, Want: want, Got: got}, false
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err, false
	}
	return got, nil, false
}

type progressReader struct {
	r     io.Reader
	path  string
	done  int64
	total int64
	fn    func(string, int64, int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	p.fn(p.path, p.done, p.total)
	return n, err
}

func hashFile(path string) (string, error) {
	f, err := regfile.Open(path, os.O_RDONLY, 0, false) // a FIFO must not hang the hash
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readLock(dir string) (map[string]string, error) {
	m := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, LockFile))
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, LockFile), err)
	}
	return m, nil
}

func writeLock(dir string, m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ordered := make(map[string]string, len(m))
	for _, k := range keys {
		ordered[k] = m[k]
	}
	data, _ := json.MarshalIndent(ordered, "", "  ")
	tmp := filepath.Join(dir, "."+LockFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, LockFile))
}
