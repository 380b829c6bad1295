package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// jsonError restates a JSON decoding error in the report's terms: the
// field with a value of the wrong kind and the kind wanted, or where the
// JSON is invalid — not the Go types it was being read into.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("the file holds a JSON %s; want a JSON object, the output of hedgesim run --json or optimize --json", te.Value)
		}
		return fmt.Errorf("%s: a JSON %s where %s is wanted", te.Field, te.Value, kindWanted(te.Type))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return err
}

// kindWanted names, in JSON's terms, the kind of value a Go type reads.
func kindWanted(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}
