package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestMain removes the typescript build the tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if tsBuilt.dir != "" {
		os.RemoveAll(tsBuilt.dir)
	}
	os.Exit(code)
}

// tsBuilt is the one typescript build of a test run (tsBuild).
var tsBuilt struct {
	once sync.Once
	dir  string
	err  error
}

// tsBuild compiles, once per test run, the typescript the tests run, in
// one tsc invocation (tsc -b) of the pinned compiler: in its own
// directory each, the scripted semantics cases, the hostile names (a
// module per namesDocs document), and
// each code case's module (scaled) with its harness, compiled for Node
// to out/DIR/*.js; and every module alone for any runtime (the DOM's
// AbortController and timers, no Node types), checked only. It returns
// node and the build's directory, or skips (nodeTools) or fails t.
func tsBuild(t *testing.T) (node, dir string) {
	t.Helper()
	node, tsc := nodeTools(t)
	tsBuilt.once.Do(func() {
		tsBuilt.err = errors.New("the typescript build failed: see the first test that ran it")
		tsBuilt.dir, tsBuilt.err = buildTS(t, node, tsc)
	})
	if tsBuilt.err != nil {
		t.Fatal(tsBuilt.err)
	}
	return node, tsBuilt.dir
}

func buildTS(t *testing.T, node, tsc string) (string, error) {
	files := map[string]string{}
	module := func(name string, d *Document, opt ...Options) error {
		mod, _, err := Write(d, "typescript", append(opt, Options{})[0])
		files[name] = string(mod)
		return err
	}
	if err := module("semantics/hedging.ts", semanticsDoc(semanticsCases())); err != nil {
		return "", err
	}
	files["semantics/semantics.ts"] = tsSemantics
	names := namesDocs(t)
	for i, d := range names {
		if err := module(fmt.Sprintf("names/hedging%d.ts", i), d, namesOptions); err != nil {
			return "", err
		}
	}
	files["names/names.ts"] = tsNames(len(names))
	for i, cc := range codeCases(t) {
		sub := fmt.Sprintf("case%d", i)
		if err := module(sub+"/hedging.ts", scaledDoc(cc.cfg)); err != nil {
			return "", err
		}
		files[sub+"/harness.ts"] = tsHarness
	}
	var all, modules []string
	for name := range files {
		all = append(all, name)
		if strings.HasPrefix(filepath.Base(name), "hedging") {
			modules = append(modules, name)
		}
	}
	sort.Strings(all)
	sort.Strings(modules)
	files["tsconfig.json"] = tsConfig(all, true)
	files["tsconfig.alone.json"] = tsConfig(modules, false)
	dir, err := os.MkdirTemp("", "hedgesim-ts")
	if err != nil {
		return "", err
	}
	writeFiles(t, dir, files)
	cmd := exec.Command(node, tsc, "-b", "tsconfig.json", "tsconfig.alone.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("tsc: %v\n%s", err, out)
	}
	return dir, nil
}

// tsConfig is a tsconfig.json: strict, every extra check on, for ES2022
// on Node (types from the pinned @types/node, compiled to out/) or, with
// node false, for any runtime (the DOM's AbortController and timers
// only; checked, not emitted).
func tsConfig(files []string, node bool) string {
	types, lib, emit := `["node"]`, `["es2022"]`, `"outDir": "out", "rootDir": "."`
	if !node {
		types, lib, emit = `[]`, `["es2022", "dom"]`, `"noEmit": true`
	}
	fs, _ := json.Marshal(files)
	return `{"compilerOptions": {"strict": true, "target": "es2022", "module": "commonjs", "lib": ` + lib + `, "types": ` + types + `,
  "typeRoots": ["` + filepath.ToSlash(nodeModules()) + `/@types"], ` + emit + `,
  "noUnusedLocals": true, "noUnusedParameters": true, "noImplicitReturns": true, "noFallthroughCasesInSwitch": true,
  "exactOptionalPropertyTypes": true},
 "files": ` + string(fs) + `}`
}
