//go:build !nollamacpp

package llamacpp

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// readVersion says which llama.cpp the libraries in dir are, in terms a
// user can map to llama.cpp's history and to what was installed: the
// llama.cpp commit (and build number, when the build counted one) that
// libllama-common.so was compiled from (LLAMA_COMMIT, LLAMA_BUILD_NUMBER:
// what llama.cpp's own tools print as "build N (commit)"), and the npm
// package the libraries came from ("@node-llama-cpp/linux-x64@3.21.1").
// node-llama-cpp's build metadata ("ggml-org/llama.cpp@v0.4.0") names a
// release of its own, not one of llama.cpp's, and is the last resort;
// "unknown" when nothing is found.
func readVersion(dir string) string {
	var parts []string
	if commit, build, err := readBuildInfo(filepath.Join(dir, "libllama-common.so")); err == nil && commit != "" {
		v := "commit " + commit
		if build > 1 {
			v = fmt.Sprintf("b%d (commit %s)", build, commit)
		}
		parts = append(parts, v)
	}
	if pkg := npmPackage(dir); pkg != "" {
		parts = append(parts, "npm "+pkg)
	}
	if len(parts) == 0 {
		return metadataRelease(dir)
	}
	return strings.Join(parts, ", ")
}

// readBuildInfo reads llama.cpp's build info from a shared library that
// defines it (common/build-info.cpp): the int LLAMA_BUILD_NUMBER and the
// string LLAMA_COMMIT points to, without loading the library.
func readBuildInfo(path string) (commit string, build int, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return "", 0, err
	}
	// read returns n bytes at virtual address addr, from the section
	// that holds it.
	read := func(addr uint64, n int) ([]byte, bool) {
		for _, s := range f.Sections {
			if s.Type == elf.SHT_NOBITS || addr < s.Addr || addr+uint64(n) > s.Addr+s.Size {
				continue
			}
			b := make([]byte, n)
			if _, err := s.ReadAt(b, int64(addr-s.Addr)); err != nil {
				return nil, false
			}
			return b, true
		}
		return nil, false
	}
	order := f.ByteOrder
	for _, s := range syms {
		switch s.Name {
		case "LLAMA_BUILD_NUMBER":
			if b, ok := read(s.Value, 4); ok {
				build = int(int32(order.Uint32(b)))
			}
		case "LLAMA_COMMIT":
			// A char pointer: in a shared object its slot holds the
			// string's address (the relocation's addend, also written
			// in place by the linker).
			if f.Class != elf.ELFCLASS64 {
				continue
			}
			p, ok := read(s.Value, 8)
			if !ok {
				continue
			}
			if b, ok := read(order.Uint64(p), 64); ok {
				if i := bytes.IndexByte(b, 0); i >= 0 {
					b = b[:i]
				}
				commit = string(b)
			}
		}
	}
	if !isCommit(commit) {
		commit = ""
	}
	return commit, build, nil
}

// isCommit reports whether s reads as an abbreviated git commit.
func isCommit(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// npmPackage names the npm package the libraries of dir are from,
// "name@version": the package.json two levels above the directory that
// libllama.so resolves to (node_modules/@node-llama-cpp/<platform>/bins/
// <platform>/); "" when there is none.
func npmPackage(dir string) string {
	lib, err := filepath.EvalSymlinks(filepath.Join(dir, "libllama.so"))
	if err != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(lib), "..", "..", "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.Name == "" || pkg.Version == "" {
		return ""
	}
	return pkg.Name + "@" + pkg.Version
}

// metadataRelease is node-llama-cpp's build metadata (build-metadata.json,
// copied next to the libraries by the setup script): its own release name
// of the llama.cpp it bundles, or "unknown".
func metadataRelease(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "build-metadata.json"))
	if err != nil {
		return "unknown"
	}
	var meta struct {
		BuildOptions struct {
			LlamaCpp struct {
				Repo    string `json:"repo"`
				Release string `json:"release"`
			} `json:"llamaCpp"`
		} `json:"buildOptions"`
	}
	if json.Unmarshal(b, &meta) != nil || meta.BuildOptions.LlamaCpp.Release == "" {
		return "unknown"
	}
	return "node-llama-cpp's " + meta.BuildOptions.LlamaCpp.Repo + "@" + meta.BuildOptions.LlamaCpp.Release
}
