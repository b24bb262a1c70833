// Package casecheck lets tests hold every case record they write or serve
// to the contract: no JSON null anywhere (fixture-free), and, when
// ../shared/design/case.schema.json is present, the case schema itself.
// Only tests import it.
package casecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Nulls returns the JSON paths holding null in raw, sorted.
func Nulls(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case nil:
			out = append(out, path)
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		}
	}
	walk("$", v)
	sort.Strings(out)
	return out, nil
}

// NoNulls fails the test when raw (any JSON answer) holds a null.
func NoNulls(tb testing.TB, what string, raw []byte) {
	tb.Helper()
	nulls, err := Nulls(raw)
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	if len(nulls) > 0 {
		tb.Errorf("%s: null at %v", what, nulls)
	}
}

var (
	once      sync.Once
	schema    *jsonschema.Schema
	schemaErr error
)

// errNoSchema says the shared design directory is not beside the repo.
var errNoSchema = errors.New("case.schema.json not found in ../shared/design")

// Schema returns the compiled case schema, found by walking up from the
// working directory to the module root and then into ../shared.
func Schema() (*jsonschema.Schema, error) {
	once.Do(func() { schema, schemaErr = load() })
	return schema, schemaErr
}

func load() (*jsonschema.Schema, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errNoSchema
		}
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "design", "case.schema.json")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoSchema, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	// The duration patterns use lookahead, which Go's regexp lacks.
	c.UseRegexpEngine(ecmaRegexp)
	if err := c.AddResource("case.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("case.schema.json")
}

type re2 regexp2.Regexp

func (r *re2) MatchString(s string) bool {
	ok, err := (*regexp2.Regexp)(r).MatchString(s)
	return err == nil && ok
}

func (r *re2) String() string { return (*regexp2.Regexp)(r).String() }

func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	r, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	return (*re2)(r), nil
}

// Validate checks one case record against the schema; it returns
// ErrNoSchema's wrap when the schema is absent.
func Validate(raw []byte) error {
	sch, err := Schema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return sch.Validate(inst)
}

// Absent reports whether err says only that the schema is not there.
func Absent(err error) bool { return errors.Is(err, errNoSchema) }

// Case fails the test when one case record holds a null or, with the
// schema present, breaks it.
func Case(tb testing.TB, what string, raw []byte) {
	tb.Helper()
	NoNulls(tb, what, raw)
	if err := Validate(raw); err != nil && !Absent(err) {
		tb.Errorf("%s breaks case.schema.json: %v", what, err)
	}
}

// Cases checks every element of a JSON array of case records.
func Cases(tb testing.TB, what string, raw json.RawMessage) {
	tb.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	for i, it := range items {
		Case(tb, what+"["+strconv.Itoa(i)+"]", it)
	}
}
