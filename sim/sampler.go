package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// sampler draws from a distribution exactly as its Rand method does — the
// same values from the same stream — without an interface call for the
// kinds the simulator draws most: constants, uniforms and mixtures of
// them, exponentials, lognormals and gammas of shape ≥ 1 (draws.go).
// Other kinds call Rand.
type sampler struct {
	kind     samplerKind
	lo, hi   float64   // the constant (lo), or the uniform's bounds
	tok      float64   // the constant rounded to whole tokens, tokens(lo)
	cum      []float64 // the mixture's running sums of weights, but the last
	parts    []sampler // the mixture's components
	uni      []uniPart // a mixture of uniforms' components (sampleMixUniform)
	fallback dist.Dist
	// An exponential's rate (hi) and its ziggurat; a lognormal's μ (lo)
	// and σ (hi); a gamma's d (lo), c and rate (hi) (draws.go).
	c    float64
	exp  *ziggurat
	norm *zigguratN
}

// uniPart is a uniform component of a mixture: its lower bound and its
// width, Max − Min, which distuv.Uniform.Rand computes on every draw (the
// same IEEE subtraction, so the same value).
type uniPart struct{ lo, width float64 }

type samplerKind uint8

const (
	sampleRand samplerKind = iota // call fallback.Rand
	sampleConstant
	sampleUniform
	sampleMixture
	// sampleMixUniform is a mixture whose components are all uniforms,
	// drawn from a compact table of them.
	sampleMixUniform
	sampleExp       // an exponential, or a gamma of shape 1 (draws.go)
	sampleLogNormal // draws.go
	sampleGamma     // a gamma of shape > 1 (draws.go)
)

// newSampler returns the sampler of d; d may be nil (an unused form).
func newSampler(d dist.Dist) sampler {
	switch x := d.(type) {
	case nil:
		return sampler{}
	case dist.Constant:
		return sampler{kind: sampleConstant, lo: x.Value, tok: tokens(x.Value)}
	case dist.Uniform:
		return sampler{kind: sampleUniform, lo: x.Min, hi: x.Max}
	case *dist.Mixture:
		// Mixture.Rand picks the smallest i with u < w₀ + … + wᵢ (the
		// last component when u reaches no sum), sums accumulated in order.
		s := sampler{kind: sampleMixture, parts: make([]sampler, len(x.Components))}
		var c float64
		for i, comp := range x.Components {
			s.parts[i] = newSampler(comp)
			c += x.Weights[i]
			if i < len(x.Components)-1 {
				s.cum = append(s.cum, c)
			}
		}
		for _, p := range s.parts {
			if p.kind != sampleUniform {
				return s
			}
		}
		s.kind = sampleMixUniform
		for _, p := range s.parts {
			s.uni = append(s.uni, uniPart{lo: p.lo, width: p.hi - p.lo})
		}
		return s
	}
	if s, ok := samplerOf(d); ok {
		return s
	}
	return sampler{fallback: d}
}

// rand returns one draw from src, consuming what d.Rand(src) would.
func (s *sampler) rand(src *splitMix) float64 {
	switch s.kind {
	case sampleConstant:
		return s.lo
	case sampleUniform:
		// As distuv.Uniform.Rand: rand.Rand.Float64, scaled.
		rnd := randFloat64(src)
		return rnd*(s.hi-s.lo) + s.lo
	case sampleMixUniform:
		u := randFloat64(src)
		i := 0
		for i < len(s.cum) && !(u < s.cum[i]) {
			i++
		}
		p := &s.uni[i]
		rnd := randFloat64(src)
		return rnd*p.width + p.lo
	case sampleMixture:
		u := randFloat64(src)
		i := 0
		for i < len(s.cum) && !(u < s.cum[i]) {
			i++
		}
		if p := &s.parts[i]; p.kind == sampleUniform { // saves a call
			rnd := randFloat64(src)
			return rnd*(p.hi-p.lo) + p.lo
		}
		return s.parts[i].rand(src)
	case sampleExp:
		x, ok := s.exp.first(src.Uint64()) // expFloat64, its first step inline
		if !ok {
			x = src.expSlow()
		}
		return x / s.hi
	case sampleLogNormal:
		z, ok := s.norm.first(src.Uint64()) // normFloat64, its first step inline
		if !ok {
			z = src.normSlow()
		}
		return math.Exp(z*s.hi + s.lo)
	case sampleGamma:
		return s.gamma(src)
	}
	return s.fallback.Rand(rand.Source(src))
}

// tokens returns tokens(s.rand(src)): a token count drawn from s, rounded
// to whole tokens. A constant's is rounded once, when s is made.
func (s *sampler) tokens(src *splitMix) float64 {
	if s.kind == sampleConstant {
		return s.tok // inlines
	}
	return s.drawTokens(src)
}

// drawTokens is tokens of a sampler that is not a constant. A uniform's
// draw, the commonest, is rand's steps for it, without rand's call and
// switch (TestDrawTokensIsRand).
func (s *sampler) drawTokens(src *splitMix) float64 {
	if s.kind == sampleUniform {
		return tokens(randFloat64(src)*(s.hi-s.lo) + s.lo)
	}
	return tokens(s.rand(src))
}

// modelSamplers sample one model's distributions; unused forms are nil
// samplers that are never called.
type modelSamplers struct {
	latency, ttft, speed, errLatency, stall sampler
	prefill                                 sampler // a nil sampler when the model has no prefill speed
}

func newModelSamplers(m *Model) modelSamplers {
	return modelSamplers{
		latency: newSampler(m.Latency), ttft: newSampler(m.TTFT),
		speed: newSampler(m.TokensPerSecond), errLatency: newSampler(m.ErrorLatency),
		prefill: newSampler(m.PrefillTokensPerSecond),
		stall:   newSampler(m.Stalls.Duration),
	}
}

// streamDraw draws a streamed attempt of request r to model md from src:
// the work until the first token — base TTFT, plus r's input tokens ÷ the
// prefill speed when md has one — and the decode work, r's output tokens ÷
// the decode speed. The draws come in the order TTFT, decode speed,
// prefill speed, so a model without a prefill speed draws exactly what it
// did before prefill speeds existed.
//
// The commonest kinds, a lognormal TTFT and a uniform decode speed, are
// drawn by rand's cases written out, without its call and switch.
func (ms *modelSamplers) streamDraw(md *Model, r *request, src *splitMix) (first, decode time.Duration) {
	var ttft, speed float64
	if s := &ms.ttft; s.kind == sampleLogNormal {
		z, ok := s.norm.first(src.Uint64()) // normFloat64, its first step inline
		if !ok {
			z = src.normSlow()
		}
		ttft = math.Exp(z*s.hi + s.lo)
	} else {
		ttft = s.rand(src)
	}
	if s := &ms.speed; s.kind == sampleUniform {
		rnd := randFloat64(src) // as distuv.Uniform.Rand
		speed = rnd*(s.hi-s.lo) + s.lo
	} else {
		speed = s.rand(src)
	}
	decode = seconds(r.out / speed)
	if md.PrefillTokensPerSecond != nil {
		ttft += r.in / ms.prefill.rand(src)
	}
	return seconds(ttft), decode
}

// randFloat64 is math/rand/v2's Rand.Float64 on src: a uniform in [0, 1)
// from the top 53 bits of one draw, as the distributions' Rand methods
// consume it.
func randFloat64(src *splitMix) float64 { return float64(src.Uint64()<<11>>11) / (1 << 53) }
