package experiments

import "math/bits"

// pyRandom is a port of CPython 3.11's random.Random: the Mersenne Twister MT19937 with CPython's
// seeding and CPython's derivation of floats and bounded integers from its 32-bit outputs. The
// documents' numbers were produced by that generator, so matching them digit for digit needs the
// same stream, not merely a good one; math/rand is never a substitute here.
type pyRandom struct {
	mt  [mtN]uint32 // the generator's state, untempered
	out [mtN]uint32 // the state tempered, computed once per twist so a draw is one load
	mti int
	log *logConsts // pyLog's table, fetched once per generator rather than once per draw
}

const (
	mtN       = 624
	mtM       = 397
	mtMatrixA = 0x9908b0df
	mtUpper   = 0x80000000
	mtLower   = 0x7fffffff
)

// newPyRandom returns the generator Python builds for random.Random(seed). CPython seeds from the
// 32-bit words of abs(seed), least significant first, through init_by_array; a zero seed is the
// one-word key [0]. The seed fields only admit 0..2^63-1, but abs is kept for fidelity.
func newPyRandom(seed int64) *pyRandom {
	n := uint64(seed)
	if seed < 0 {
		n = uint64(-seed) // -MinInt64 wraps to itself, which as uint64 is its absolute value
	}
	key := []uint32{uint32(n)}
	if hi := uint32(n >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{log: logTable()}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = mtN
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(mtN, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000 // most significant bit is 1: a non-zero initial state
}

// twist regenerates all 624 words at once, as genrand_uint32 does when the state runs out, and
// tempers them in the same pass.
func (r *pyRandom) twist() {
	mt := &r.mt
	for kk := 0; kk < mtN-mtM; kk++ {
		y := (mt[kk] & mtUpper) | (mt[kk+1] & mtLower)
		mt[kk] = mt[kk+mtM] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
	}
	for kk := mtN - mtM; kk < mtN-1; kk++ {
		y := (mt[kk] & mtUpper) | (mt[kk+1] & mtLower)
		mt[kk] = mt[kk+(mtM-mtN)] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
	}
	y := (mt[mtN-1] & mtUpper) | (mt[0] & mtLower)
	mt[mtN-1] = mt[mtM-1] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
	for i, y := range mt {
		r.out[i] = temper(y)
	}
	r.mti = 0
}

// temper is MT19937's output transform.
func temper(y uint32) uint32 {
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// uint32 is genrand_uint32: the next tempered word of the stream.
func (r *pyRandom) uint32() uint32 {
	if r.mti >= mtN {
		r.twist()
	}
	y := r.out[r.mti]
	r.mti++
	return y
}

// random is Python's random(): 53 bits from two words, (a>>5)*2^26 + (b>>6), scaled to [0, 1).
// Both products are exact in float64, so the result does not depend on how the compiler fuses them.
// It is the hot path of every experiment, so the common case is small enough to inline and reads
// both words at once; randomSlow handles a draw that straddles a twist.
func (r *pyRandom) random() float64 {
	i := uint(r.mti)
	if i >= mtN-1 {
		return r.randomSlow()
	}
	r.mti = int(i + 2)
	// a*2^-27 + b*2^-53 is CPython's (a*2^26 + b) * 2^-53: every term and the sum are exact.
	return float64(r.out[i]>>5)*(1.0/134217728.0) + float64(r.out[i+1]>>6)*(1.0/9007199254740992.0)
}

func (r *pyRandom) randomSlow() float64 {
	a, b := r.uint32()>>5, r.uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// getrandbits is Python's getrandbits(k) for 0 <= k <= 64. Words are drawn least significant
// first and the last (most significant) word keeps its top bits, exactly as CPython fills its
// word array; k = 0 draws nothing.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k < 0 || k > 64 {
		panic("pyRandom.getrandbits: k out of range")
	}
	if k == 0 {
		return 0
	}
	if k <= 32 {
		return uint64(r.uint32() >> (32 - k))
	}
	lo := uint64(r.uint32())
	hi := uint64(r.uint32() >> (64 - k))
	return hi<<32 | lo
}

// randbelow is _randbelow_with_getrandbits(n): rejection sampling on n.bit_length() bits, so the
// number of words consumed depends on the values drawn, as in Python.
func (r *pyRandom) randbelow(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	k := bits.Len64(n)
	v := r.getrandbits(k)
	for v >= n {
		v = r.getrandbits(k)
	}
	return v
}

// randint is Python's randint(a, b), that is randrange(a, b+1): a + _randbelow(b-a+1).
// It needs b-a+1 to fit in 64 bits, which every caller here guarantees.
func (r *pyRandom) randint(a, b int64) int64 {
	if b < a {
		panic("pyRandom.randint: empty range")
	}
	width := uint64(b-a) + 1
	return a + int64(r.randbelow(width))
}

// expovariate is Python 3.11's expovariate(lambd): -log(1 - random()) / lambd. It divides by
// lambd rather than multiplying by a mean because Python does, and the rounding must agree; the
// logarithm is pyLog, not math.Log, for the same reason.
func (r *pyRandom) expovariate(lambd float64) float64 {
	return -logWith(r.log, 1.0-r.random()) / lambd
}
