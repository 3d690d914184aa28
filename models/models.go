// Package models resolves model names such as "qwen3-0.6b-gguf" to files
// from their official homes (Hugging Face or ModelScope repositories at a
// revision), downloads them once into a cache with progress, and verifies
// them by sha256.
//
// The registry is embedded (registry.json) and can be overridden or
// extended by a JSON file of the same shape ($POCKETEVAL_MODELS or
// --models-file). Checksums not known in advance are pinned in a lock file
// (models.lock.json in the cache) on the first verified download and
// enforced afterwards.
package models

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"

	"github.com/pocketeval/pocketeval/datasets"
)

//go:embed registry.json
var builtinJSON []byte

// Model is one registry entry.
type Model struct {
	Name        string `json:"-"`
	Description string `json:"description"`
	Runtime     string `json:"runtime"` // llamacpp, mnn
	// Hub is huggingface, modelscope or github.
	Hub      string `json:"hub"`
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
	Files    []File `json:"files"`
	// Entry is the file (or, for MNN, config.json) the runtime opens.
	Entry string `json:"entry"`
	Note  string `json:"note,omitempty"`
	// Chat holds the chat-mode defaults (template source, thinking, stop
	// tokens, recommended generation settings); nil when not recorded.
	Chat *Chat `json:"chat,omitempty"`
}

// File is one file of a model.
type File struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256,omitempty"`
}

// Registry is a set of models by name.
type Registry map[string]*Model

// Load returns the embedded registry, overridden by the file at override
// (if not empty).
func Load(override string) (Registry, error) {
	r := Registry{}
	if err := r.merge("registry.json", builtinJSON); err != nil {
		return nil, err
	}
	if override != "" {
		data, err := regfile.ReadFile(override, regfile.MaxConfig)
		if err != nil {
			return nil, fmt.Errorf("model registry: %w", err)
		}
		if err := r.merge(override, data); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r Registry) merge(file string, data []byte) error {
	var m map[string]*Model
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("model registry %s: %w", file, err)
	}
	for name, md := range m {
		md.Name = name
		switch {
		case md.Runtime == "":
			return fmt.Errorf("model registry %s: %s: field \"runtime\": missing", file, name)
		case md.Repo == "":
			return fmt.Errorf("model registry %s: %s: field \"repo\": missing", file, name)
		case len(md.Files) == 0:
			return fmt.Errorf("model registry %s: %s: field \"files\": empty", file, name)
		}
		if md.Chat != nil {
			if err := md.Chat.check(); err != nil {
				return fmt.Errorf("model registry %s: %s: %w", file, name, err)
			}
		}
		if md.Revision == "" {
			md.Revision = "main"
		}
		if md.Hub == "" {
			md.Hub = "huggingface"
		}
		if md.Entry == "" {
			md.Entry = md.Files[0].Name
		}
		r[name] = md
	}
	return nil
}

// Names returns the registry's names, sorted.
func (r Registry) Names() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// URL returns the download URL of a model file. endpoint overrides the
// hub's base URL (a mirror, or a test server).
func (m *Model) URL(f File, endpoint string) string {
	switch m.Hub {
	case "modelscope":
		if endpoint == "" {
			endpoint = "https://modelscope.cn"
		}
		return fmt.Sprintf("%s/models/%s/resolve/%s/%s", strings.TrimRight(endpoint, "/"), m.Repo, m.Revision, f.Name)
	case "github":
		if endpoint == "" {
			endpoint = "https://raw.githubusercontent.com"
		}
		return fmt.Sprintf("%s/%s/%s/%s", strings.TrimRight(endpoint, "/"), m.Repo, m.Revision, f.Name)
	default:
		if endpoint == "" {
			endpoint = "https://huggingface.co"
		}
		return fmt.Sprintf("%s/%s/resolve/%s/%s", strings.TrimRight(endpoint, "/"), m.Repo, m.Revision, f.Name)
	}
}

// CacheDir is $POCKETEVAL_MODEL_CACHE, else $XDG_CACHE_HOME/pocketeval/models.
func CacheDir() string {
	if d := os.Getenv("POCKETEVAL_MODEL_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "pocketeval", "models")
	}
	return "models"
}

// Dir is where a model's files live in the cache.
func (m *Model) Dir(cache string) string { return filepath.Join(cache, m.Name) }

// EntryPath is the path the runtime opens.
func (m *Model) EntryPath(cache string) string { return filepath.Join(m.Dir(cache), m.Entry) }

// FetchOptions configure Fetch.
type FetchOptions struct {
	Cache    string // "" = CacheDir()
	Endpoint string // hub base URL override ("" = $POCKETEVAL_HF_ENDPOINT or the official hub)
	Progress func(path string, done, total int64)
}

// Fetch makes sure every file of m is in the cache and verified (by the
// registry's digest, else the lock file's pin, pinning it on first
// download), and returns the entry path.
func Fetch(ctx context.Context, m *Model, o FetchOptions) (string, error) {
	if o.Cache == "" {
		o.Cache = CacheDir()
	}
	if o.Endpoint == "" {
		o.Endpoint = os.Getenv("POCKETEVAL_HF_ENDPOINT")
	}
	if err := os.MkdirAll(m.Dir(o.Cache), 0o755); err != nil {
		return "", err
	}
	lock, err := readLock(o.Cache)
	if err != nil {
		return "", err
	}
	for _, f := range m.Files {
		key := m.Name + "/" + f.Name
		want := f.SHA256
		if want == "" {
			want = lock[key]
		}
		dst := filepath.Join(m.Dir(o.Cache), f.Name)
		if got, err := datasets.HashFile(dst); err == nil {
			if want == "" || got == want {
				if want == "" {
					lock[key] = got
					if err := writeLock(o.Cache, lock); err != nil {
						return "", err
					}
				}
				continue
			}
			return "", fmt.Errorf("model %s: cached %s has sha256 %s, want %s; delete it to download again", m.Name, dst, got, want)
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		got, err := datasets.FetchFile(ctx, datasets.FetchOptions{Progress: o.Progress}, m.URL(f, o.Endpoint), dst, want)
		if err != nil {
			return "", fmt.Errorf("model %s: %w", m.Name, err)
		}
		if want == "" {
			lock[key] = got
			if err := writeLock(o.Cache, lock); err != nil {
				return "", err
			}
		}
	}
	return m.EntryPath(o.Cache), nil
}

const lockName = "models.lock.json"

func readLock(dir string) (map[string]string, error) {
	m := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, lockName))
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, lockName), err)
	}
	return m, nil
}

func writeLock(dir string, m map[string]string) error {
	data, _ := json.MarshalIndent(m, "", "  ")
	tmp := filepath.Join(dir, "."+lockName+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, lockName))
}
