package sim

import (
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// TestRequestResetClearsHeader: reset leaves a reused slot's request as a
// fresh one would be — every field but gen and the attempts set to its
// zero value, id, stream key, arrival, arrival section and timer as given — whatever the old request
// held, so that a field added to request without a line in reset fails
// here rather than leaking state from one request to the next.
func TestRequestResetClearsHeader(t *testing.T) {
	var r request
	v := reflect.ValueOf(&r).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // settable
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(7)
		case reflect.Float32, reflect.Float64:
			f.SetFloat(7)
		case reflect.Array:
			// the attempts and their copula draws: send writes them
		default:
			t.Fatalf("request.%s: kind %s not covered by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	old := r
	r.reset(42, 9, 3*time.Second, 5)
	want := request{gen: old.gen, id: 42, key: 9, arrival: 3 * time.Second, sec: 5, timer: noTimer, att: old.att, innov: old.innov}
	got, w := reflect.ValueOf(r), reflect.ValueOf(want)
	for i := range got.NumField() {
		if g, x := got.Field(i), w.Field(i); !g.Equal(x) {
			t.Errorf("after reset, request.%s = %v, want %v", got.Type().Field(i).Name, g, x)
		}
	}
}
