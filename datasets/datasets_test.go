package datasets

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

func TestRegistryWellFormed(t *testing.T) {
	t.Parallel()
	files := 0
	for _, d := range Registry() {
		for _, f := range d.Files {
			files++
			if !strings.HasPrefix(f.Path, d.Name+"/") {
				t.Errorf("%s: file %s outside its directory", d.Name, f.Path)
			}
			if !strings.HasPrefix(f.URL, "https://") {
				t.Errorf("%s: URL %q", f.Path, f.URL)
			}
			if f.SHA256 == "" && !f.Optional {
				t.Errorf("%s: required file without a checksum", f.Path)
			}
		}
	}
	if files < 300 {
		t.Errorf("registry has %d files", files)
	}
	if ds, err := Lookup(Registry(), []string{"mgsm", "gsm8k", "mgsm"}); err != nil || len(ds) != 2 || ds[0].Name != "mgsm" {
		t.Errorf("Lookup(mgsm, gsm8k, mgsm) = %v, %v", ds, err)
	}
	var ue *UnknownError
	if _, err := Lookup(Registry(), []string{"nope"}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "gsm8k") {
		t.Errorf("Lookup(nope) = %v", err)
	}
}

func TestVerifySharedDatasets(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Datasets(t)
	sts, err := Verify(dir, Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.Status != OK && !(s.Optional && s.Status == Missing) {
			t.Errorf("%s: %s", s.Path, s.Status)
		}
	}
	if Failed(sts) {
		t.Error("verification failed")
	}
}

// mirror serves dir over HTTP; corrupt names files served with a flipped
// byte, and failFirst makes each path's first request a 500.
func mirror(t *testing.T, dir string, corrupt map[string]bool, failFirst bool) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	seen := map[string]bool{}
	fs := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		p := strings.TrimPrefix(r.URL.Path, "/")
		if failFirst && !seen[p] {
			seen[p] = true
			http.Error(w, "try again", http.StatusInternalServerError)
			return
		}
		if corrupt[p] {
			data, _ := os.ReadFile(filepath.Join(dir, p))
			data[len(data)/2] ^= 1
			w.Write(data)
			return
		}
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestDownloadFromLocalMirror(t *testing.T) {
	t.Parallel()
	src := sharedtest.Datasets(t)
	srv, _ := mirror(t, src, nil, true)
	dst := t.TempDir()
	ds, _ := Lookup(Registry(), []string{"gsm8k", "mgsm", "humaneval"})
	sts, err := Download(context.Background(), dst, ds, FetchOptions{Mirror: srv.URL, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 7 {
		t.Errorf("downloaded %d files, want 7", len(sts))
	}
	v, _ := Verify(dst, ds)
	if Failed(v) {
		t.Errorf("downloaded data does not verify: %+v", v)
	}
	// A second download fetches nothing.
	srv2, hits := mirror(t, src, nil, false)
	if _, err := Download(context.Background(), dst, ds, FetchOptions{Mirror: srv2.URL}); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 0 {
		t.Errorf("re-download fetched %d files", hits.Load())
	}
}

func TestChecksumMismatchLeavesNothing(t *testing.T) {
	t.Parallel()
	src := sharedtest.Datasets(t)
	srv, _ := mirror(t, src, map[string]bool{"gsm8k/test.jsonl": true}, false)
	dst := t.TempDir()
	ds, _ := Lookup(Registry(), []string{"gsm8k"})
	_, err := Download(context.Background(), dst, ds, FetchOptions{Mirror: srv.URL, Backoff: time.Millisecond})
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "gsm8k/test.jsonl") {
		t.Fatalf("err = %v, want a checksum error naming the file", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dst, "gsm8k"))
	for _, e := range entries {
		if strings.Contains(e.Name(), "test.jsonl") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

func TestTrustOnFirstUsePin(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "gsm8k"), 0o755)
	os.WriteFile(filepath.Join(src, "gsm8k/train.jsonl"), []byte(`{"question":"q","answer":"a\n#### 1"}`+"\n"), 0o644)
	srv, _ := mirror(t, src, nil, false)
	dst := t.TempDir()
	ds := []Dataset{{Name: "gsm8k", Tasks: []string{"gsm8k"}, Files: extras["gsm8k"]}}
	if _, err := Download(context.Background(), dst, ds, FetchOptions{Mirror: srv.URL, Optional: true}); err != nil {
		t.Fatal(err)
	}
	lock, _ := readLock(dst)
	if len(lock["gsm8k/train.jsonl"]) != 64 {
		t.Fatalf("not pinned: %v", lock)
	}
	// The upstream file changes: the pin catches it.
	os.WriteFile(filepath.Join(src, "gsm8k/train.jsonl"), []byte("changed\n"), 0o644)
	_, err := Download(context.Background(), dst, ds, FetchOptions{Mirror: srv.URL, Optional: true, Force: true})
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Errorf("err = %v, want checksum error against the pin", err)
	}
}
