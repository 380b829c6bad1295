package scenario

import (
	"strings"
	"testing"
)

// TestTokenLimitAdmitsNoneWarns: a user's scenario sent calls of 2 000 input
// tokens to a model whose rate limit holds 1 000 tokens (1 000 a minute, a
// minute's burst): validate said ok, and only a run warned, after every
// call came back a 429. Now the configuration warns at the limit's line, a
// model's own or its provider's, and a limit that holds a call does not.
func TestTokenLimitAdmitsNoneWarns(t *testing.T) {
	const head = "name = \"tpm\"\n[arrivals]\nrate = 1\n"
	const class = "[[classes]]\nname = \"c\"\ninput_tokens = { kind = \"constant\", value = 2000 }\noutput_tokens = { kind = \"uniform\", min = 100, max = 300 }\n"
	for _, c := range []struct {
		name, text, key, text2 string
		line                   int
	}{
		{"model's", head + "[models.a]\nlatency = { kind = \"constant\", value = 0.3 }\nrate_limit = { tokens_per_minute = 1000 }\n" + class,
			"models.a.rate_limit.tokens_per_minute", "model a's rate limit holds 1000 tokens (tokens_per_minute 1000 over a burst of 60.0s) and every call needs at least 2100", 6},
		{"provider's, burst 30 s", head + "[models.a]\nprovider = \"p\"\nlatency = { kind = \"constant\", value = 0.3 }\n[providers.p]\n[providers.p.rate_limit]\ntokens_per_minute = 4000\nburst = \"30s\"\n" + class,
			"providers.p.rate_limit.tokens_per_minute", "provider p's rate limit holds 2000 tokens (tokens_per_minute 4000 over a burst of 30.0s) and every call needs at least 2100", 9},
	} {
		s, err := Parse("tpm.toml", []byte(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(s.Warnings) != 1 || s.Warnings[0].Key != c.key || s.Warnings[0].Line != c.line || !strings.Contains(s.Warnings[0].Error(), c.text2) {
			t.Errorf("%s: warnings %v; want one at line %d, %s, saying %q", c.name, s.Warnings, c.line, c.key, c.text2)
		}
		// 2 100 tokens fit a bucket of 2 100.
		fits := strings.Replace(strings.Replace(c.text, "tokens_per_minute = 1000", "tokens_per_minute = 2100", 1), "tokens_per_minute = 4000", "tokens_per_minute = 4200", 1)
		if s, err := Parse("tpm.toml", []byte(fits)); err != nil || len(s.Warnings) != 0 {
			t.Errorf("%s, a bucket that holds a call: warnings %v, error %v; want none", c.name, s.Warnings, err)
		}
	}
}
